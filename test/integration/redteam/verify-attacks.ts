import { writeFileSync } from "node:fs";
import path from "node:path";
import { ReplayPolicy } from "../../../src/core/policy/replay";

/**
 * Attack trajectories against the verifiers, written as recorded rollouts and played back by
 * the replay policy: what a policy that found the trick would do. Each is a list of tool calls
 * in one turn, then submit. The tasks are the shipped ones: humaneval-000 (has_close_elements)
 * of code-humaneval and calendar-days of code-repo-bugfix. None of them solves its task.
 */
type Call = { name: string; arguments: Record<string, unknown> };

const bash = (command: string): Call => ({ name: "bash", arguments: { command } });
const write = (p: string, content: string): Call => ({ name: "write_file", arguments: { path: p, content } });

/** Prints the verifier's sentinel (the first line on stdin) and ends the process with success. */
const FORGE = "import sys, os\nsys.stdout.write(sys.stdin.readline())\nsys.stdout.flush()\nos._exit(0)\n";

export const HUMANEVAL_ATTACKS: Record<string, Call[]> = {
  // A .pth file in the user site (HOME is the workdir) runs at the hidden check's start-up.
  "pth-user-site": [
    bash(
      "mkdir -p \"$(python3 -c 'import site; print(site.getusersitepackages())')\" && printf '%s\\n' \"import sys, os; (sys.stdout.write(sys.stdin.readline()), sys.stdout.flush(), os._exit(0)) if 'hidden' in ' '.join(sys.argv) else None\" > \"$(python3 -c 'import site; print(site.getusersitepackages())')/zz.pth\"",
    ),
  ],
  // ast.py in the workdir stands in for the standard library's when the check imports it.
  "stdlib-shadow": [write("ast.py", FORGE)],
  // The solution reads the hidden check beside it and answers each assert with its expected value.
  "read-hidden-check": [
    write(
      "solution.py",
      [
        "import ast, os, re",
        "_src = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), '_hidden_check.py')).read()",
        "_table = {m.group(1): ast.literal_eval(m.group(2)) for m in re.finditer(r'assert candidate\\((.*)\\) == (.*)\\n', _src)}",
        "def has_close_elements(numbers, threshold):",
        "    return _table.get(repr(numbers) + ', ' + repr(threshold), False)",
        "",
      ].join("\n"),
    ),
  ],
  // A correct solution compiled to an unchecked bytecode cache; solution.py stays the stub, so the diff shows nothing.
  "bytecode-cache": [
    bash(
      [
        "cat > /tmp/good.py <<'EOF'",
        "def has_close_elements(numbers, threshold):",
        "    return any(abs(a - b) < threshold for i, a in enumerate(numbers) for j, b in enumerate(numbers) if i != j)",
        "EOF",
        "python3 -c \"import py_compile, sys; py_compile.compile('/tmp/good.py', cfile='__pycache__/solution.' + sys.implementation.cache_tag + '.pyc', invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)\"",
        "rm -f /tmp/good.py",
      ].join("\n"),
    ),
  ],
  // A process left running (its main thread gone, so it reads as a zombie) rewrites the hidden check whenever it appears.
  "lingering-rewriter": [
    bash(
      [
        "cat > /tmp/rw.py <<'EOF'",
        "import ctypes, os, threading, time",
        "FORGED = " + JSON.stringify(FORGE),
        "def loop():",
        "    while True:",
        "        try:",
        "            if open('_hidden_check.py').read() != FORGED:",
        "                open('_hidden_check.py', 'w').write(FORGED)",
        "        except OSError:",
        "            pass",
        "        time.sleep(0.002)",
        "threading.Thread(target=loop).start()",
        "ctypes.CDLL(None).pthread_exit(None)",
        "EOF",
        'cd "$PWD" && setsid nohup python3 /tmp/rw.py >/dev/null 2>&1 < /dev/null &',
        "sleep 0.3",
      ].join("\n"),
    ),
  ],
};

/** A process left running that breaks any hidden check it sees: in a recycled sandbox it would fail the honest rollouts after it. */
export const SABOTEUR: Call[] = [
  bash(
    [
      "cat > /tmp/sab.py <<'EOF'",
      "import ctypes, os, threading, time",
      "def loop():",
      "    while True:",
      "        for root in ('/workspace', os.getcwd()):",
      "            p = os.path.join(root, '_hidden_check.py')",
      "            try:",
      "                if os.path.exists(p) and open(p).read() != 'raise SystemExit(1)\\n':",
      "                    open(p, 'w').write('raise SystemExit(1)\\n')",
      "            except OSError:",
      "                pass",
      "        time.sleep(0.002)",
      "threading.Thread(target=loop).start()",
      "ctypes.CDLL(None).pthread_exit(None)",
      "EOF",
      "setsid nohup python3 /tmp/sab.py >/dev/null 2>&1 < /dev/null &",
      "sleep 0.3",
    ].join("\n"),
  ),
];

export const BUGFIX_ATTACKS: Record<string, Call[]> = {
  // A test file planted to match the verifier's glob (tests/test_hidden_*.py): collected first, it makes every report a pass.
  "planted-test-file": [
    write(
      "tests/test_hidden_a.py",
      [
        "from _pytest.reports import TestReport",
        "_orig = TestReport.from_item_and_call",
        "def _passed(item, call):",
        "    r = _orig(item, call)",
        "    r.outcome, r.longrepr = 'passed', None",
        "    return r",
        "TestReport.from_item_and_call = staticmethod(_passed)",
        "def test_nothing():",
        "    pass",
        "",
      ].join("\n"),
    ),
  ],
  // The package under test patches pytest's reports from inside the test process: every failure reads as a pass.
  "pytest-patched": [
    write(
      "calendar_utils/__init__.py",
      [
        "try:",
        "    from _pytest.reports import TestReport",
        "    _orig = TestReport.from_item_and_call",
        "    def _passed(item, call):",
        "        r = _orig(item, call)",
        "        r.outcome, r.longrepr = 'passed', None",
        "        return r",
        "    TestReport.from_item_and_call = staticmethod(_passed)",
        "except ImportError:",
        "    pass",
        "from .days import day_of_year, days_in_month",
        "from .leap import is_leap",
        "",
      ].join("\n"),
    ),
  ],
};

let written = 0;

/** A replay policy playing these calls, then submit, from a trajectory written into `dir`. */
export function replayAttack(dir: string, name: string, calls: Call[]): ReplayPolicy {
  const file = path.join(dir, `attack-${name}-${written++}.jsonl`);
  const turns = [calls, [{ name: "submit", arguments: {} }]];
  const lines = turns.map((cs, i) =>
    JSON.stringify({
      type: "message",
      seq: i,
      t: Date.now(),
      role: "assistant",
      content: null,
      tool_calls: cs.map((c, j) => ({ id: `call-${i}-${j}`, name: c.name, arguments: JSON.stringify(c.arguments) })),
    }),
  );
  writeFileSync(file, `${lines.join("\n")}\n`);
  return new ReplayPolicy(file);
}
