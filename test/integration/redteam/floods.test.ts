import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { CUT_PATH, FILE_BYTES, TREE_BYTES, TREE_FILES } from "../../../src/core/sandbox/read-bounds";
import { backends, redteamRequest, withSandbox } from "./backends";

/**
 * Class 5, floods are the model's: what a command floods the sandbox with (gigabytes on stdout,
 * more files than any diff should read, more bytes than the host should hold) ends as the
 * command's own result with the reason, never as a lost sandbox (an infrastructure error,
 * retried and kept out of the scores), and the host reads only a bounded part of it.
 */
for (const b of backends()) {
  describe(`${b.name}: floods`, { skip: b.skip }, () => {
    test("3 GB on stdout: the command's own result, its output cut at the limit, the sandbox answers on", async () => {
      await withSandbox(b, async (sb) => {
        const r = await sb.exec("head -c 3000000000 /dev/zero; echo done >&2", { timeoutMs: 120_000 });
        assert.notEqual(r.status, "error", JSON.stringify({ ...r, stdout: r.stdout.length }));
        assert.ok(!r.sandboxLost);
        assert.ok(r.stdout.length + r.stderr.length <= 1_001_000, `kept ${r.stdout.length} bytes`);
        assert.ok(r.status !== "ok" || (r.truncated?.originalBytes ?? 0) >= 3_000_000_000, JSON.stringify(r.truncated));
        assert.equal(await sb.probe?.(5000), null);
        assert.equal((await sb.exec("echo alive", { timeoutMs: 20_000 })).stdout.trim(), "alive");
      });
    });

    test(`more files than a diff reads (${TREE_FILES + 5000}) and more bytes than it holds: the diff is bounded and says it was cut`, async () => {
      const req = redteamRequest(b, {}, { diskBytes: 512 << 20, memoryBytes: 768 << 20 });
      await withSandbox(
        b,
        async (sb) => {
          const many = `import os\nos.makedirs("many", exist_ok=True)\nfor i in range(${TREE_FILES + 5000}):\n    open("many/f%d" % i, "w").write("x")`;
          const big = `import os\nfor i in range(5):\n    open("big-%d.bin" % i, "wb").write(os.urandom(${Math.floor(TREE_BYTES / 4)}))\nopen("huge.bin", "wb").write(b"y" * ${FILE_BYTES + 1})`;
          for (const program of [big, many]) {
            const r = await sb.exec(["python3", "-c", program], { timeoutMs: 120_000 });
            assert.equal(r.exitCode, 0, r.stderr);
          }
          const diff = await sb.diff();
          assert.ok(diff.length <= TREE_FILES + 1, `${diff.length} entries`);
          const cut = diff.find((d) => d.path === CUT_PATH);
          assert.match(cut?.after ?? "", /more than \d+ files/);
          const huge = diff.find((d) => d.path === "huge.bin");
          if (huge) assert.match(huge.after ?? "", /not read: larger than/);
          const read = diff.reduce((n, d) => n + (d.after?.length ?? 0), 0);
          assert.ok(read <= TREE_BYTES + 1_000_000, `the diff holds ${read} bytes`);
          assert.equal(await sb.probe?.(5000), null);
        },
        req,
      );
    });
  });
}
