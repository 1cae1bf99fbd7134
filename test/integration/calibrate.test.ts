import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { calibrateEnvironment } from "../../src/core/app/calibrate-environment";
import { loadEnvironment } from "../../src/core/environment/load-environment";
import type { SandboxProvider } from "../../src/core/model/sandbox";
import { CalibrationReport } from "../../src/core/schema/calibration";
import { rlenv } from "../support/cli";
import { type RecordedRequest, type ScriptedServer, startScriptedServer } from "../support/scripted-openai-server";
import { makeEnvDir } from "../support/tmp-env";
import { events, ofType, processProvider } from "./rollout-helpers";

/** Two tasks graded by figure (the comparators), and a rubric judge on the same answer. */
function envFiles(judge: boolean): Record<string, string> {
  return {
    "environment.yaml": [
      "name: calibrate-demo",
      "domain: custom",
      "tasks: tasks.jsonl",
      "reward:",
      "  - type: fields",
      "    name: figure",
      "    fields:",
      "      answer: { comparator: auto }",
      ...(judge ? ["  - type: judge", "    name: rubric", "    field: answer", '    rubric: ["states the change in revenue"]'] : []),
      "",
    ].join("\n"),
    "tasks.jsonl": [
      {
        id: "rev",
        prompt: "By how much did revenue grow?",
        target: { answer: "$5,818 million" },
        solution: { answer: { answer: "$5,818 million" } },
      },
      { id: "margin", prompt: "What was the margin?", target: { answer: "30.8%" }, solution: { answer: { answer: "30.8%" } } },
    ]
      .map((t) => JSON.stringify(t))
      .join("\n"),
  };
}

const LABELS = [
  { task: "rev", answer: "$5,818 million", verdict: "accept", group: "m1" },
  { task: "margin", answer: "The margin was 30.8%.", verdict: "Correct Answer", group: "m1" },
  { task: "rev", answer: "$6,100 million", verdict: "reject", group: "m2" },
  // The reviewer was wrong: the figure is right; the reward accepts it (a false accept with the comparator's reason).
  { task: "margin", answer: "30.8%", verdict: "Incorrect Answer", group: "m2" },
  // Right by the reviewer, refused by the reward: a false reject.
  { task: "rev", answer: "$6,100 million", verdict: "accept", group: "m2" },
];

function writeLabels(dir: string, lines: unknown[]): string {
  const file = path.join(dir, "labels.jsonl");
  writeFileSync(file, `${lines.map((l) => (typeof l === "string" ? l : JSON.stringify(l))).join("\n")}\n`);
  return file;
}

let provider: SandboxProvider | undefined;
let skip: string | false = false;
let judge: ScriptedServer | undefined;
before(async () => {
  const p = await processProvider();
  if ("skip" in p) skip = p.skip;
  else provider = p.provider;
});
after(async () => {
  await judge?.close();
  await provider?.shutdown();
});

describe("rlenv calibrate", () => {
  test("CLI: confusion matrix, rates, κ and every disagreement as JSON and markdown; a bad line is exit 2 and loses nothing else", () => {
    const env = makeEnvDir(envFiles(false));
    const work = mkdtempSync(path.join(tmpdir(), "rlenv-calibrate-"));
    try {
      const labels = writeLabels(work, [...LABELS, '{"task": "rev", "answer": "1"}', { task: "nope", answer: "1", verdict: "accept" }]);
      const out = path.join(work, "out");
      const args = ["calibrate", env.dir, "--labels", labels, "--runs", path.join(work, "runs"), "--sandbox", "process", "--out", out];
      const r = rlenv(args);
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, new RegExp(`${labels}:6: verdict: Required|${labels}:6: verdict: `));
      assert.match(r.stderr, new RegExp(`${labels}:7: task: no task 'nope' in calibrate-demo`));
      const report = CalibrationReport.parse(JSON.parse(readFileSync(path.join(out, "calibration.json"), "utf8")));
      assert.deepEqual(report.counts, { lines: 7, graded: 5, not_graded: 0, bad: 2 });
      const o = report.overall;
      assert.deepEqual([o.both_accept, o.false_reject, o.false_accept, o.both_reject], [2, 1, 1, 1]);
      assert.deepEqual([o.false_accept_rate.k, o.false_accept_rate.n, o.false_reject_rate.k, o.false_reject_rate.n], [1, 2, 1, 3]);
      assert.ok(o.false_accept_rate.low! < 0.5 && o.false_accept_rate.high! > 0.5);
      assert.deepEqual(
        report.disagreements.map((d) => [d.line, d.kind, d.scope]),
        [
          [4, "false-accept", "reward"],
          [5, "false-reject", "reward"],
        ],
      );
      assert.match(report.disagreements[0]!.reason, /^figure\.answer: .*30\.8/);
      assert.match(report.disagreements[1]!.reason, /^figure\.answer: .*6,100/);
      assert.deepEqual(
        report.components.map((c) => [c.name, c.type, c.n]),
        [["figure", "fields", 5]],
      );
      assert.deepEqual(
        report.fields.map((f) => [f.component, f.field, f.n]),
        [["figure", "answer", 5]],
      );
      assert.deepEqual(
        report.groups.map((g) => [g.group, g.n, g.false_accept, g.false_reject]),
        [
          ["m1", 2, 0, 0],
          ["m2", 3, 1, 1],
        ],
      );
      // The real reward path: each label is a rollout in a run folder that submitted the answer with the submit tool.
      const rollout = path.join(report.run_dir, report.disagreements[0]!.rollout);
      const call = ofType(events(rollout), "tool_call")[0]!;
      assert.equal(call.name, "submit");
      assert.deepEqual(JSON.parse(JSON.stringify(call.arguments)), { answer: { answer: "30.8%" } });
      assert.ok(existsSync(path.join(report.run_dir, "calibration.json")));
      const md = readFileSync(path.join(out, "calibration.md"), "utf8");
      assert.match(md, /\*\*False accepts\*\* \(the reward accepts what people reject\): 1\/2 = 50\.0%/);
      assert.match(md, /\| 4 \| margin \| false-accept \| reward \| 1 \|/);
      assert.match(md, /labels\.jsonl:6: verdict: /);
    } finally {
      env.cleanup();
    }
  });

  test("CLI: exit 1 when a bar is missed, 0 when the rates are within the bars; --final-sentence submits the last sentence", () => {
    const env = makeEnvDir(envFiles(false));
    const work = mkdtempSync(path.join(tmpdir(), "rlenv-calibrate-"));
    try {
      const labels = writeLabels(work, LABELS);
      const base = ["calibrate", env.dir, "--labels", labels, "--runs", path.join(work, "runs"), "--sandbox", "process", "--json"];
      const missed = rlenv([...base, "--max-false-accept", "0"]);
      assert.equal(missed.code, 1, missed.stderr);
      assert.deepEqual(CalibrationReport.parse(JSON.parse(missed.stdout)).bars.missed, [
        "false-accept rate 50.0% is over --max-false-accept 0.0%",
      ]);
      const within = rlenv([...base, "--max-false-accept", "50%", "--max-false-reject", "0.34"]);
      assert.equal(within.code, 0, within.stderr);
      // A label may be a trajectory: the recorded rollout is replayed through the reward again.
      const first = CalibrationReport.parse(JSON.parse(within.stdout));
      const replayed = writeLabels(work, [
        { task: "margin", trajectory: path.join(first.run_dir, first.disagreements[0]!.rollout), verdict: "reject" },
      ]);
      const replay = CalibrationReport.parse(JSON.parse(rlenv([...base.slice(0, 3), replayed, ...base.slice(4)]).stdout));
      assert.deepEqual(
        replay.disagreements.map((d) => [d.kind, d.reward]),
        [["false-accept", 1]],
      );
      // The whole reply names the old and the new figure; its final sentence states the answer.
      const reply = "Revenue was $13,997 million in 2022.\nIt grew to $19,815 million. So revenue grew by $5,818 million.";
      const sentenceLabels = writeLabels(work, [{ task: "rev", answer: reply, verdict: "accept" }]);
      const final = rlenv([...base.slice(0, 3), sentenceLabels, ...base.slice(4), "--final-sentence"]);
      const fr = CalibrationReport.parse(JSON.parse(final.stdout));
      assert.equal(fr.answers, "final-sentence");
      const rollout = readFileSync(path.join(fr.run_dir, "rollouts", readdirOne(path.join(fr.run_dir, "rollouts"))), "utf8");
      assert.match(rollout, /So revenue grew by \$5,818 million\./);
      assert.doesNotMatch(rollout, /13,997/);
    } finally {
      env.cleanup();
    }
  });

  test("judge rubrics: each component and field measured apart; with no judge the labels are not graded, never false rejects", async (t) => {
    if (skip || !provider) return t.skip(skip || "no process sandbox");
    const dir = makeEnvDir(envFiles(true));
    const work = mkdtempSync(path.join(tmpdir(), "rlenv-calibrate-judge-"));
    const saved = { url: process.env.RLENV_JUDGE_BASE_URL, model: process.env.RLENV_JUDGE_MODEL };
    try {
      const { env } = loadEnvironment(dir.dir);
      assert.ok(env);
      const labels = writeLabels(work, LABELS);
      delete process.env.RLENV_JUDGE_BASE_URL;
      delete process.env.RLENV_JUDGE_MODEL;
      const common = { env, labelsFile: labels, accept: { scoreAt: 1 }, runsDir: path.join(work, "runs"), sandboxProvider: provider };
      const none = await calibrateEnvironment(common);
      assert.equal(none.report.overall.n, 0);
      assert.equal(none.report.not_graded.length, 5);
      assert.match(none.report.not_graded[0]!.reason, /^not graded: skipped: judge: no base URL/);
      // The judge passes an answer that states a figure with "million" and fails the rest, with its reason.
      judge = await startScriptedServer((req: RecordedRequest) => {
        const passed = /million/.test(String(req.messages[1]?.content));
        const items = [{ index: 1, passed, reason: passed ? "states the change" : "no change in revenue stated" }];
        return { reply: { content: JSON.stringify({ items }) } };
      });
      process.env.RLENV_JUDGE_BASE_URL = judge.baseURL;
      process.env.RLENV_JUDGE_MODEL = "judge-1";
      const { report, exitCode } = await calibrateEnvironment({ ...common, maxFalseReject: 0.2 });
      assert.equal(exitCode, 1);
      assert.deepEqual(
        report.components.map((c) => [c.name, c.type, c.both_accept, c.false_reject, c.false_accept, c.both_reject]),
        [
          ["figure", "fields", 2, 1, 1, 1],
          ["rubric", "judge", 2, 1, 1, 1],
        ],
      );
      // Overall: both components must pass at full marks (the rubric accepts a wrong $6,100 million the figure refuses).
      const o = report.overall;
      assert.deepEqual([o.both_accept, o.false_reject, o.false_accept, o.both_reject], [1, 2, 0, 2]);
      const judged = report.disagreements.find((d) => d.line === 2)!;
      assert.equal(judged.kind, "false-reject");
      assert.match(judged.reason, /rubric: .*no change in revenue stated/);
      assert.equal(judge.requests.length, 5);
    } finally {
      for (const [k, v] of [
        ["RLENV_JUDGE_BASE_URL", saved.url],
        ["RLENV_JUDGE_MODEL", saved.model],
      ] as const)
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      dir.cleanup();
    }
  });
});

function readdirOne(dir: string): string {
  const files = readdirSync(dir).filter((f) => f.endsWith(".jsonl"));
  assert.equal(files.length, 1);
  return files[0]!;
}
