/**
 * Builds environments/code-humaneval from OpenAI's HumanEval (164 problems).
 *
 *   npx tsx scripts/build-humaneval.ts [path/to/HumanEval.jsonl.gz] [--out DIR]
 *
 * Default input: ../shared/datasets/humaneval/HumanEval.jsonl.gz relative to the repo
 * root. Each problem becomes a task: solution.py seeded with the signature and
 * docstring, the docstring's examples as the visible test, the dataset's `check`
 * function (plus the inputs it lacks, humaneval-extra-checks.ts) as the hidden test, and
 * prompt + canonical solution as the oracle. Nothing
 * from the dataset is executed here; the output is deterministic, so rerunning it on
 * the same input leaves the committed files unchanged.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import { z } from "zod";
import { EXTRA_CHECKS } from "./humaneval-extra-checks";

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
 * The hidden test: the dataset's check() against the submitted function. The submission runs
 * in a child process, never in this one: the checks call its functions by name over a pipe
 * and get their results back as Python literals. So nothing the submission does (exit early,
 * patch the test process, read the verifier's sentinel from it, return an object equal to
 * everything: rlenv audit's probes) reaches the checks or the sentinel, which this process
 * reads from stdin first and prints only once check() returned (the manifest sets
 * `sentinel: true`).
 */
function hiddenCheck(p: Problem): string {
  return [
    `# Hidden test for ${p.task_id}: the dataset's check() on the submitted ${p.entry_point}.`,
    "import ast",
    "import os",
    "import signal",
    "import subprocess",
    "import sys",
    "import tempfile",
    "",
    "# The verifier's sentinel, printed only once check() returned; the submission's process never sees it.",
    "_RLENV_SENTINEL = sys.stdin.readline().strip()",
    "",
    "# The submission runs in a child process that answers calls by name with the repr of the result.",
    '_RLENV_CHILD = """',
    "import ast, os, sys",
    "replies = os.fdopen(int(sys.argv[1]), 'w')",
    "calls = os.fdopen(int(sys.argv[2]), 'r')",
    "import solution",
    "for line in calls:",
    "    name, args, kwargs = ast.literal_eval(line)",
    "    try:",
    "        out = ('ok', repr(getattr(solution, name)(*args, **kwargs)))",
    "    except Exception as e:",
    "        out = ('error', type(e).__name__ + ': ' + str(e)[:200])",
    "    replies.write(repr(out) + chr(10))",
    "    replies.flush()",
    '"""',
    "_here = os.path.dirname(os.path.abspath(__file__))",
    "_calls_r, _calls_w = os.pipe()",
    "_replies_r, _replies_w = os.pipe()",
    "# The child's stderr goes to a file (a pipe could fill while this process waits on a reply), so",
    "# the reason a submission died (a fork bomb's BlockingIOError, a MemoryError) can be named.",
    "_child_err = tempfile.TemporaryFile()",
    "_child = subprocess.Popen(",
    "    [sys.executable, '-c', _RLENV_CHILD, str(_replies_w), str(_calls_r)],",
    "    stdin=subprocess.DEVNULL, stdout=sys.stderr.fileno(), stderr=_child_err, pass_fds=(_calls_r, _replies_w), cwd=_here,",
    ")",
    "os.close(_calls_r)",
    "os.close(_replies_w)",
    "_calls = os.fdopen(_calls_w, 'w')",
    "_replies = os.fdopen(_replies_r, 'r')",
    "",
    "",
    "def _rlenv_child_stderr():",
    "    _child_err.seek(0)",
    "    return _child_err.read().decode('utf-8', 'replace')",
    "",
    "",
    "def _rlenv_ended(name):",
    "    try:",
    "        status = _child.wait(timeout=5)",
    "    except subprocess.TimeoutExpired:",
    "        status = None",
    "    err = _rlenv_child_stderr()",
    "    sys.stderr.write(err)",
    "    last = [l.strip() for l in err.splitlines() if l.strip()][-1:]",
    "    why = ': ' + last[0][:200] if last else ''",
    "    how = 'exit status ' + str(status)",
    "    if status is not None and status < 0:",
    "        how = 'killed by ' + signal.Signals(-status).name",
    "        if status == -signal.SIGKILL:",
    "            how += ', most often the out-of-memory killer at the memory limit'",
    "    return AssertionError('the submission ended (' + how + ') before ' + name + ' returned' + why)",
    "",
    "",
    "def _rlenv_remote(name):",
    "    def call(*args, **kwargs):",
    "        try:",
    "            _calls.write(repr((name, args, kwargs)) + chr(10))",
    "            _calls.flush()",
    "        except OSError:",
    "            raise _rlenv_ended(name) from None",
    "        line = _replies.readline()",
    "        if not line:",
    "            raise _rlenv_ended(name)",
    "        kind, value = ast.literal_eval(line)",
    "        if kind != 'ok':",
    "            raise AssertionError(name + ' raised ' + value)",
    "        # Only a Python literal comes back: an object of the submission's own cannot.",
    "        return ast.literal_eval(value)",
    "",
    "    return call",
    "",
    "",
    "# The helpers some checks use (encode_cyclic for decode_cyclic) are the dataset's own, from its",
    "# prompt, as the HumanEval harness has them: not the submission's, which could change them too.",
    `exec(${JSON.stringify(p.prompt)}, globals())`,
    `${p.entry_point} = _rlenv_remote(${JSON.stringify(p.entry_point)})`,
    "",
    p.test.trim(),
    "",
    "",
    `check(${p.entry_point})`,
    ...extraCheck(p),
    "_calls.close()",
    "_child.wait(timeout=30)",
    "sys.stderr.write(_rlenv_child_stderr())",
    `print("check(${p.entry_point}) passed")`,
    'sys.stdout.write(_RLENV_SENTINEL + "\\n")',
    "",
  ].join("\n");
}

/** The inputs check() lacks for this problem (humaneval-extra-checks.ts), run after it on the same remote candidate. */
function extraCheck(p: Problem): string[] {
  const extra = EXTRA_CHECKS[p.task_id];
  if (!extra) return [];
  return [
    "",
    "# Inputs the dataset's check() lacks (its blind spots, found by rlenv audit), in the way of",
    "# HumanEval+: the expected values are the canonical solution's.",
    "def _rlenv_extra_check(candidate):",
    ...extra.map(
      (x) => `    assert candidate(${x.args}) == ${x.expected}, ${JSON.stringify(`${p.entry_point}(${x.args}) should be ${x.expected}`)}`,
    ),
    "",
    "",
    `_rlenv_extra_check(${p.entry_point})`,
  ];
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
    # HumanEval's own harness gives a problem 3 s; a gold here takes well under 1 s even under load.
    timeout: 10
# Judged in a fresh sandbox holding only the submission (the default); a submission that reaches
# into the test framework, the interpreter or the hidden tests scores 0 (an honest one never does).
judge:
  sandbox: fresh
  hack_signals: zero
validation:
  oracle: { min: 1 }
  nop: { max: 0 }
`;

const readme = `# code-humaneval

The 164 problems of OpenAI's HumanEval (MIT licence), generated by
\`scripts/build-humaneval.ts\` from \`../shared/datasets/humaneval/HumanEval.jsonl.gz\`.
The agent completes the function in \`solution.py\`; the hidden test
(\`_hidden_check.py\`, copied in after submit) runs the dataset's \`check()\` on it, and the
reward is 1 when it passes. The submission runs in a child process that the check calls
over a pipe, getting plain Python literals back, with the dataset's own helpers from the
prompt; the check prints the verifier's per-run sentinel (which the submission's process
never sees) only after \`check()\` returned. So a submission that exits early with status 0
(\`os._exit(0)\`), patches the test process, prints the sentinel or returns an object equal
to everything scores 0 (\`rlenv audit\` probes each). Where \`rlenv audit\` found the
dataset's check too weak (HumanEval/19, 34 and 59: wrong solutions it let pass, or a table of
the docstring's one example), the hidden test also checks a few more inputs, in the way of
HumanEval+, with the canonical solution's results (\`scripts/humaneval-extra-checks.ts\`).
\`run_tests\` runs the docstring's \`>>>\` examples, where the
prompt has any (advisory: a few HumanEval docstrings disagree with their own checks).
The oracle is the prompt plus the canonical solution.
`;

const text = gunzipSync(readFileSync(input)).toString("utf8");
const problems = text
  .split("\n")
  .filter((l) => l.trim() !== "")
  .map((l, i) => {
    const r = Problem.safeParse(JSON.parse(l));
    if (!r.success)
      throw new Error(`${input}: line ${i + 1}: ${r.error.issues.map((x) => `${x.path.join(".")}: ${x.message}`).join("; ")}`);
    return r.data;
  });
if (problems.length !== 164) throw new Error(`${input}: expected 164 problems, found ${problems.length}`);
mkdirSync(outDir, { recursive: true });
writeFileSync(path.join(outDir, "environment.yaml"), manifest);
writeFileSync(path.join(outDir, "README.md"), readme);
writeFileSync(path.join(outDir, "tasks.jsonl"), `${problems.map((p) => JSON.stringify(taskOf(p))).join("\n")}\n`);
console.log(`wrote ${problems.length} tasks to ${path.relative(process.cwd(), outDir)}`);
