/**
 * The run folder as a tar (run-stream.ts) reads files only as fast as the puller takes
 * them: a snapshot of a folder far bigger than the backlog limit never sits in the
 * runner's memory whole, and still arrives complete, byte for byte.
 */
import assert from "node:assert/strict";
import { EventEmitter } from "node:events";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { PassThrough } from "node:stream";
import { test } from "node:test";
import type { JobManager } from "../../src/core/remote/jobs/jobs";
import { streamRunFolder } from "../../src/core/remote/server/run-stream";
import { type TarReadEntry, TarReader } from "../../src/core/remote/bundle/tar-reader";

/** The two things streamRunFolder asks of the job manager: the folder's view and its events. */
function jobsWith(view: { dir: string; finished: string[]; live: boolean }): JobManager {
  return Object.assign(new EventEmitter(), { runView: () => view }) as unknown as JobManager;
}

test("a snapshot bigger than the backlog limit is read as the puller takes it, and arrives whole", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "rlenv-run-stream-"));
  try {
    mkdirSync(path.join(dir, "rollouts"));
    writeFileSync(path.join(dir, "run.json"), '{"id":"run-x"}\n');
    const count = 3000;
    for (let i = 0; i < count; i++) writeFileSync(path.join(dir, "rollouts", `t${i}.jsonl`), Buffer.alloc(4000, 97 + (i % 26))); // 12 MB in all
    const { stream } = streamRunFolder(jobsWith({ dir, finished: [], live: false }), "j1", "run-x", { follow: false });
    // Nobody reads yet: what waits must stay near the 4 MiB limit, not the folder's 12 MB.
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
    // The stream is the tar's PassThrough: what waits is in its writable and readable halves.
    const waiting = (stream as PassThrough).writableLength + stream.readableLength;
    assert.ok(waiting > 1024 * 1024 && waiting < 5 * 1024 * 1024, `${waiting} bytes wait for the puller`);
    const got: TarReadEntry[] = [];
    const reader = new TarReader((e) => got.push(e));
    for await (const chunk of stream) reader.push(chunk as Buffer);
    reader.end();
    const files = got.filter((e) => e.type === "file");
    assert.equal(files.length, count + 1);
    assert.equal(files.find((e) => e.name === "run-x/run.json")?.body.toString(), '{"id":"run-x"}\n');
    for (const i of [0, 1234, count - 1])
      assert.ok(
        files.find((e) => e.name === `run-x/rollouts/t${i}.jsonl`)?.body.equals(readFileSync(path.join(dir, "rollouts", `t${i}.jsonl`))),
        `t${i}`,
      );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
