import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { describeCompileError } from "../../src/core/domains/code/compile-error";
import { formatExec } from "../../src/core/domains/code/exec-output";
import { isNoise } from "../../src/core/domains/code/file-changes";
import { shq } from "../../src/core/util/shell-quote";
import { formatStdioResults, normalizeOutput } from "../../src/core/domains/code/stdio-cases";
import { resolveInWorkdir } from "../../src/core/domains/code/workdir-path";

describe("resolveInWorkdir", () => {
  const ok = (given: string, rel: string) => assert.deepEqual(resolveInWorkdir("/workspace", given), { ok: true, rel });
  const refused = (given: unknown, pattern: RegExp) => {
    const r = resolveInWorkdir("/workspace", given);
    assert.equal(r.ok, false, `${String(given)} should be refused`);
    if (!r.ok) assert.match(r.message, pattern);
  };
  test("relative and absolute paths inside the workdir", () => {
    ok("a.py", "a.py");
    ok("./pkg/../pkg/b.py", "pkg/b.py");
    ok("/workspace/pkg/c.py", "pkg/c.py");
    ok("  spaced.txt ", "spaced.txt");
  });
  test("escapes are refused with the reason", () => {
    refused("../x", /outside the workdir/);
    refused("pkg/../../etc/passwd", /outside the workdir/);
    refused("/etc/passwd", /outside the workdir \/workspace/);
    refused("/workspace2/a", /outside the workdir/);
    refused("/workspace/../x", /outside the workdir/);
  });
  test("bad values are refused", () => {
    refused("", /non-empty/);
    refused(42, /non-empty string/);
    refused("a\0b", /NUL/);
    refused(".", /workdir itself/);
  });
  test("the workdir itself only where a folder is wanted", () => {
    assert.deepEqual(resolveInWorkdir("/workspace/", ".", { allowRoot: true }), { ok: true, rel: "." });
    assert.deepEqual(resolveInWorkdir("/workspace", "/workspace", { allowRoot: true }), { ok: true, rel: "." });
  });
});

describe("describeCompileError", () => {
  test("names the file and line of a syntax error, not the importing frame", () => {
    const tb = [
      "Traceback (most recent call last):",
      '  File "/workspace/_hidden_check.py", line 2, in <module>',
      "    from solution import *",
      '  File "/workspace/solution.py", line 7',
      "    return (",
      "           ^",
      "SyntaxError: '(' was never closed",
    ].join("\n");
    assert.equal(describeCompileError(tb), "SyntaxError in /workspace/solution.py line 7: '(' was never closed");
  });
  test("indentation errors and pytest's E-prefixed lines", () => {
    assert.match(
      describeCompileError('  File "a.py", line 3\n    x\nIndentationError: unexpected indent') ?? "",
      /^IndentationError in a\.py line 3/,
    );
    assert.equal(
      describeCompileError('E     File "/w/p.py", line 4\nE   SyntaxError: invalid syntax'),
      "SyntaxError in /w/p.py line 4: invalid syntax",
    );
  });
  test("an ordinary failure is not a compile error", () => {
    assert.equal(describeCompileError("Traceback...\nAssertionError"), null);
    assert.equal(describeCompileError("all good"), null);
  });
});

describe("formatExec", () => {
  test("stdout, stderr and the exit code", () => {
    assert.equal(
      formatExec({ status: "ok", exitCode: 2, stdout: "out\n", stderr: "err\n", durationMs: 1 }),
      "out\n[stderr]\nerr\n[exit code 2]",
    );
  });
  test("a killed command says why", () => {
    const text = formatExec({
      status: "timeout",
      exitCode: null,
      stdout: "",
      stderr: "",
      durationMs: 1000,
      reason: "killed after 1 s timeout",
    });
    assert.equal(text, "[timeout: killed after 1 s timeout]");
  });
  test("cut output and syntax errors are called out", () => {
    const text = formatExec({
      status: "ok",
      exitCode: 1,
      stdout: "",
      stderr: '  File "s.py", line 1\nSyntaxError: bad',
      durationMs: 1,
      truncated: { originalBytes: 99 },
    });
    assert.match(text, /\[output cut: 99 bytes in all\]/);
    assert.match(text, /\[SyntaxError in s\.py line 1: bad\]/);
  });
});

describe("stdio comparison", () => {
  test("whitespace is normalised per line, trailing blank lines dropped", () => {
    assert.equal(normalizeOutput("a  b\t c  \r\n\n\n"), "a b c");
    assert.equal(normalizeOutput("  1 2\n3\n"), normalizeOutput("1   2\n3"));
    assert.notEqual(normalizeOutput("1 2\n3"), normalizeOutput("1\n2 3"));
    assert.notEqual(normalizeOutput("12"), normalizeOutput("1 2"));
  });
  test("the report shows input, expected, got and stderr of failed cases", () => {
    const text = formatStdioResults([
      { index: 0, passed: true, status: "ok", exit_code: 0, stdin: "1", expected: "1", stdout: "1", stderr: "", duration_ms: 1 },
      {
        index: 1,
        passed: false,
        status: "ok",
        exit_code: 1,
        reason: "exit code 1",
        stdin: "x",
        expected: "2",
        stdout: "",
        stderr: "ValueError: x",
        duration_ms: 1,
      },
    ]);
    assert.match(text, /^1\/2 cases passed/);
    assert.match(text, /case 2: FAILED \(exit code 1\)/);
    assert.match(text, /ValueError: x/);
  });
});

test("shell quoting keeps odd names one word", () => {
  assert.equal(shq("tests/test_a.py"), "tests/test_a.py");
  assert.equal(shq("it's here.py"), `'it'\\''s here.py'`);
});

test("caches are not reported as the agent's changes", () => {
  assert.ok(isNoise("pkg/__pycache__/a.cpython-311.pyc"));
  assert.ok(isNoise(".pytest_cache/v/cache/nodeids"));
  assert.ok(!isNoise("pkg/cache.py"));
});
