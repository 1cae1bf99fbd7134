/**
 * Builds environments/code-humaneval from OpenAI's HumanEval (164 problems).
 *
 *   npx tsx scripts/build-humaneval.ts [path/to/HumanEval.jsonl.gz] [--out DIR]
 *
 * Default input: ../shared/datasets/humaneval/HumanEval.jsonl.gz relative to the repo
 * root. Each problem becomes a task: solution.py seeded with the signature and
 * docstring, the docstring's examples as the visible test, the dataset's `check`
 * function as the hidden test, and prompt + canonical solution as the oracle. Nothing
 * from the dataset is executed here; the output is deterministic, so rerunning it on
 * the same input leaves the committed files unchanged.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import { z } from "zod";

const Problem = z.object({
  task_id: z.string().regex(/^HumanEval\/\d+$/),
  prompt: z.string(),
  canonical_solution: z.string(),
  test: z.string(),
  entry_point: z.string().regex(/^[A-Za-z_]\w*$/),
});
type Problem = z.infer<typeof Problem>;

const root = path.resolve(import.meta.dirname, "..");
const argv = process.argv.slice(2);
const outAt = argv.indexOf("--out");
const outDir = outAt >= 0 && argv[outAt + 1] ? path.resolve(argv[outAt + 1]!) : path.join(root, "environments", "code-humaneval");
const positional = argv.filter((_, i) => outAt < 0 || (i !== outAt && i !== outAt + 1));
const input = path.resolve(positional[0] ?? path.join(root, "..", "shared", "datasets", "humaneval", "HumanEval.jsonl.gz"));

const HIDDEN_CHECK = "_hidden_check.py";
const VISIBLE_TEST = "test_examples.py";

/**
 * The hidden test: the dataset's check() against the submitted function, as the HumanEval
 * harness runs it. It reads the verifier's per-run sentinel from stdin before the submission is
 * imported and prints it only after check() returned (the manifest sets `sentinel: true`), so a
 * submission that ends the process with status 0 (os._exit(0), sys.exit(0) at import) scores 0.
 * The function is checked through a wrapper that accepts only results of built-in types, so an
 * object equal to everything (rlenv audit's always-equal probe) fails the asserts' comparisons.
 */
function hiddenCheck(p: Problem): string {
  return [
    `# Hidden test for ${p.task_id}: the dataset's check() on the submitted ${p.entry_point}.`,
    "import sys",
    "",
    "# The verifier's sentinel, taken before the submission runs and printed only once check() returned.",
    "_RLENV_SENTINEL = sys.stdin.readline().strip()",
    "",
    "from solution import *  # noqa: E402,F401,F403 - helpers the prompt defines are in scope, as in the original harness",
    `from solution import ${p.entry_point}`,
    "",
    p.test.trim(),
    "",
    "",
    "# Only values of built-in types count: an object whose __eq__ is always true would pass every assert.",
    "def _rlenv_plain(v):",
    "    t = type(v)",
    "    if t in (list, tuple, set, frozenset):",
    "        return all(_rlenv_plain(x) for x in v)",
    "    if t is dict:",
    "        return all(_rlenv_plain(k) and _rlenv_plain(x) for k, x in v.items())",
    "    return t in (int, float, bool, str, bytes, complex, type(None))",
    "",
    "",
    "def _rlenv_checked(f):",
    "    def call(*args, **kwargs):",
    "        r = f(*args, **kwargs)",
    "        if not _rlenv_plain(r):",
    '            raise AssertionError("the result is not a plain value: " + type(r).__name__)',
    "        return r",
    "    return call",
    "",
    "",
    `check(_rlenv_checked(${p.entry_point}))`,
    `print("check(${p.entry_point}) passed")`,
    "sys.stdout.write(_RLENV_SENTINEL + \"\\n\")",
    "",
  ].join("\n");
}

/** The visible test: the docstring's >>> examples through doctest. Advisory only; the reward is the hidden check. */
const visibleTest = [
  '"""Runs the >>> examples from the docstrings in solution.py."""',
  "import doctest",
  "import sys",
  "",
  "import solution",
  "",
  "result = doctest.testmod(solution, optionflags=doctest.NORMALIZE_WHITESPACE)",
  'print(f"{result.attempted - result.failed} of {result.attempted} docstring examples passed")',
  "sys.exit(1 if result.failed else 0)",
  "",
].join("\n");

function taskOf(p: Problem): Record<string, unknown> {
  const num = Number(p.task_id.split("/")[1]);
  const hasExamples = p.prompt.includes(">>>");
  return {
    id: `humaneval-${String(num).padStart(3, "0")}`,
    prompt: `Complete the function \`${p.entry_point}\` in solution.py so that it does what its docstring says. Keep its name and signature; you may add helper functions and imports from the standard library.${hasExamples ? " run_tests checks the examples in the docstring." : ""} Submit when it is done.`,
    files: { "solution.py": p.prompt },
    ...(hasExamples ? { visible_tests: { [VISIBLE_TEST]: visibleTest } } : {}),
    tests: { files: { [HIDDEN_CHECK]: hiddenCheck(p) } },
    solution: { files: { "solution.py": p.prompt + p.canonical_solution } },
    metadata: { source: p.task_id, entry_point: p.entry_point },
  };
}

const manifest = `# Generated by scripts/build-humaneval.ts from HumanEval (MIT licence, openai/human-eval).
name: code-humaneval
domain: code
description: >-
  The 164 HumanEval problems. The agent completes a Python function in solution.py;
  the reward is 1 when the dataset's hidden check() passes, else 0.
version: "1"
sandbox:
  image: rlenv/python:bookworm
  workdir: /workspace
  limits:
    cpus: 1
    memory: 512m
    pids: 64
  timeouts:
    step: 20
    rollout: 300
tasks: tasks.jsonl
prompt:
  system: |
    You are a careful Python programmer working in a sandbox with no network.
    The workdir holds solution.py. Use the tools to read it, write the function,
    and run the visible tests; call submit when you are done.
tools: [bash, read_file, write_file, edit_file, list_files, run_tests, submit]
max_turns: 20
reward:
  - type: tests
    name: hidden-check
    command: python3 ${HIDDEN_CHECK}
    format: exit-code
    sentinel: true
    mode: all
    timeout: 30
validation:
  oracle: { min: 1 }
  nop: { max: 0 }
`;

const readme = `# code-humaneval

The 164 problems of OpenAI's HumanEval (MIT licence), generated by
\`scripts/build-humaneval.ts\` from \`../shared/datasets/humaneval/HumanEval.jsonl.gz\`.
The agent completes the function in \`solution.py\`; the hidden test
(\`_hidden_check.py\`, copied in after submit) runs the dataset's \`check()\` on it, and the
reward is 1 when it passes. It prints the verifier's per-run sentinel (read from stdin
before the submission is imported) only after \`check()\` returned, so a submission that
exits early with status 0 (\`os._exit(0)\`) scores 0. \`run_tests\` runs the docstring's \`>>>\` examples, where the
prompt has any (advisory: a few HumanEval docstrings disagree with their own checks).
The oracle is the prompt plus the canonical solution.
`;

const text = gunzipSync(readFileSync(input)).toString("utf8");
const problems = text
  .split("\n")
  .filter((l) => l.trim() !== "")
  .map((l, i) => {
    const r = Problem.safeParse(JSON.parse(l));
    if (!r.success) throw new Error(`${input}: line ${i + 1}: ${r.error.issues.map((x) => `${x.path.join(".")}: ${x.message}`).join("; ")}`);
    return r.data;
  });
if (problems.length !== 164) throw new Error(`${input}: expected 164 problems, found ${problems.length}`);
mkdirSync(outDir, { recursive: true });
writeFileSync(path.join(outDir, "environment.yaml"), manifest);
writeFileSync(path.join(outDir, "README.md"), readme);
writeFileSync(path.join(outDir, "tasks.jsonl"), `${problems.map((p) => JSON.stringify(taskOf(p))).join("\n")}\n`);
console.log(`wrote ${problems.length} tasks to ${path.relative(process.cwd(), outDir)}`);
