import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";
import { loadEnvironment } from "../../src/core/environment/load-environment";
import { rolloutId } from "../../src/core/rollout/ids";
import { Limiter } from "../../src/core/rollout/limiter";
import { renderTemplate } from "../../src/core/model/prompt-template";
import { parseArguments } from "../../src/core/rollout/step";
import { buildToolset } from "../../src/core/rollout/toolset";
import { truncateOutput, truncateText } from "../../src/core/rollout/truncate";

const fixture = path.join(__dirname, "../fixtures/rollout-env");

test("truncation keeps head and tail within the limit and records the cut", () => {
  const text = `HEAD${"x".repeat(10_000)}TAIL`;
  const r = truncateText(text, 200);
  assert.ok(r.text.length <= 200, `kept ${r.text.length}`);
  assert.ok(r.text.startsWith("HEAD") && r.text.endsWith("TAIL"));
  assert.match(r.text, /\[… \d+ characters cut …\]/);
  assert.equal(r.truncated?.original_chars, text.length);
  assert.deepEqual(truncateText("short", 200), { text: "short" });
  const parts = truncateOutput(
    [
      { type: "text", text: "a".repeat(300) },
      { type: "image_url", image_url: { url: "data:x" } },
      { type: "text", text: "b".repeat(300) },
    ],
    200,
  );
  assert.equal(parts.truncated?.original_chars, 600);
  assert.equal((parts.output as unknown[]).length, 3);
});

test("templates fill task and env fields and leave unknown placeholders visible", () => {
  const { env } = loadEnvironment(fixture);
  const task = { ...env!.tasks[0]!, metadata: { level: 3 } };
  assert.equal(
    renderTemplate("{{ env.name }}/{{task.id}}: {{task.prompt}} L{{task.metadata.level}} {{task.nope}}", env!, task),
    `rollout-fixture/via-tool-calls: ${task.prompt} L3 {{task.nope}}`,
  );
});

test("tool arguments: empty is {}, bad JSON and non-objects are explained", () => {
  assert.deepEqual(parseArguments(""), { ok: true, value: {} });
  assert.deepEqual(parseArguments('{"a":1}'), { ok: true, value: { a: 1 } });
  const bad = parseArguments('{"a":');
  assert.ok(!bad.ok && /not valid JSON/.test(bad.error));
  const arr = parseArguments("[1]");
  assert.ok(!arr.ok && /must be a JSON object/.test(arr.error));
});

test("tool set: listed built-ins, custom tools, submit added when the domain has none", () => {
  const { env } = loadEnvironment(fixture);
  const ts = buildToolset(env!, null);
  assert.deepEqual(
    ts.specs.map((s) => s.name),
    ["submit", "put", "show", "slow", "spew"],
  );
  const noSubmit = { ...env!, builtinTools: [], manifest: { ...env!.manifest, tools: env!.manifest.tools.slice(1) } };
  assert.deepEqual(
    buildToolset(noSubmit, null).specs.map((s) => s.name),
    ["put", "show", "slow", "spew", "submit"],
  );
  const wantsBash = { ...env!, builtinTools: ["bash"] };
  assert.throws(() => buildToolset(wantsBash, null), /tool 'bash' is listed but the custom domain has no plugin registered/);
});

test("rollout ids are file-safe and unique per task id", () => {
  assert.equal(rolloutId("add", 0), "add.s0");
  assert.notEqual(rolloutId("a/b", 1), rolloutId("a_b", 1));
  assert.match(rolloutId("a/b", 1), /^a_b~[0-9a-f]{6}\.s1$/);
});

test("limiter: capacity, queue depth, busy time and abort while queued", async () => {
  const lim = new Limiter(2);
  let peak = 0;
  const job = () =>
    lim.run(async () => {
      peak = Math.max(peak, lim.inFlight);
      await new Promise((r) => setTimeout(r, 30));
    });
  await Promise.all([job(), job(), job(), job(), job()]);
  assert.equal(peak, 2);
  assert.equal(lim.maxQueueDepth, 3);
  assert.ok(lim.busyTime() >= 85, `busy ${lim.busyTime()}`);
  const ac = new AbortController();
  const hold = lim.run(() => new Promise((r) => setTimeout(r, 50)));
  const hold2 = lim.run(() => new Promise((r) => setTimeout(r, 50)));
  const queued = lim.run(async () => "never", ac.signal);
  ac.abort(new Error("stop"));
  await assert.rejects(queued, /stop/);
  await Promise.all([hold, hold2]);
  assert.equal(lim.queueDepth, 0);
});
