import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { test } from "node:test";
import { GpuInfo, JobEvent } from "../../src/core/remote/api";
import { parseSse } from "../../src/core/remote/client/client";
import { onStreamLines } from "../../src/core/remote/stream-lines";
import { parseNvidiaSmi } from "../../src/core/remote/jobs/gpus";
import { JobJournal } from "../../src/core/remote/jobs/journal";
import { unitRequest, writeUnitRequest } from "../../src/core/remote/executors/unit-request";
import { checkPolicyFiles, readRunRequest } from "../../src/core/app/run-request";
import { RunConfig } from "../../src/core/schema/run";
import { inArrayRange } from "../../src/core/remote/executors/slurm-client";
import { bearerMatches, loadOrCreateToken } from "../../src/core/remote/server/token";

const tmp = () => mkdtempSync(path.join(tmpdir(), "rlenv-remote-"));

test("the token is made once, 0600, and compared exactly", () => {
  const dir = tmp();
  try {
    const a = loadOrCreateToken(dir);
    assert.equal(a.created, true);
    assert.equal(statSync(a.file).mode & 0o777, 0o600);
    const b = loadOrCreateToken(dir);
    assert.equal(b.created, false);
    assert.equal(b.token, a.token);
    assert.equal(bearerMatches(`Bearer ${a.token}`, a.token), true);
    assert.equal(bearerMatches(`Bearer ${a.token}x`, a.token), false);
    assert.equal(bearerMatches(`Bearer ${a.token.slice(1)}`, a.token), false);
    assert.equal(bearerMatches(undefined, a.token), false);
    assert.equal(bearerMatches("Bearer ", a.token), false);
    assert.equal(bearerMatches(a.token, a.token), false, "the Bearer scheme is required");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("journal events get increasing ids and survive a torn last line", () => {
  const dir = tmp();
  try {
    const j = new JobJournal(dir);
    const id = "j1";
    mkdirSync(j.jobDir(id), { recursive: true });
    j.append(id, { type: "log", line: "one" });
    j.append(id, { type: "log", line: "two" });
    // A runner killed mid-write: half a line without its newline.
    writeFileSync(path.join(j.jobDir(id), "events.jsonl"), '{"type":"log","id":3,"t":1,"li', { flag: "a" });
    const fresh = new JobJournal(dir);
    const third = fresh.append(id, { type: "log", line: "three" });
    assert.equal(third.id, 3);
    assert.deepEqual(
      fresh.eventsAfter(id, 0).map((e) => (e.type === "log" ? e.line : "")),
      ["one", "two", "three"],
    );
    assert.deepEqual(
      fresh.eventsAfter(id, 2).map((e) => e.id),
      [3],
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("SSE parsing joins data lines and splits events across chunks", async () => {
  const got: string[] = [];
  await parseSse(
    Readable.from([Buffer.from("id: 1\nevent: x\nda"), Buffer.from('ta: {"a":1}\n\n: ping\n\nid: 2\ndata: l1\r\ndata: l2\n\n')]),
    (d) => got.push(d),
  );
  assert.deepEqual(got, ['{"a":1}', "l1\nl2"]);
});

test("SSE parsing rejects with what the handler throws and ends the stream; a destroyed stream ends it quietly", async () => {
  const bad = Readable.from([Buffer.from("data: 1\n\ndata: 2\n\n")]);
  await assert.rejects(
    parseSse(bad, () => {
      throw new Error("not an event");
    }),
    /not an event/,
  );
  assert.equal(bad.destroyed, true);
  const followed = Readable.from([Buffer.from("data: end\n\n"), Buffer.from("data: never\n\n")]);
  const seen: string[] = [];
  await parseSse(followed, (d) => {
    seen.push(d);
    followed.destroy();
  });
  assert.deepEqual(seen, ["end"]);
});

test("a child's output splits into lines across chunks, CRLF or LF, with the last line unterminated", async () => {
  const lines: string[] = [];
  const stream = Readable.from([Buffer.from("one\ntw"), Buffer.from("o\r\n\nthr"), Buffer.from("ée\nlast")]);
  const ended = new Promise((r) => stream.on("end", r));
  onStreamLines(stream, (l) => lines.push(l));
  await ended;
  assert.deepEqual(lines, ["one", "two", "", "thrée", "last"]);
});

test("nvidia-smi CSV parses into GPUs", () => {
  const gpus = parseNvidiaSmi("0, NVIDIA H200, 143771, 1024, 37\n1, NVIDIA H200, 143771, 0, 0\n\n");
  assert.equal(gpus.length, 2);
  assert.deepEqual(gpus[0], { index: 0, name: "NVIDIA H200", memory_total_mib: 143771, memory_used_mib: 1024, utilisation: 37 });
});

test("GPU figures are spelt utilisation on the wire; a runner that still sends utilization is read alike", () => {
  const old = { index: 0, name: "H200", memory_total_mib: 10, memory_used_mib: 1, utilization: 37 };
  assert.equal(GpuInfo.parse(old).utilisation, 37);
  assert.equal(GpuInfo.parse({ ...old, utilization: undefined, utilisation: 12 }).utilisation, 12);
  const ev = JobEvent.parse({ type: "gpu", id: 1, t: 0, gpus: [{ index: 0, utilization: 55, memory_used_mib: 1 }] });
  assert.deepEqual(ev.type === "gpu" ? ev.gpus : null, [{ index: 0, utilisation: 55, memory_used_mib: 1 }]);
});

test("folded Slurm array ranges", () => {
  assert.equal(inArrayRange("0-3", 2), true);
  assert.equal(inArrayRange("0-3", 4), false);
  assert.equal(inArrayRange("1,5-7%2", 6), true);
  assert.equal(inArrayRange("1,5-7%2", 2), false);
});

test("a unit's request narrows the job's config to the unit", () => {
  const config = { policy: { kind: "openai" as const, model: "m" }, k: 4, concurrency: 8, sandbox: "docker" as const, tasks: ["a", "b"] };
  const request = unitRequest("/e", "/r", config, { tasks: ["b"], k: 2 }, "http://127.0.0.1:9/v1");
  assert.deepEqual(request, {
    env_dir: "/e",
    runs_dir: "/r",
    config: {
      policy: { kind: "openai", model: "m", base_url: "http://127.0.0.1:9/v1" },
      k: 2,
      concurrency: 8,
      sandbox: "docker",
      tasks: ["b"],
    },
  });
  const sharded = unitRequest("/e", "/r", config, { shard: { index: 1, count: 3 } }).config;
  assert.deepEqual([sharded.tasks, sharded.shard], [["a", "b"], { index: 1, count: 3 }]);
});

test("a unit keeps what no flag spelt: policy.stream, infra_retries, concurrency_auto", () => {
  const dir = tmp();
  try {
    const config = RunConfig.parse({
      policy: { kind: "openai", model: "m", stream: true },
      k: 2,
      concurrency: 16,
      concurrency_auto: true,
      infra_retries: 5,
      sandbox: "process",
    });
    const runs = path.join(dir, "units", "u0");
    const args = writeUnitRequest(unitRequest("/e", runs, config, { tasks: ["t"] }, "http://127.0.0.1:9/v1"));
    assert.deepEqual(args, ["run", "--request", `${runs}.request.json`]);
    // What the unit's `rlenv run --request FILE` reads back.
    const read = readRunRequest(`${runs}.request.json`);
    assert.equal(read.config.policy.stream, true);
    assert.equal(read.config.infra_retries, 5);
    assert.equal(read.config.concurrency_auto, true);
    assert.equal(read.config.concurrency, 16);
    assert.deepEqual(read.config.tasks, ["t"]);
    assert.equal(read.config.policy.base_url, "http://127.0.0.1:9/v1");
    assert.equal(read.runs_dir, runs);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a unit's request whose replay file is missing is refused before any rollout starts", () => {
  assert.throws(() => checkPolicyFiles({ kind: "replay", replay: "/nonexistent/t.jsonl" }), {
    message: "--policy replay:/nonexistent/t.jsonl: no such file or run folder",
  });
  assert.doesNotThrow(() => checkPolicyFiles({ kind: "oracle" }));
});
