// The saved document index: a corpus indexed before loads from its saved index (keyed by the
// corpus hash) and ranks exactly as a rebuilt one; a changed file, a damaged index file or an
// unreadable document means a rebuild, never a wrong or stale index.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { buildCorpus } from "../../src/core/domains/document/corpus";
import { pack, unpack } from "../../src/core/domains/document/index-store";
import { corruptPdf } from "./document-fixtures";

let work: string;
const saved = process.env.RLENV_CACHE_DIR;

before(() => {
  work = mkdtempSync(path.join(tmpdir(), "rlenv-doc-index-"));
  process.env.RLENV_CACHE_DIR = path.join(work, "cache");
});
after(() => {
  rmSync(work, { recursive: true, force: true });
  if (saved === undefined) delete process.env.RLENV_CACHE_DIR;
  else process.env.RLENV_CACHE_DIR = saved;
});

const indexDir = () => path.join(work, "cache", "documents", "index");

function writeDocs(dir: string, revenue = 1000): void {
  mkdirSync(dir, { recursive: true });
  for (let i = 1; i <= 3; i++) {
    const pages = Array.from(
      { length: 3 },
      (_, p) =>
        `ACME Corp fiscal 201${i} — page ${p + 1}\nConsolidated balance sheet\nMerchandise inventories\t${revenue * i + p}\t${900 * i}\nNet sales\t${5000 + i}\t${4000 + i}\nCash and equivalents\t12\t13\nTotal assets\t99\t98\nRésumé of “notes”\n`,
    );
    writeFileSync(path.join(dir, `ACME_201${i}_10K.txt`), pages.join("\f"));
  }
}

const ranked = (c: Awaited<ReturnType<typeof buildCorpus>>, q: string) =>
  c.ranker.search(q, 5).map((h) => [c.documents[h.doc]?.name, h.page, h.score.toFixed(9), h.row?.label, h.statements.join("+")]);

describe("the saved document index", () => {
  test("a second build loads the saved index and ranks, chunks and pages exactly as the rebuild did", async () => {
    const dir = path.join(work, "docs");
    writeDocs(dir);
    const built = await buildCorpus(dir, 20);
    assert.equal(built.fromIndex, false);
    assert.equal(readdirSync(indexDir()).filter((f) => f.endsWith(".bin")).length, 1);
    const progress: unknown[] = [];
    const loaded = await buildCorpus(dir, 20, { onProgress: (p) => progress.push(p) });
    assert.equal(loaded.fromIndex, true);
    assert.equal(loaded.parsed, 0);
    assert.deepEqual(progress, [{ parsed: 0, toParse: 0, cached: 3 }]);
    assert.deepEqual(loaded.documents, built.documents);
    assert.deepEqual(
      loaded.chunks.map((c) => [c.doc, c.page, c.start, c.end, c.length]),
      built.chunks.map((c) => [c.doc, c.page, c.start, c.end, c.length]),
    );
    for (const q of ["ACME 2012 merchandise inventories", "net sales 2013", "Résumé notes"])
      assert.deepEqual(ranked(loaded, q), ranked(built, q));
    assert.deepEqual(loaded.index.search(["inventories"], 5), built.index.search(["inventories"], 5));
    assert.deepEqual(loaded.ranker.statementsOf(1, 2), built.ranker.statementsOf(1, 2));
  });

  test("another chunk size or a changed file is another corpus hash: rebuilt, never the old index", async () => {
    const dir = path.join(work, "docs");
    assert.equal((await buildCorpus(dir, 25)).fromIndex, false);
    writeDocs(dir, 7000);
    const changed = await buildCorpus(dir, 20);
    assert.equal(changed.fromIndex, false);
    assert.match(changed.documents[0]!.pages[0]!.text, /Merchandise inventories\t7000/);
    assert.equal((await buildCorpus(dir, 20)).fromIndex, true);
  });

  test("a damaged or truncated index file is a miss: the corpus is rebuilt and saved again", async () => {
    const dir = path.join(work, "docs");
    const files = readdirSync(indexDir()).filter((f) => f.endsWith(".bin"));
    assert.ok(files.length > 0);
    for (const f of files) writeFileSync(path.join(indexDir(), f), "RLIX\u0010\u0000\u0000\u0000{not json");
    const rebuilt = await buildCorpus(dir, 20);
    assert.equal(rebuilt.fromIndex, false);
    assert.equal(rebuilt.documents.length, 3);
    assert.equal((await buildCorpus(dir, 20)).fromIndex, true);
  });

  test("a corpus with an unreadable document is not saved, so the failure is tried again next time", async () => {
    const dir = path.join(work, "with-bad");
    writeDocs(dir);
    writeFileSync(path.join(dir, "BROKEN_2020_10K.pdf"), corruptPdf());
    const first = await buildCorpus(dir, 20);
    assert.equal(first.problems.length, 1);
    const again = await buildCorpus(dir, 20);
    assert.equal(again.fromIndex, false);
    assert.equal(again.problems.length, 1);
    assert.match(again.problems[0]!.message, /BROKEN_2020_10K\.pdf/);
  });
});

describe("the index file format", () => {
  test("typed arrays, string tables (any script) and plain values come back as written", () => {
    const strings = Array.from({ length: 100 }, (_, i) =>
      i % 3 ? `page ${i} — “quoted” ${"x".repeat(i)}` : i % 2 ? "日本語のページ" : "",
    );
    const value = {
      a: new Int32Array([1, -2, 3]),
      b: new Float64Array([0.5, 1e300]),
      s: strings,
      few: ["α", "b"],
      n: 7,
      nested: [{ t: new Int32Array(0) }],
    };
    const back = unpack(pack(value, "k1"), "k1") as typeof value;
    assert.deepEqual([...back.a], [1, -2, 3]);
    assert.deepEqual([...back.b], [0.5, 1e300]);
    assert.deepEqual(back.s, strings);
    assert.deepEqual(back.few, ["α", "b"]);
    assert.equal(back.n, 7);
    assert.equal(back.nested[0]!.t.length, 0);
    assert.throws(() => unpack(pack(value, "k1"), "k2"), /another corpus/);
    assert.throws(() => unpack(Buffer.from("PK\u0003\u0004"), "k1"), /not an index file/);
  });
});
