import assert from "node:assert/strict";
import { test } from "node:test";
import { aggregate } from "../../src/core/reward/score";
import { parseJUnit, parsePytestSummary, parseTap } from "../../src/core/reward/test-reports";
import { parseJudgeReply } from "../../src/core/reward/judge-client";
import { parseNumber, withinTolerance } from "../../src/core/reward/normalize";

test("JUnit: failures and errors fail, skipped are left out, names kept", () => {
  const xml = `<?xml version="1.0"?><testsuites><testsuite name="s" tests="4">
    <testcase classname="t.test_a" name="test_ok" time="0.1"/>
    <testcase classname="t.test_a" name="test_bad"><failure message="assert 1 == 2">trace</failure></testcase>
    <testcase classname="t.test_b" name="test_err"><error message="boom"/></testcase>
    <testcase classname="t.test_b" name="test_skip"><skipped/></testcase>
    <testcase classname="t.test_b" name="test_ok2"></testcase>
  </testsuite></testsuites>`;
  const c = parseJUnit(xml);
  assert.deepEqual({ passed: c.passed, failed: c.failed, skipped: c.skipped }, { passed: 2, failed: 2, skipped: 1 });
  assert.deepEqual(c.failures, ["t.test_a::test_bad", "t.test_b::test_err"]);
  assert.throws(() => parseJUnit("hello"), /not a JUnit XML report/);
  assert.deepEqual(parseJUnit("<testsuites></testsuites>").passed, 0);
});

test("TAP: top level only, SKIP and TODO, missing planned tests fail", () => {
  const tap = `TAP version 13
# Subtest: group
    ok 1 - inner passes
    not ok 2 - inner fails
not ok 1 - group
ok 2 - second # SKIP not here
not ok 3 - third # TODO later
ok 4 - fourth
1..5
`;
  const c = parseTap(tap);
  assert.deepEqual({ passed: c.passed, failed: c.failed, skipped: c.skipped }, { passed: 1, failed: 2, skipped: 2 });
  assert.equal(c.failures[0], "group");
  assert.match(c.failures[1] ?? "", /1 planned tests never reported/);
});

test("pytest summary lines", () => {
  assert.deepEqual(parsePytestSummary("....F\nFAILED tests/test_x.py::test_y - assert\n1 failed, 4 passed in 0.12s\n"), {
    passed: 4,
    failed: 1,
    skipped: 0,
    failures: ["tests/test_x.py::test_y"],
  });
  assert.deepEqual(parsePytestSummary("===== 2 passed, 1 skipped, 1 error in 1.02s =====")?.failed, 1);
  assert.equal(parsePytestSummary("no summary here"), null);
});

test("numbers as models write them", () => {
  assert.equal(parseNumber("1,234.5"), 1234.5);
  assert.equal(parseNumber("$1,577"), 1577);
  assert.equal(parseNumber("(12)"), -12);
  assert.equal(parseNumber("12%"), 12);
  assert.equal(parseNumber("1.2e3"), 1200);
  assert.equal(parseNumber("about 12"), null);
  assert.equal(parseNumber(Number.NaN), null);
  assert.ok(withinTolerance(100.5, 100, 0.01, 0));
  assert.ok(!withinTolerance(102, 100, 0.01, 0));
  assert.ok(withinTolerance(0.05, 0, 0, 0.1));
});

test("weighted aggregation keeps zero-weight components out of the total", () => {
  const c = (score: number, weight: number) => ({ name: "x", type: "exact", weight, score });
  assert.equal(aggregate([c(1, 3), c(0, 1)]), 0.75);
  assert.equal(aggregate([c(1, 0), c(0.5, 1)]), 0.5);
  assert.equal(aggregate([c(1, 0)]), 0);
  assert.equal(aggregate([]), 0);
});

test("judge replies: JSON in prose, missing items fail", () => {
  const items = parseJudgeReply('Sure! ```json\n{"items": [{"index": 2, "passed": true, "reason": "cites p.3"}]}\n```', [
    "states the revenue",
    "cites a page",
  ]);
  assert.deepEqual(items, [
    { item: "states the revenue", passed: false, reason: "the judge gave no verdict for this item" },
    { item: "cites a page", passed: true, reason: "cites p.3" },
  ]);
  assert.throws(() => parseJudgeReply("I cannot grade this", ["a"]), /no JSON object/);
});
