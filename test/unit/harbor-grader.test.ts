// The grader an exported task runs inside Harbor (grader.py) against rlenv's own comparators, on
// the same table of cases: every case must get the same verdict from both, so a task scores the
// same in Harbor as here. The cases cross financial golds with the ways answers write figures
// (scale words, rounding, brackets, fractions, units, currencies, sentences, lists of figures).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import type { ComparatorContext } from "../../src/core/reward/comparators/registry";
import { findComparator } from "../../src/core/reward/comparators/registry";
import "../../src/core/reward/comparators/document";
import { checkCitations } from "../../src/core/reward/comparators/citation";
import { exactVerifier } from "../../src/core/reward/verifiers/exact";
import { harborPython } from "../../src/core/harbor/python-assets";
import { exportHarbor } from "../../src/core/harbor/export";
import type { GraderSpec } from "../../src/core/harbor/export-grader";
import { loadEnvironment } from "../../src/core/environment/load-environment";
import { loadCorpus } from "../../src/core/domains/document/corpus";

const python = spawnSync("python3", ["--version"]).status === 0;

interface Case {
  comparator: string;
  actual: unknown;
  expected: unknown;
  spec: Record<string, unknown>;
}

const GOLDS = {
  money: [
    "$11588.00 million",
    "$77.78 million",
    "$1,577 million",
    "($370 million)",
    "$2.5 billion",
    "$5409.00 million",
    "€45.2 million",
    "$0.5 billion",
  ],
  percent: ["30.8%", "2.8%", "55.1%", "-3.2%", "0.5%", "100%"],
  quantity: ["93.86", "1.73", "-3.7", "3.46", "1,234", "0.66", "$4.20", "12 million", "0", "0.054", "24.26"],
};

/** Ways an answer may write a figure near the gold's: the same, scaled, rounded, off by a little or a lot, in another unit. */
function variants(gold: string): unknown[] {
  const num = Number((/-?\d[\d,]*\.?\d*/.exec(gold.replace(/\((\$?)([\d.,]+)/, "-$2"))?.[0] ?? "0").replace(/,/g, ""));
  const out: unknown[] = [
    gold,
    gold.toLowerCase(),
    ` ${gold} `,
    `The figure was ${gold} in FY2022.`,
    `${num}`,
    num,
    `${(num * 1.01).toFixed(2)}`,
    `${(num * 1.004).toFixed(3)}`,
    `${Math.round(num)}`,
    `${num / 1000} billion`,
    `$${num / 1000} billion`,
    `$${num} million`,
    `$${num}`,
    `${num}%`,
    `${num / 100}`,
    `(${Math.abs(num)})`,
    `-${Math.abs(num)}`,
    `$(${Math.abs(num).toLocaleString("en-US")}) million`,
    `USD ${num}mn`,
    `US$${num}m`,
    `${num} thousand`,
    `£${num} million`,
    `about ${num}, ${num * 2}, ${num * 3}, ${num * 4} and ${num * 5}`,
    `${num} in 2021 and ${num} in 2022`,
    `${num.toExponential()}`,
    `Q2 ${num}`,
    "no figure here",
    "",
    null,
    ["list"],
    { value: num },
    "x".repeat(1200) + gold,
    `${num}\u00a0million`,
    `\u2212${Math.abs(num)}`,
    `${num} percent`,
    `${num} per cent`,
    `negative ${Math.abs(num)}`,
    // Currencies written after the figure or with other marks, scale letters glued to the digits, and hedges.
    `${num} million USD`,
    `${num} million euros`,
    `${num} EUR`,
    `¥${num} million`,
    `C$${num} million`,
    `${num} dollars`,
    `${num}k`,
    `${num}b`,
    `${num}m`,
    `Rule 10b-5: ${num}`,
    `${gold} or ${num * 1.2}`,
    `${num * 0.8} to ${gold}`,
    `either ${gold} or ${num * 2}`,
    `${num}-${num * 1.1}`,
    `${num}, ${num * 1.3}`,
    `between ${num} and ${num * 1.5}`,
    `${gold} (or ${gold})`,
    `${gold}, up from ${num * 0.9} in 2021`,
    // A sentence with figures of other units around the graded one.
    `Revenue grew 5.4% to ${gold}`,
    `${gold}, a 5.4% increase on $1,496 million`,
    `The ratio is ${num} ($2,000 million / $1,156 million)`,
    // Replies that work to their answer, name things with digits, round, or decline.
    `Step one: revenue was ${num * 3}. Step two: costs were ${num * 2}.\nTherefore, the figure is ${gold}.`,
    `(${num * 3} - ${num * 2}) / 1 = ${gold}`,
    `${gold}. This comes from the filing's income statement on page 45.`,
    `3M's figure was ${gold}`,
    `The S&P 500 figure was ${gold}`,
    `${(num * 1.0008).toFixed(4)}`,
    `${(num * 1.007).toFixed(3)}`,
    `The provided evidence does not state it, so ${gold}.`,
    `As an AI, I cannot say; perhaps ${gold}.`,
    `${"Some preamble without figures. ".repeat(60)}So the answer is ${gold}.`,
  ];
  return out;
}

function cases(): Case[] {
  const out: Case[] = [];
  for (const [comparator, golds] of Object.entries(GOLDS))
    for (const expected of golds)
      for (const actual of variants(expected)) {
        out.push({ comparator, actual, expected, spec: {} });
        if (comparator !== "percent") out.push({ comparator, actual, expected, spec: { rounding: "none", rel_tol: 0.01 } });
      }
  const text: Array<[unknown, unknown]> = [
    ["Apple Inc.", "apple inc"],
    ["The Board", "board"],
    ["1,234 units", "1234 units"],
    ["A.B.", "a b"],
    ["Smith\u2019s", "smith's"],
    ["ﬁnance", "finance"],
    [12, "12"],
    [12.5, 12.5],
    ["  spaced   out ", "spaced out"],
    ["yes", "no"],
    [null, "x"],
    [{ a: 1 }, '{"a":1}'],
    [[1, 2], "[1,2]"],
    ["Über", "uber"],
    ["3.5%", "3.5 %"],
  ];
  for (const [actual, expected] of text) {
    for (const comparator of ["exact", "text", "legal-text", "json"]) out.push({ comparator, actual, expected, spec: {} });
    for (const normalize of ["none", "whitespace", "lower", "text"])
      out.push({ comparator: "exact-normalized", actual, expected, spec: { normalize } });
  }
  const numbers: Array<[unknown, unknown]> = [
    ["1,234.5", 1234.5],
    ["$1,234", "1234"],
    ["(12)", -12],
    ["12%", 12],
    ["1.2e3", 1200],
    ["1.0000001", 1],
    ["abc", 1],
    [3, "3.0"],
    ["1,23", 123],
    ["+5", 5],
  ];
  for (const [actual, expected] of numbers) {
    out.push({ comparator: "number", actual, expected, spec: {} });
    out.push({ comparator: "number", actual, expected, spec: { abs_tol: 0.5 } });
  }
  out.push({ comparator: "json", actual: '{"b": [1, 2], "a": "x"}', expected: { a: "x", b: [1, 2] }, spec: {} });
  out.push({ comparator: "json", actual: { a: 1 }, expected: { a: 1, b: null }, spec: {} });
  out.push({ comparator: "json", actual: true, expected: 1, spec: {} });
  return out;
}

async function tsVerdict(c: Case): Promise<boolean> {
  if (c.comparator === "exact-normalized") {
    const r = await exactVerifier.verify(
      { type: "exact", weight: 1, normalize: c.spec.normalize as "none" } as never,
      {
        task: { id: "t", prompt: "p", target: c.expected, source: { file: "", line: 1, index: 0 } },
        answer: c.actual,
      } as never,
    );
    return r.passed ?? r.score >= 1;
  }
  const name = c.comparator;
  const cmp = findComparator(name);
  assert.ok(cmp, name);
  const r = await cmp(c.actual, c.expected, { comparator: "text", weight: 1, ...c.spec } as never, {} as ComparatorContext);
  return r.passed ?? r.score >= 1;
}

function pyVerdicts(dir: string, all: Case[], driver: string): boolean[] {
  writeFileSync(path.join(dir, "grader.py"), harborPython("grader.py"));
  writeFileSync(path.join(dir, "cases.json"), JSON.stringify(all));
  writeFileSync(path.join(dir, "driver.py"), driver);
  const r = spawnSync("python3", [path.join(dir, "driver.py")], { cwd: dir, encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout) as boolean[];
}

test("grader.py gives every case of the table the verdict rlenv's comparators give", {
  skip: !python && "python3 is not installed",
}, async () => {
  const all = cases();
  const dir = mkdtempSync(path.join(os.tmpdir(), "rlenv-grader-"));
  try {
    const driver = `import json, grader
out = []
for c in json.load(open("cases.json", encoding="utf-8")):
    try:
        r = grader.COMPARATORS[c["comparator"]](c["actual"], c["expected"], c["spec"])
        out.append(bool(r["passed"]))
    except Exception:
        out.append(False)
print(json.dumps(out))
`;
    const py = pyVerdicts(dir, all, driver);
    const ts: boolean[] = [];
    for (const c of all) ts.push(await tsVerdict(c).catch(() => false));
    const differ = all.flatMap((c, i) =>
      ts[i] !== py[i]
        ? [
            `${c.comparator} ${JSON.stringify(c.actual)} vs ${JSON.stringify(c.expected)} ${JSON.stringify(c.spec)}: rlenv ${ts[i]}, grader.py ${py[i]}`,
          ]
        : [],
    );
    assert.deepEqual(differ, [], `${differ.length} of ${all.length} cases differ`);
    // The table is not one-sided: both verdicts occur for every comparator.
    for (const name of new Set(all.map((c) => c.comparator))) {
      const got = new Set(all.flatMap((c, i) => (c.comparator === name ? [ts[i]] : [])));
      assert.equal(got.size, 2, `${name} has only ${[...got]} verdicts`);
    }
    assert.ok(all.length > 600, `${all.length} cases`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("grader.py's citation check agrees with rlenv's: the cited page must state the figure", {
  skip: !python && "python3 is not installed",
}, () => {
  const pages: Record<string, Record<string, string>> = {
    "ACME_10K.txt": {
      "3": "Revenue (in millions) $ 11,588 for fiscal 2022, up from 10,200.",
      "4": "Operating margin was 30.8 percent. Net loss of (370).",
      "5": "The Board of Directors approved the plan.",
    },
  };
  const lookup = (doc: string, page: number) => pages[doc]?.[String(page)];
  const cite = (page: number, document = "ACME_10K.txt") => [{ document, page }];
  const table: Array<[unknown, unknown]> = [
    ["$11588.00 million", cite(3)],
    ["$11.588 billion", cite(3)],
    ["$11588.00 million", cite(4)],
    ["30.8%", cite(4)],
    ["30.8%", cite(3)],
    ["-370", cite(4)],
    ["board of directors", cite(5)],
    ["the board approved", cite(5)],
    ["$11588.00 million", cite(9)],
    ["$11588.00 million", cite(3, "OTHER.txt")],
    ["$11588.00 million", []],
    ["$11588.00 million", [{ document: "ACME_10K.txt", page: 3.5 }]],
    ["$10.2 billion", cite(3)],
    [11588, cite(3)],
    // A sweep of the document (eleven pages, the right one among them) is not a citation; the right page cited twelve times is one page.
    ["$11588.00 million", Array.from({ length: 11 }, (_, i) => ({ document: "ACME_10K.txt", page: i + 1 }))],
    ["$11588.00 million", Array.from({ length: 12 }, () => ({ document: "ACME_10K.txt", page: 3 }))],
    ["$11588.00 million", Array.from({ length: 10 }, (_, i) => ({ document: "ACME_10K.txt", page: i + 1 }))],
  ];
  const dir = mkdtempSync(path.join(os.tmpdir(), "rlenv-grader-"));
  try {
    const driver = `import json, grader
pages = json.loads(${JSON.stringify(JSON.stringify(pages))})
print(json.dumps([grader.check_citations(c["actual"], c["expected"], pages)["passed"] for c in json.load(open("cases.json"))]))
`;
    const all = table.map(([actual, citations]) => ({ comparator: "cite", actual, expected: citations, spec: {} }));
    const py = pyVerdicts(dir, all, driver);
    const ts = table.map(([v, c]) => checkCitations(v, c, lookup).passed);
    assert.deepEqual(py, ts);
    assert.deepEqual(ts.slice(-3), [false, true, true]);
    assert.ok(ts.includes(true) && ts.includes(false));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("document-financebench exported: every figure task's grader.py scores its own reference answer 1 and an empty answer 0", {
  skip: !python && "python3 is not installed",
  timeout: 300_000,
}, async () => {
  const envDir = path.join(__dirname, "../../environments/document-financebench");
  const env = loadEnvironment(envDir).env;
  assert.ok(env?.paths.documents);
  const corpus = await loadCorpus(env.paths.documents, 200);
  const dir = mkdtempSync(path.join(os.tmpdir(), "rlenv-grader-export-"));
  try {
    const out = exportHarbor(env, dir, { documents: corpus.documents });
    let graded = 0;
    let cited = 0;
    for (const task of env.tasks) {
      const t = path.join(dir, task.id);
      const testSh = readFileSync(path.join(t, "tests/test.sh"), "utf8");
      assert.match(testSh, /python3 \/tests\/grader\.py \/tests\/grade_0\.json \/logs\/agent\/answer\.json/);
      assert.match(readFileSync(path.join(t, "instruction.md"), "utf8"), /write your answer to \/logs\/agent\/answer\.json/);
      const spec = JSON.parse(readFileSync(path.join(t, "tests/grade_0.json"), "utf8")) as GraderSpec;
      const field = spec.fields.answer;
      assert.ok(field);
      // The filing the question names is in the image for the agent to read.
      const filing = /The filing is (\S+?)\.?$/m.exec(task.prompt)?.[1];
      if (filing) assert.ok(existsSync(path.join(t, "environment/rlenv-seed/documents", filing)), `${task.id}: ${filing}`);
      if (field.comparator === "judge") {
        assert.ok(out.warnings.some((w) => w.startsWith(`${task.id}: `) && /judge is graded by rlenv's own code only/.test(w)));
        continue;
      }
      graded++;
      if (field.cite) {
        cited++;
        assert.ok(Object.keys(spec.pages ?? {}).length > 0, `${task.id}: the cited filing's pages travel with the grader`);
      }
      const score = (answer: unknown) => {
        writeFileSync(path.join(t, "answer.json"), JSON.stringify(answer));
        const r = spawnSync("python3", [path.join(t, "tests/grader.py"), path.join(t, "tests/grade_0.json"), path.join(t, "answer.json")], {
          encoding: "utf8",
        });
        assert.equal(r.status, 0, r.stderr);
        return Number(r.stdout.trim().split("\n").pop());
      };
      assert.equal(score(task.solution?.answer), 1, `${task.id}: the reference answer`);
      assert.equal(score({}), 0, `${task.id}: an empty answer`);
      // A right figure citing a page that does not state it loses the point, as in rlenv.
      if (field.cite) assert.equal(score({ ...(task.solution?.answer as object), citations: [{ document: "nowhere.txt", page: 1 }] }), 0);
    }
    assert.equal(graded, 16);
    assert.equal(cited, 7);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
