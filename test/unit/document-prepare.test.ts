// Documents are parsed and indexed once, before any rollout starts (so no rollout's time
// includes parsing), in worker threads, into the content-hash cache that rollouts read.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { buildCorpus } from "../../src/core/domains/document/corpus";
import { parseInWorkers } from "../../src/core/domains/document/parse/pool";
import { loadEnvironment } from "../../src/core/environment/load-environment";
import { runEnvironment } from "../../src/core/rollout/run-environment";
import type { SandboxProvider } from "../../src/core/model/sandbox";
import { corruptPdf, makePdf } from "./document-fixtures";

let work: string;
const saved = process.env.RLENV_CACHE_DIR;

/** The document domain runs in-process: a rollout that asks for a sandbox is a bug. */
const noSandbox = {
  backend: "none",
  acquire: () => Promise.reject(new Error("the document domain must not start a sandbox")),
  shutdown: async () => {},
} as unknown as SandboxProvider;

before(() => {
  work = mkdtempSync(path.join(tmpdir(), "rlenv-doc-prepare-"));
  process.env.RLENV_CACHE_DIR = path.join(work, "cache");
});
after(() => {
  rmSync(work, { recursive: true, force: true });
  if (saved === undefined) delete process.env.RLENV_CACHE_DIR;
  else process.env.RLENV_CACHE_DIR = saved;
});

function writeEnv(dir: string): void {
  mkdirSync(path.join(dir, "docs"), { recursive: true });
  for (let i = 1; i <= 3; i++) {
    const pages = Array.from({ length: 4 }, (_, p) => `Filing ${i} page ${p + 1}\nNet sales\t${1000 * i + p}\t${900 * i}`);
    writeFileSync(path.join(dir, "docs", `ACME_201${i}_10K.pdf`), makePdf(pages));
  }
  writeFileSync(
    path.join(dir, "environment.yaml"),
    "name: doc-prepare\ndomain: document\ntasks: tasks.jsonl\ndocuments: { path: docs, chunk_tokens: 50 }\ntools: [list_documents, search, read, find, submit_report]\nmax_turns: 5\nreward:\n  - type: fields\n    fields:\n      answer: { comparator: auto }\n",
  );
  const tasks = [1, 2, 3].map((i) => ({
    id: `t${i}`,
    prompt: `What were ACME's FY201${i} net sales?`,
    target: { answer: `${1000 * i}`, grading: { answer: { comparator: "number" } } },
    solution: { answer: { answer: `${1000 * i}`, citations: [{ document: `ACME_201${i}_10K.pdf`, page: 1 }] } },
  }));
  writeFileSync(path.join(dir, "tasks.jsonl"), `${tasks.map((t) => JSON.stringify(t)).join("\n")}\n`);
}

describe("documents are ready before the first rollout", () => {
  test("run parses and indexes the corpus before any rollout starts; rollouts find it in the cache", async () => {
    const dir = path.join(work, "env");
    writeEnv(dir);
    const { env } = loadEnvironment(dir);
    assert.ok(env);
    const seen: string[] = [];
    let cacheAtFirstStart = -1;
    const res = await runEnvironment({
      env,
      config: { policy: { kind: "oracle" }, k: 1, concurrency: 3, sandbox: "process" } as never,
      runsDir: path.join(work, "runs"),
      sandboxProvider: noSandbox,
      onProgress: (e) => {
        if (e.type === "log") seen.push(`log ${e.message}`);
        if (e.type === "rollout-start") {
          seen.push("rollout-start");
          if (cacheAtFirstStart < 0)
            cacheAtFirstStart = readdirSync(path.join(work, "cache", "documents")).filter((f) => f.endsWith(".json")).length;
        }
      },
    });
    const indexed = seen.findIndex((s) => /^log documents: 3 indexed .*3 parsed now/.test(s));
    const firstStart = seen.indexOf("rollout-start");
    assert.ok(indexed >= 0, seen.join("\n"));
    assert.ok(firstStart > indexed, `the corpus was indexed after a rollout started:\n${seen.join("\n")}`);
    assert.equal(cacheAtFirstStart, 3, "the three parsed filings are in the cache when the first rollout starts");
    assert.equal(res.rollouts.length, 3);
    assert.ok(
      res.rollouts.every((r) => r.reward === 1),
      JSON.stringify(res.rollouts.map((r) => [r.status, r.reward, r.reason])),
    );
  });

  test("a second build reads every file from the cache and parses none", async () => {
    const dir = path.join(work, "env");
    const again = await buildCorpus(path.join(dir, "docs"), 50);
    assert.equal(again.parsed, 0);
    assert.equal(again.documents.length, 3);
  });
});

describe("the parse pool", () => {
  test("parses in worker threads, results in the order asked; a bad file is its own error", async () => {
    const dir = path.join(work, "pool");
    mkdirSync(dir, { recursive: true });
    const files = ["a.pdf", "b.pdf", "bad.pdf", "c.pdf"].map((n) => path.join(dir, n));
    writeFileSync(files[0]!, makePdf(["alpha one", "alpha two"]));
    writeFileSync(files[1]!, makePdf(["beta"]));
    writeFileSync(files[2]!, corruptPdf());
    writeFileSync(files[3]!, makePdf(["gamma", "gamma", "gamma"]));
    const saved = process.env.RLENV_PARSE_THREADS;
    process.env.RLENV_PARSE_THREADS = "2";
    const done: number[] = [];
    try {
      const out = await parseInWorkers(
        files.map((file) => ({ file, format: "pdf" as const })),
        (i) => done.push(i),
      );
      assert.deepEqual(
        out.map((r) => (Array.isArray(r) ? r.length : "error")),
        [2, 1, "error", 3],
      );
      assert.match(String(out[2]), /bad\.pdf: not a readable PDF/);
      assert.match(Array.isArray(out[0]) ? out[0][0]!.text : "", /alpha one/);
      assert.deepEqual([...done].sort(), [0, 1, 2, 3]);
    } finally {
      if (saved === undefined) delete process.env.RLENV_PARSE_THREADS;
      else process.env.RLENV_PARSE_THREADS = saved;
    }
  });
});
