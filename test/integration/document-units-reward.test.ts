// The real reward path on a document environment built here: a replayed trajectory submits its
// answer with submit_report, the fields verifier grades it (auto → quantity for a gold with a
// unit; money for a money gold read from a whole reply) with the citation check, and the
// recorded reward says why. The policy is an adversary: wrong prefixes, another dimension, a
// bare figure, a citation of a page that states the figure in another unit all score 0.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { loadEnvironment } from "../../src/core/environment/load-environment";
import { ReplayPolicy } from "../../src/core/policy/replay";
import { runRollout } from "../../src/core/rollout/run-rollout";
import type { SandboxProvider } from "../../src/core/model/sandbox";

const noSandbox = {
  backend: "none",
  acquire: () => Promise.reject(new Error("the document domain must not start a sandbox")),
} as unknown as SandboxProvider;
let work: string;

/** A two-task document environment: a plant's capacity (148.5 MW, cited) and a company's net income. */
function buildEnv(): string {
  const dir = path.join(work, "env");
  mkdirSync(path.join(dir, "documents"), { recursive: true });
  writeFileSync(
    path.join(dir, "documents", "PLANT_2023.txt"),
    [
      "Annual report 2023\nThe company operates three plants.",
      "Plant capacity\nThe Riverside plant has a capacity of 148.5 MW.",
      "Plant B has 148.5 GW of planned pipeline.",
    ].join("\f"),
  );
  const tasks = [
    {
      id: "capacity",
      prompt: "What is the Riverside plant's capacity?",
      target: { answer: "148.5 MW", grading: { answer: { comparator: "auto", cite: true } } },
    },
    {
      id: "income",
      prompt: "What was net income (in USD millions)?",
      target: { answer: "$11,588 million", grading: { answer: { comparator: "auto" } } },
    },
  ];
  writeFileSync(path.join(dir, "tasks.jsonl"), `${tasks.map((t) => JSON.stringify(t)).join("\n")}\n`);
  writeFileSync(
    path.join(dir, "environment.yaml"),
    [
      "name: units-doc",
      "domain: document",
      "tasks: tasks.jsonl",
      "documents: { path: documents }",
      "tools: [read, submit_report]",
      "reward:",
      "  - type: fields",
      "    fields:",
      "      answer: { comparator: auto }",
      "",
    ].join("\n"),
  );
  return dir;
}

/** A hand-written trajectory whose one assistant turn submits `report`. */
function replayFile(name: string, taskId: string, report: unknown): string {
  const file = path.join(work, `${name}.jsonl`);
  const start = {
    type: "start",
    seq: 0,
    t: 0,
    run_id: "hand",
    rollout_id: name,
    env: { name: "units-doc", hash: "", domain: "document" },
    task: { id: taskId, prompt: "" },
    policy: { kind: "hand" },
    sample: 0,
    sandbox: { backend: "none" },
  };
  const message = {
    type: "message",
    seq: 1,
    t: 0,
    role: "assistant",
    content: null,
    tool_calls: [{ id: "c1", name: "submit_report", arguments: JSON.stringify(report) }],
  };
  writeFileSync(file, `${JSON.stringify(start)}\n${JSON.stringify(message)}\n`);
  return file;
}

async function score(taskId: string, report: unknown, name: string) {
  const { env } = loadEnvironment(buildEnv());
  assert.ok(env);
  const task = env.tasks.find((t) => t.id === taskId)!;
  const file = path.join(work, `${name}.out.jsonl`);
  const r = await runRollout({
    env,
    task,
    policy: new ReplayPolicy(replayFile(name, taskId, report)),
    sandboxProvider: noSandbox,
    file,
    runId: "units",
    rolloutId: name,
  });
  const reward = readFileSync(file, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { type: string })
    .find((e) => e.type === "reward");
  return { reward: r.reward, why: JSON.stringify(reward) };
}

before(() => {
  work = mkdtempSync(path.join(tmpdir(), "rlenv-units-"));
  process.env.RLENV_CACHE_DIR = path.join(work, "cache");
});
after(() => rmSync(work, { recursive: true, force: true }));

describe("a figure with a unit through submit_report and the fields verifier", () => {
  const cite = [{ document: "PLANT_2023.txt", page: 2 }];
  test("the right amount in another unit scores 1, and the citation quotes the span it matched", async () => {
    for (const answer of ["148,500 kW", "0.1485 GW", "The capacity is 148.5 MW."]) {
      const r = await score("capacity", { answer, citations: cite }, `ok-${answer.length}`);
      assert.equal(r.reward, 1, r.why);
      assert.match(r.why, /p\.2 states \\"148\.5 MW\\"/);
    }
  });
  test("a wrong prefix, another dimension or no unit scores 0", async () => {
    for (const answer of ["148.5 GW", "148.5 kW", "148.5", "148.5 MWh"]) {
      const r = await score("capacity", { answer, citations: cite }, `bad-${answer.replace(/\W/g, "")}`);
      assert.equal(r.reward, 0, `${answer}: ${r.why}`);
    }
  });
  test("a citation of a page stating the figure in another unit fails the citation check", async () => {
    const r = await score("capacity", { answer: "148.5 MW", citations: [{ document: "PLANT_2023.txt", page: 3 }] }, "wrong-page");
    assert.equal(r.reward, 0, r.why);
    assert.match(r.why, /no cited page states/);
  });
  test("a whole reply is graded on its result, not its first figure", async () => {
    const reply = "Revenue was $280,522 million and costs $268,934 million.\nSo net income was $11,588 million.";
    const r = await score("income", { answer: reply, citations: [] }, "reply");
    assert.equal(r.reward, 1, r.why);
    assert.equal(
      (await score("income", { answer: "As an AI, I cannot determine it; maybe $11,588 million.", citations: [] }, "refusal")).reward,
      0,
    );
  });
});
