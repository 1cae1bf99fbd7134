import assert from "node:assert/strict";
import { test } from "node:test";
import { TrajectoryEvent, type RewardEvent } from "../../../src/core/schema/trajectory";
import { diffsOf, documentsView, lastScene, mergeDiffs, type RowEvents, sceneChecks } from "../../../src/core/view/model/artifacts";
import { summariseRow } from "../../../src/core/view/model/summarise";
import { METHODS } from "../../../src/core/view/protocol/methods";

/**
 * Reports, reward details, scene and file events built from hostile key names and odd
 * values, seeded: every view model must describe them, and the result must survive the
 * trip to the app (host schema, JSON, app schema) that the documents panel failed.
 */
const KEYS = [
  "valueOf",
  "constructor",
  "__proto__",
  "toString",
  "hasOwnProperty",
  "revenue",
  "a.b",
  "0",
  "",
  "prototype",
  "__defineGetter__",
  "isPrototypeOf",
];
const VALUES: unknown[] = [null, 0, -1.5, "", "text", true, [], {}, [null], { x: null }, "$1,577 million", 1e308];

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}
const pick = <T>(r: () => number, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;

/** An object parsed from JSON text, so `__proto__` is an own key as it is in a trajectory. */
function jsonObject(r: () => number, n: number): Record<string, unknown> {
  const parts: string[] = [];
  for (let i = 0; i < n; i++) if (r() < 0.8) parts.push(`${JSON.stringify(pick(r, KEYS))}:${JSON.stringify(pick(r, VALUES))}`);
  return JSON.parse(`{${parts.join(",")}}`) as Record<string, unknown>;
}

/** What the app receives: parsed by the host, sent as JSON, parsed again by the app. */
function roundTrip<M extends keyof typeof METHODS>(method: M, value: unknown): unknown {
  const host = METHODS[method].result.parse(value);
  return METHODS[method].result.parse(JSON.parse(JSON.stringify(host)));
}

let seq = 0;
const ev = (e: Record<string, unknown>) => TrajectoryEvent.parse({ seq: seq++, t: 1000 + seq, ...e });

test("fuzzed reports and field results: every field described, missing marked, nothing from a prototype", () => {
  for (let seed = 1; seed <= 300; seed++) {
    const r = rng(seed);
    const report = jsonObject(r, 6);
    const fieldsAsArray = r() < 0.5;
    const outcomes = Array.from({ length: 1 + Math.floor(r() * 6) }, () => {
      const o = jsonObject(r, 5);
      if (r() < 0.7) o.field = pick(r, KEYS);
      if (r() < 0.5) o.passed = r() < 0.5;
      if (r() < 0.3) o.expected = pick(r, VALUES);
      return o;
    });
    const details = fieldsAsArray
      ? { fields: outcomes }
      : JSON.parse(`{"fields":{${outcomes.map((o, i) => `${JSON.stringify(`${pick(r, KEYS)}${i}`)}:${JSON.stringify(o)}`).join(",")}}}`);
    const reward = ev({
      type: "reward",
      total: 0.5,
      components: [{ name: "fields", type: "fields", score: 0.5, weight: 1, details }],
    }) as RewardEvent;
    const rows: RowEvents[] = [
      {
        row: 1,
        events: [ev({ type: "tool_call", id: "c1", name: "submit_report", arguments: r() < 0.5 ? report : JSON.stringify(report) })],
      },
    ];
    const view = documentsView(rows, reward);
    assert.equal(view.fields.length, outcomes.length, `seed ${seed}`);
    const got = roundTrip("documents", view) as typeof view;
    for (const [i, f] of got.fields.entries()) {
      assert.equal(typeof f.field, "string");
      // Never a function or anything else JSON cannot carry.
      for (const v of [f.got, f.expected]) assert.ok(v === undefined || JSON.stringify(v) !== undefined, `seed ${seed} field ${i}`);
      const outcome = outcomes[i]!;
      if (
        fieldsAsArray &&
        typeof outcome.field === "string" &&
        !Object.hasOwn(outcome, "got") &&
        !Object.hasOwn(outcome, "actual") &&
        !Object.hasOwn(outcome, "submitted")
      ) {
        const name = outcome.field;
        const inReport = !name.includes(".") && Object.hasOwn(report, name) ? report[name] : undefined;
        assert.deepEqual(f.got, inReport, `seed ${seed}: ${name}`);
      }
    }
  }
});

test("a report field named like an object property, null or missing is shown as such", () => {
  const report = JSON.parse('{"valueOf": 12, "constructor": null, "__proto__": {"x": 1}}') as unknown;
  const reward = ev({
    type: "reward",
    total: 0,
    components: [
      {
        name: "f",
        type: "fields",
        score: 0,
        weight: 1,
        details: {
          fields: [
            { field: "valueOf" },
            { field: "constructor" },
            { field: "__proto__" },
            { field: "toString" },
            { field: "hasOwnProperty", expected: 3 },
          ],
        },
      },
    ],
  }) as RewardEvent;
  const view = roundTrip(
    "documents",
    documentsView([{ row: 1, events: [ev({ type: "tool_call", id: "c", name: "submit_report", arguments: report })] }], reward),
  ) as ReturnType<typeof documentsView>;
  assert.deepEqual(
    view.fields.map((f) => [f.field, "got" in f ? f.got : "(missing)", "expected" in f ? f.expected : "(not recorded)"]),
    [
      ["valueOf", 12, "(not recorded)"],
      ["constructor", null, "(not recorded)"],
      ["__proto__", { x: 1 }, "(not recorded)"],
      ["toString", "(missing)", "(not recorded)"],
      ["hasOwnProperty", "(missing)", 3],
    ],
  );
});

test("fuzzed scene and file events: hostile names survive every model and the trip to the app", () => {
  for (let seed = 1; seed <= 200; seed++) {
    const r = rng(seed);
    const names = Array.from({ length: 1 + Math.floor(r() * 5) }, (_, i) => `${pick(r, KEYS)}${r() < 0.5 ? "" : i}`);
    const node = (name: string) => ({
      name,
      kind: pick(r, ["box", "constructor", "__proto__"]),
      parent: r() < 0.5 ? null : pick(r, KEYS),
      position: [0, 0, 0],
      rotation: [0, 0, 0],
      scale: [1, 1, 1],
      dimensions: [1, 1, 1],
      bbox: { min: [0, 0, 0], max: [1, 1, 1] },
      ...(r() < 0.5 ? { material: jsonObject(r, 3) } : {}),
    });
    const diff = names.map((p) => ({
      path: p,
      status: pick(r, ["added", "modified", "deleted"] as const),
      before: r() < 0.5 ? null : "a",
      after: r() < 0.5 ? null : "b",
    }));
    const obs = ev({
      type: "observation",
      tool_call_id: "c",
      name: pick(r, KEYS),
      output: "ok",
      status: "ok",
      duration_ms: 1,
      artifacts: { diff, scene: { nodes: names.map(node) } },
    });
    const checks = names.map((n) => ({ ...jsonObject(r, 3), label: n, passed: r() < 0.5, objects: [n] }));
    const reward = ev({
      type: "reward",
      total: 0,
      components: [{ name: "scene", type: "scene", score: 0, weight: 1, details: JSON.parse(JSON.stringify({ checks })) }],
    }) as RewardEvent;
    const rows: RowEvents[] = [{ row: 2, events: [obs] }];
    const merged = roundTrip("diff", mergeDiffs(diffsOf(rows))) as Array<{ path: string }>;
    for (const m of merged) assert.ok(names.includes(m.path), `seed ${seed}: ${m.path}`);
    for (const d of diff)
      if (diff.filter((x) => x.path === d.path).length === 1 && (d.before !== null || d.after !== null))
        assert.ok(
          merged.some((m) => m.path === d.path),
          `seed ${seed}: ${d.path}`,
        );
    const scene = lastScene(rows);
    const at = roundTrip("scene", { row: scene?.row ?? null, scene: scene?.scene ?? null, images: [], checks: sceneChecks(reward) }) as {
      scene: { nodes: Array<{ name: string }> };
      checks: Array<{ name: string; targets: string[] }>;
    };
    assert.deepEqual(
      at.scene.nodes.map((n) => n.name),
      names,
      `seed ${seed}`,
    );
    assert.deepEqual(
      at.checks.map((c) => c.name),
      names,
      `seed ${seed}`,
    );
    const summary = summariseRow(2, "turn", [{ line: 3, event: obs }]);
    assert.equal(summary.has.scene, true);
    roundTrip("rows", [summary]);
  }
});
