import type { Domain } from "../schema/common";

/**
 * Starter environments for `rlenv new` and the editor's "New Environment" command.
 * Each one validates, and its oracle solves its task while nop does not.
 */
export function templateFiles(domain: Domain, name: string): Record<string, string> {
  const header = (description: string) => `# RL Env Studio environment. Reference: README.md, "Environment format".
name: ${name}
domain: ${domain}
description: ${description}
`;
  switch (domain) {
    case "code":
    case "custom":
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
  - type: tests
    command: python3 -m pytest -q -p no:cacheprovider --junitxml=.rlenv-report.xml tests_hidden
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
          tests: { files: { "tests_hidden/test_add.py": "from solution import add\n\ndef test_small():\n    assert add(1, 2) == 3\n\ndef test_negative():\n    assert add(-4, 1) == -3\n" } },
          solution: { files: { "solution.py": "def add(a, b):\n    return a + b\n" } },
        })}\n`,
      };
    case "scene3d":
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
          target: { checks: [{ check: "exists", objects: ["table", "cup"] }, { check: "on_top_of", object: "cup", support: "table" }] },
          solution: {
            tool_calls: [
              { name: "add_object", arguments: { name: "table", kind: "box", dimensions: [1, 1, 1], position: [0, 0, 0.5] } },
              { name: "add_object", arguments: { name: "cup", kind: "box", dimensions: [0.2, 0.2, 0.2], position: [0, 0, 1.1], color: "#ff0000" } },
            ],
          },
        })}\n`,
      };
    case "document":
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
          target: { fields: { answer: "$1577 million" } },
          solution: { answer: { answer: "1577", citations: [{ document: "report.md", page: 1 }] } },
        })}\n`,
      };
  }
}
