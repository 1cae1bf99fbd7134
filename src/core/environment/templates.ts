import type { Domain } from "../schema/common";

/**
 * Starter environments for `rlenv new` and the editor's "New Environment" command.
 * Each one validates, and its oracle solves its task while nop does not.
 */
export function templateFiles(domain: Domain, name: string): Record<string, string> {
  const header = (description: string) => `# RL Env Studio environment: see README.md here first. Every field: the project README's
# "Environment format"; every built-in tool, comparator and check: docs/reference.md.
name: ${name}
domain: ${domain}
description: ${description}
`;
  return { ...DOMAIN_FILES[domain](header), "README.md": scaffoldReadme(domain, name) };
}

type Header = (description: string) => string;

/** A key-value store kept with the environment's own tools, checked by a script. */
function customFiles(header: Header): Record<string, string> {
  return {
    "environment.yaml": `${header("Keep a key-value store with the environment's own tools; a script checks the store.")}sandbox:
  image: rlenv/python:bookworm
  workdir: /workspace
  timeouts: { step: 10, rollout: 120 }
tasks: tasks.jsonl
prompt:
  system: You keep a key-value store with the kv_set and kv_get tools. Call submit when the store is right.
  user: "{{task.prompt}}"
tools:
  - submit
  # Custom tools: the command runs in the sandbox workdir with the arguments as JSON on stdin.
  - name: kv_set
    description: Store a value under a key.
    parameters:
      type: object
      properties: { key: { type: string }, value: { type: string } }
      required: [key, value]
    command: python3 kv.py set
  - name: kv_get
    description: Read the value stored under a key.
    parameters:
      type: object
      properties: { key: { type: string } }
      required: [key]
    command: python3 kv.py get
max_turns: 10
reward:
  # The script gets the task (its target among it) as JSON on stdin and as RLENV_* variables,
  # and prints a score in [0, 1] or {"score": …, "reason": …} on its last line.
  - type: script
    name: store
    command: python3 check_store.py
validation:
  oracle: { min: 1.0 }
  nop: { max: 0.0 }
`,
    "tasks.jsonl": `${JSON.stringify({
      id: "capitals",
      prompt: "Store the capital of France under the key 'france' and the capital of Japan under 'japan'.",
      files: {
        "kv.py":
          "import json, os, sys\n\nargs = json.load(sys.stdin)\nstore = json.load(open('store.json')) if os.path.exists('store.json') else {}\nif sys.argv[1] == 'set':\n    store[args['key']] = args['value']\n    json.dump(store, open('store.json', 'w'))\n    print('stored', args['key'])\nelse:\n    print(store.get(args['key'], '(no such key)'))\n",
        "check_store.py":
          "import json, os, sys\n\ntask = json.load(sys.stdin)['task']\nwant = task['target']\nstore = json.load(open('store.json')) if os.path.exists('store.json') else {}\nright = [k for k, v in want.items() if store.get(k, '').strip().lower() == v.lower()]\nprint(json.dumps({'score': len(right) / len(want), 'reason': '%d of %d keys right' % (len(right), len(want))}))\n",
      },
      target: { france: "Paris", japan: "Tokyo" },
      solution: {
        tool_calls: [
          { name: "kv_set", arguments: { key: "france", value: "Paris" } },
          { name: "kv_set", arguments: { key: "japan", value: "Tokyo" } },
        ],
      },
    })}\n`,
  };
}

/** Small Python functions graded by hidden pytest tests. */
function codeFiles(header: Header): Record<string, string> {
  return {
    "environment.yaml": `${header("Write small Python functions; hidden pytest tests grade them.")}sandbox:
  image: rlenv/python:bookworm
  workdir: /workspace
  limits: { cpus: 1, memory: 512m, pids: 128 }
  timeouts: { step: 30, rollout: 300 }
tasks: tasks.jsonl
prompt:
  system: You are a careful Python programmer. Use the tools to edit files and run tests, then call submit.
  user: "{{task.prompt}}"
tools: [bash, read_file, write_file, edit_file, list_files, run_tests, submit]
max_turns: 15
reward:
  # Isolated from what the agent leaves behind: no conftest.py or pytest.ini is read, and a report
  # file it planted is removed first; the counts come from the report pytest itself writes.
  - type: tests
    command: rm -f .rlenv-report.xml && python3 -I -m pytest -q -p no:cacheprovider --noconftest -c /dev/null --rootdir="$PWD" -o pythonpath="$PWD" --junitxml=.rlenv-report.xml tests_hidden
    format: junit
    report: .rlenv-report.xml
    mode: fraction
validation:
  oracle: { min: 1.0 }
  nop: { max: 0.0 }
`,
    "tasks.jsonl": `${JSON.stringify({
      id: "add",
      prompt: "Implement add(a, b) in solution.py so that it returns the sum of a and b.",
      files: { "solution.py": "def add(a, b):\n    raise NotImplementedError\n" },
      tests: {
        files: {
          "tests_hidden/test_add.py":
            "from solution import add\n\n# type() first: an object whose == is always True must not pass.\ndef test_small():\n    assert type(add(1, 2)) is int and add(1, 2) == 3\n\ndef test_negative():\n    assert type(add(-4, 1)) is int and add(-4, 1) == -3\n",
        },
      },
      solution: { files: { "solution.py": "def add(a, b):\n    return a + b\n" } },
    })}\n`,
  };
}

/** A scene built with 3D tool calls, graded by checks in 3D space. */
function scene3dFiles(header: Header): Record<string, string> {
  return {
    "environment.yaml": `${header("Build scenes with 3D tool calls; checks in 3D space grade them.")}scene: { backend: builtin }
tasks: tasks.jsonl
prompt:
  system: You build 3D scenes with the tools. Units are metres, +Z is up. Call submit when done.
tools: [add_object, update_object, remove_object, group, query_scene, submit]
max_turns: 20
reward:
  - type: scene
`,
    "tasks.jsonl": `${JSON.stringify({
      id: "box-on-table",
      prompt: "Place a 1 m box named 'table' on the ground and a 0.2 m red box named 'cup' resting on top of it.",
      // on_top_of also needs both objects; no_overlap keeps a scene piled at one point from scoring.
      target: {
        checks: [
          { check: "on_top_of", object: "cup", support: "table" },
          { check: "no_overlap", objects: ["cup", "table"] },
        ],
      },
      solution: {
        tool_calls: [
          { name: "add_object", arguments: { name: "table", kind: "box", dimensions: [1, 1, 1], position: [0, 0, 0.5] } },
          {
            name: "add_object",
            arguments: { name: "cup", kind: "box", dimensions: [0.2, 0.2, 0.2], position: [0, 0, 1.1], color: "#ff0000" },
          },
        ],
      },
    })}\n`,
  };
}

/** Questions answered from documents with citations, graded field by field. */
function documentFiles(header: Header): Record<string, string> {
  return {
    "environment.yaml": `${header("Answer questions from documents with citations; fields are graded one by one.")}documents: { path: docs }
tasks: tasks.jsonl
prompt:
  system: Answer from the documents only. Search, read, then call submit_report with {answer, citations}.
tools: [list_documents, search, read, find, submit_report]
max_turns: 20
reward:
  - type: fields
    fields:
      answer: { comparator: money, rel_tol: 0.01 }
`,
    "docs/report.md": "# Annual report\n\nRevenue for fiscal 2023 was $1,577 million, up from $1,402 million.\n",
    "tasks.jsonl": `${JSON.stringify({
      id: "revenue",
      prompt: "What was revenue in fiscal 2023? Answer in USD millions.",
      // The gold value of each report field sits at target.<field>, as in the shipped document environments.
      target: { answer: "$1,577 million" },
      solution: { answer: { answer: "1577", citations: [{ document: "report.md", page: 1 }] } },
    })}\n`,
  };
}

/** The files of each domain's starter; each is a small working example of that domain alone. */
const DOMAIN_FILES: Record<Domain, (header: Header) => Record<string, string>> = {
  custom: customFiles,
  code: codeFiles,
  scene3d: scene3dFiles,
  document: documentFiles,
};

/** What to change first, per domain: the scaffold's own README. */
function scaffoldReadme(domain: Domain, name: string): string {
  const first: Record<Domain, string[]> = {
    code: [
      "1. `tasks.jsonl`: replace the `add` task. `files` are the seed files, `tests.files` the hidden tests (copied in after submit), `solution.files` what the oracle writes.",
      "2. `environment.yaml`: `reward[0].command` runs the hidden tests; keep its report path and format in step with it.",
      "3. Many files per task? Use a folder per task instead of JSONL (`tasks/<id>/task.yaml` with `files/`, `tests/`, `solution/` beside it).",
    ],
    custom: [
      "1. `environment.yaml`: the custom tools (`kv_set`, `kv_get`): `parameters` is the JSON Schema the agent sees, `command` runs with the arguments as JSON on stdin.",
      "2. `tasks.jsonl`: the task's `target` is what the script verifier checks; `solution.tool_calls` is what the oracle does.",
      "3. `check_store.py` (a seed file here, so the example is one file): the `script` verifier; it reads the task, the submitted answer and the trajectory from stdin.",
    ],
    scene3d: [
      "1. `tasks.jsonl`: `target.checks` grade the final scene (`on_top_of`, `no_overlap`, `distance`, … with their parameters in docs/reference.md); `target.initial` places objects before the first turn.",
      "2. `solution.tool_calls` build the scene the oracle submits; every object a check names must be in the initial scene or made by these calls.",
      "3. `scene.assets` lets the agent place glTF models from a folder.",
    ],
    document: [
      "1. `docs/`: put your documents here (PDF, HTML, Markdown, text, CSV).",
      "2. `tasks.jsonl`: the gold value of each report field is `target.<field>`; `solution.answer` is the report the oracle submits (it must match `target.schema`, by default {answer, citations}).",
      "3. `environment.yaml`: `reward[0].fields` picks a comparator per field (money, percent, date, entities, text, …: docs/reference.md lists them with examples).",
    ],
  };
  return `# ${name}

A working ${domain} environment: its oracle solves its task and doing nothing does not.

    rlenv validate --run .     # static checks, then the oracle and nop rollouts

## What to change first

${first[domain].join("\n")}

Then run \`rlenv validate --run .\` again: a failing task's line names the reward component that fell short and why.
`;
}
