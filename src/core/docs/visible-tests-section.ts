/** docs/reference.md: how run_tests runs a task's visible tests, and `metadata.test_command`. */
export function visibleTestsSection(): string[] {
  return [
    "## Visible tests (`run_tests`)",
    "",
    "`run_tests` writes the task's `visible_tests` into the workdir again (an agent that edited them still runs the real ones) and runs them. How, in this order:",
    "",
    "1. **`metadata.test_command`**, on the task, else in the manifest's `metadata`: a shell command run in the workdir; its output and exit code are the result. Use it when the tests need a runner of their own (`npm test`, `go test ./...`, `python3 -m unittest -v`, `pytest -x tests/`).",
    "2. A `tests` verifier with `format: stdio`: the cases in the visible `*.json` files (`[{stdin, stdout}]`) through the verifier's `program`, case by case.",
    "3. A `tests` verifier with `format: pytest`: pytest on the visible `.py` files.",
    "4. Otherwise — whatever the reward's report format (`junit`, `tap`, `exit_code`…) — pytest on each **pytest-style** `.py` file (one that defines a top-level `def test_…`, `async def test_…` or `class Test…`: its tests run only under a runner), `python3` on every other `.py` file and `bash` on each `.sh`. The result fails when any of them fails.",
    "",
    "```jsonl",
    '{"id": "add", "prompt": "…", "visible_tests": {"test_add.py": "from solution import add\\n\\ndef test_add():\\n    assert add(1, 2) == 3\\n"}}',
    '{"id": "cli", "prompt": "…", "visible_tests": {"tests/cli.test.js": "…"}, "metadata": {"test_command": "node --test tests/"}}',
    "```",
    "",
    "`rlenv validate` warns about a visible `.py` file that would run as a plain script and whose top level only defines things (imports, functions, classes, assignments): run that way it exits 0 whatever the solution does. Name its tests `def test_…`, call them at the top level, or set `metadata.test_command`.",
    "",
  ];
}
