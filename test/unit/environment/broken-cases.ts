/**
 * Broken manifests and tasks, each with the exact problems the loader must report
 * (`file:line:col: severity: path: message`) and how many tasks must still load
 * (null when the manifest itself is unusable). Reviewed by hand; keep them exact.
 */
export interface BrokenCase {
  name: string;
  files: Record<string, string | { symlink: string }>;
  expect: string[];
  tasksLoaded: number | null;
}
export const CASES: BrokenCase[] = [];
const EXPECT: Record<string, { e: string[]; n: number | null }> = {
  "unknown top-level field with suggestion": {
    e: ["environment.yaml:7:1: error: max_turn: unknown field 'max_turn' (did you mean 'max_turns'?)"],
    n: null,
  },
  "unknown field without suggestion": {
    e: ["environment.yaml:7:1: error: colour: unknown field 'colour'"],
    n: null,
  },
  "misspelt domain": {
    e: ["environment.yaml:2:9: error: domain: expected one of code, scene3d, document, custom, got \"codes\" (did you mean 'code'?)"],
    n: null,
  },
  "missing name": {
    e: ["environment.yaml:1:1: error: missing required field 'name' (a string)"],
    n: null,
  },
  "missing reward": {
    e: ["environment.yaml:1:1: error: missing required field 'reward' (a list)"],
    n: null,
  },
  "empty reward list": {
    e: ["environment.yaml:5:9: error: reward: needs at least 1 item"],
    n: null,
  },
  "unknown verifier type": {
    e: [
      "environment.yaml:6:11: error: reward[0].type: unknown type \"exakt\": expected one of tests, exact, numeric, fields, script, judge, scene, harbor (did you mean 'exact'?)",
    ],
    n: null,
  },
  "verifier weight not a number": {
    e: ["environment.yaml:7:13: error: reward[0].weight: expected a number, got a string"],
    n: null,
  },
  "negative weight": {
    e: ["environment.yaml:7:13: error: reward[0].weight: must be at least 0"],
    n: null,
  },
  "unknown field in verifier": {
    e: ["environment.yaml:7:5: error: reward[0].feild: unknown field 'feild' (did you mean 'field'?)"],
    n: null,
  },
  "tests verifier bad format": {
    e: ['environment.yaml:7:13: error: reward[0].format: expected one of pytest, junit, tap, stdio, exit-code, got "junitxml"'],
    n: null,
  },
  "max_turns zero": {
    e: ["environment.yaml:7:12: error: max_turns: must be more than 0"],
    n: null,
  },
  "max_turns string": {
    e: ["environment.yaml:7:12: error: max_turns: expected a number, got a string"],
    n: null,
  },
  "bad memory size": {
    e: ["environment.yaml:9:13: error: sandbox.limits.memory: a size such as 512m or 2g"],
    n: null,
  },
  "relative workdir": {
    e: ["environment.yaml:8:12: error: sandbox.workdir: must start with '/'"],
    n: null,
  },
  "image and build together": {
    e: ["environment.yaml:8:3: error: sandbox: give either image or build, not both"],
    n: null,
  },
  "network other than none": {
    e: ['environment.yaml:8:12: error: sandbox.network: expected one of none, got "bridge"'],
    n: null,
  },
  "unknown sandbox field": {
    e: ["environment.yaml:8:3: error: sandbox.imgae: unknown field 'imgae' (did you mean 'image'?)"],
    n: null,
  },
  "unknown builtin tool": {
    e: ["environment.yaml:4:15: error: tools[1]: unknown built-in tool 'sumbit' for domain code (did you mean 'submit'?)"],
    n: 1,
  },
  "tool listed twice": {
    e: ["environment.yaml:4:23: error: tools[2]: tool 'bash' is listed twice"],
    n: 1,
  },
  "custom tool without command": {
    e: ["environment.yaml:5:5: error: tools[0]: missing required field 'command' (a string)"],
    n: null,
  },
  "custom tool bad name": {
    e: ["environment.yaml:5:11: error: tools[0].name: tool names are letters, digits, '_' or '-' (at most 64)"],
    n: null,
  },
  "tasks path escapes": {
    e: ["environment.yaml:3:8: error: tasks: path '../tasks.jsonl' leaves the environment folder"],
    n: 0,
  },
  "tasks path absolute": {
    e: ["environment.yaml:3:8: error: tasks: absolute path '/etc/passwd' is not allowed: paths are relative to the environment folder"],
    n: 0,
  },
  "tasks file missing": {
    e: ["environment.yaml:3:8: error: tasks: 'missing.jsonl' does not exist"],
    n: 0,
  },
  "symlink out of the folder": {
    e: ["environment.yaml:3:8: error: tasks: path 'link.jsonl' links outside the environment (to /etc/hostname)"],
    n: 0,
  },
  "system_file missing": {
    e: ["environment.yaml:8:16: error: prompt.system_file: 'prompts/system.md' does not exist"],
    n: 1,
  },
  "yaml syntax error": {
    e: ["environment.yaml:8:1: error: invalid YAML: Flow sequence in block collection must be sufficiently indented and end with a ]"],
    n: null,
  },
  "manifest is a list": {
    e: ["environment.yaml:1:1: error: the manifest must be a mapping of fields (name, domain, tasks, reward, …)"],
    n: null,
  },
  "task: invalid JSON": {
    e: ["tasks.jsonl:2:21: error: tasks[1]: invalid JSON: unexpected '}'"],
    n: 1,
  },
  "task: a field given twice": {
    e: [
      "tasks.jsonl:2:25: error: tasks[1].prompt: field 'prompt' is given twice in this object (first at column 12); JSON keeps only the last, so remove one",
      "tasks.jsonl:2:63: error: tasks[1].solution.answer: field 'answer' is given twice in this object (first at column 50); JSON keeps only the last, so remove one",
    ],
    n: 1,
  },
  "task: missing prompt": {
    e: ["tasks.jsonl:2:1: error: tasks[1]: missing required field 'prompt' (a string)"],
    n: 1,
  },
  "task: solution.files not an object": {
    e: ["tasks.jsonl:2:45: error: tasks[1].solution.files: expected an object, got a string"],
    n: 1,
  },
  "task: unknown field": {
    e: ["tasks.jsonl:2:12: error: tasks[1].promt: unknown field 'promt' (did you mean 'prompt'?)"],
    n: 1,
  },
  "task: bad id": {
    e: ["tasks.jsonl:2:7: error: tasks[1].id: use letters, digits, '.', '_', '-' or '/', starting with a letter or digit"],
    n: 1,
  },
  "task: duplicate id": {
    e: ["tasks.jsonl:2:1: error: tasks[1].id: duplicate task id 't1' (first defined at tasks.jsonl:1)"],
    n: 1,
  },
  "task: seed path escapes workdir": {
    e: ["tasks.jsonl:2:34: error: tasks[1].files[\"../x.py\"]: file path '../x.py' must be relative and stay inside the workdir"],
    n: 1,
  },
  "task: stdio case without stdout": {
    e: ["tasks.jsonl:2:43: error: tasks[1].tests.cases[0]: missing required field 'stdout' (a string)"],
    n: 1,
  },
  "task: line 14 of many": {
    e: ["tasks.jsonl:14:46: error: tasks[13].solution.files: expected an object, got a list"],
    n: 13,
  },
  "task: tool_calls arguments not object": {
    e: ["tasks.jsonl:2:78: error: tasks[1].solution.tool_calls[0].arguments: expected an object, got a string"],
    n: 1,
  },
  "task: trailing garbage": {
    e: ["tasks.jsonl:1:58: error: tasks[0]: invalid JSON: unexpected 'x' after the JSON value"],
    n: 0,
  },
  "task folder without task.yaml": {
    e: ["tasks/b:1:1: error: tasks[1]: task folder 'b' has no task.yaml"],
    n: 1,
  },
  "task folder: bad field": {
    e: ["tasks/a/task.yaml:2:12: error: tasks[0].max_turns: must be more than 0"],
    n: 0,
  },
};
const BM = `name: demo
domain: code
tasks: tasks.jsonl
tools: [bash, submit]
reward:
  - type: exact
`;
const BT = `{"id":"t1","prompt":"Say hi","solution":{"answer":"hi"}}`;
const man = (t: string) => ({ "environment.yaml": t, "tasks.jsonl": `${BT}\n` });
const tk = (t: string) => ({ "environment.yaml": BM, "tasks.jsonl": t });
const add = (name: string, files: Record<string, string | { symlink: string }>, _loaded?: number) => {
  const x = EXPECT[name];
  if (!x) throw new Error(`no expectation for ${name}`);
  CASES.push({ name, files, expect: x.e, tasksLoaded: x.n });
};
add("unknown top-level field with suggestion", man(BM + "max_turn: 5\n"));
add("unknown field without suggestion", man(BM + "colour: blue\n"));
add("misspelt domain", man(BM.replace("domain: code", "domain: codes")));
add("missing name", man(BM.replace("name: demo\n", "")));
add("missing reward", man(BM.split("reward:")[0]!));
add("empty reward list", man(BM.replace("reward:\n  - type: exact\n", "reward: []\n")));
add("unknown verifier type", man(BM.replace("type: exact", "type: exakt")));
add("verifier weight not a number", man(BM + "    weight: heavy\n"));
add("negative weight", man(BM + "    weight: -1\n"));
add("unknown field in verifier", man(BM + "    feild: answer\n"));
add("tests verifier bad format", man(BM.replace("type: exact", "type: tests\n    format: junitxml")));
add("max_turns zero", man(BM + "max_turns: 0\n"));
add("max_turns string", man(BM + "max_turns: many\n"));
add("bad memory size", man(BM + "sandbox:\n  limits:\n    memory: lots\n"));
add("relative workdir", man(BM + "sandbox:\n  workdir: work\n"));
add("image and build together", man(BM + "sandbox:\n  image: x\n  build: Dockerfile\n"));
add("network other than none", man(BM + "sandbox:\n  network: bridge\n"));
add("unknown sandbox field", man(BM + "sandbox:\n  imgae: rlenv/python:bookworm\n"));
add("unknown builtin tool", man(BM.replace("[bash, submit]", "[bash, sumbit]")));
add("tool listed twice", man(BM.replace("[bash, submit]", "[bash, submit, bash]")));
add("custom tool without command", man(BM.replace("tools: [bash, submit]", "tools:\n  - name: lint\n    description: Run the linter\n")));
add(
  "custom tool bad name",
  man(BM.replace("tools: [bash, submit]", "tools:\n  - name: run lint\n    description: d\n    command: ruff\n")),
);
add("tasks path escapes", man(BM.replace("tasks: tasks.jsonl", "tasks: ../tasks.jsonl")));
add("tasks path absolute", man(BM.replace("tasks: tasks.jsonl", "tasks: /etc/passwd")));
add("tasks file missing", man(BM.replace("tasks: tasks.jsonl", "tasks: missing.jsonl")));
add("symlink out of the folder", {
  "environment.yaml": BM.replace("tasks: tasks.jsonl", "tasks: link.jsonl"),
  "link.jsonl": { symlink: "/etc/hostname" },
});
add("system_file missing", man(BM + "prompt:\n  system_file: prompts/system.md\n"));
add("yaml syntax error", man(BM + "prompt: [unclosed\n"));
add("manifest is a list", man("- name: demo\n"));
add("task: invalid JSON", tk(`${BT}\n{"id":"t2","prompt":}\n`), 1);
add("task: a field given twice", tk(`${BT}\n{"id":"t2","prompt":"a","prompt":"b","solution":{"answer":"x","answer":"y"}}\n`), 1);
add("task: missing prompt", tk(`${BT}\n{"id":"t2"}\n`), 1);
add("task: solution.files not an object", tk(`${BT}\n{"id":"t2","prompt":"p","solution":{"files":"main.py"}}\n`), 1);
add("task: unknown field", tk(`${BT}\n{"id":"t2","promt":"p","prompt":"p"}\n`), 1);
add("task: bad id", tk(`${BT}\n{"id":"has space","prompt":"p"}\n`), 1);
add("task: duplicate id", tk(`${BT}\n{"id":"t1","prompt":"again"}\n`), 1);
add("task: seed path escapes workdir", tk(`${BT}\n{"id":"t2","prompt":"p","files":{"../x.py":"print(1)"}}\n`), 1);
add("task: stdio case without stdout", tk(`${BT}\n{"id":"t2","prompt":"p","tests":{"cases":[{"stdin":"1"}]}}\n`), 1);
add(
  "task: line 14 of many",
  tk(
    Array.from({ length: 13 }, (_, i) => `{"id":"t${i}","prompt":"p"}`).join("\n") +
      `\n{"id":"t13","prompt":"p","solution":{"files":[]}}\n`,
  ),
  13,
);
add(
  "task: tool_calls arguments not object",
  tk(`${BT}\n{"id":"t2","prompt":"p","solution":{"tool_calls":[{"name":"bash","arguments":"ls"}]}}\n`),
  1,
);
add("task: trailing garbage", tk(`${BT} x\n`), 0);
add(
  "task folder without task.yaml",
  { "environment.yaml": BM.replace("tasks: tasks.jsonl", "tasks: tasks"), "tasks/a/task.yaml": "prompt: hi\n", "tasks/b/readme.md": "x" },
  1,
);
add(
  "task folder: bad field",
  { "environment.yaml": BM.replace("tasks: tasks.jsonl", "tasks: tasks"), "tasks/a/task.yaml": "prompt: hi\nmax_turns: -2\n" },
  0,
);
