import assert from "node:assert/strict";
import { test } from "node:test";
import { RolloutFacts, reportRolloutOf } from "../../src/core/report/report-rollout";
import { type EndEvent, TrajectoryEvent } from "../../src/core/schema/trajectory";
import { codeRollout } from "../fixtures/trajectories";

const spec = { runId: "r", rolloutId: "t-s0", domain: "code", env: "e", task: "t", sample: 3, t0: 1_700_000_000_000, seed: 1 } as const;
const events = (text: string) =>
  text
    .trim()
    .split("\n")
    .map((l) => TrajectoryEvent.parse(JSON.parse(l)));

function factsOf(list: TrajectoryEvent[]): RolloutFacts {
  const f = new RolloutFacts();
  for (const e of list) f.add(e);
  return f;
}

test("a rollout's report view: its task, sample, end, reward components and observation counts", () => {
  const list = events(codeRollout(spec, true));
  const r = reportRolloutOf(factsOf(list));
  const end = list.find((e): e is EndEvent => e.type === "end")!;
  assert.ok(r);
  assert.equal(r.task, "t");
  assert.equal(r.sample, 3);
  assert.equal(r.status, "completed");
  assert.equal(r.infra, false);
  assert.equal(r.reward, end.reward);
  assert.deepEqual(r.usage, end.usage);
  assert.ok(r.components.length > 0);
  assert.equal(r.observations, list.filter((e) => e.type === "observation").length);
  assert.equal(r.observationsTruncated, 1);
});

test("no start event: nothing to report; no end: interrupted, unscored; an infrastructure error only counts with an error end", () => {
  const list = events(codeRollout(spec, false));
  assert.equal(reportRolloutOf(factsOf(list.filter((e) => e.type !== "start"))), null);
  const open = reportRolloutOf(factsOf(list.filter((e) => e.type !== "end")));
  assert.equal(open?.status, "interrupted");
  assert.equal(open?.reward, null);
  const infra = TrajectoryEvent.parse({ type: "error", seq: 99, t: spec.t0, where: "sandbox", message: "lost", infra: true });
  const end = list.find((e): e is EndEvent => e.type === "end")!;
  const errored = [...list.filter((e) => e.type !== "end"), infra, { ...end, status: "error" as const }];
  assert.equal(reportRolloutOf(factsOf(errored))?.infra, true);
  assert.equal(reportRolloutOf(factsOf([...list, infra]))?.infra, false, "an end that is not an error is the agent's outcome");
});
