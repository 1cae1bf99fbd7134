import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";

/**
 * What `rlenv view FILE` (src/cli/view-main.ts, the view bundle's entry) has loaded and opened
 * when it prints its URL: everything on that way delays the first painted step. A preload
 * records the modules in require.cache (tsx loads the sources as CommonJS, dynamic imports too)
 * and every file opened, at the moment the URL is written. The API half (schemas, the view
 * service, the trajectory index), the orphan sweep and the trajectory itself come after.
 */
const REPO = path.resolve(__dirname, "../../..");

/** The modules of this repository that may load before the URL: a new one here is a decision, not a drift. */
const BEFORE_URL = [
  "src/cli/view-main.ts",
  "src/cli/commands/view.ts",
  "src/cli/version.ts",
  "src/core/view/server/http-server.ts",
  "src/core/view/server/assets.ts",
  // The app's page bundle, read at the first page request (not before the URL): it goes out with the page.
  "src/core/view/server/page-bundle.ts",
  "src/core/view/server/request-error.ts",
  "src/core/view/server/view-target.ts",
  "src/core/view/page.ts",
  "src/core/view/protocol/names.ts",
].sort();

const PRELOAD = `
const fs = require("fs");
const opened = [];
for (const name of ["openSync", "open", "readFileSync", "readFile", "createReadStream"]) {
  const own = fs[name];
  fs[name] = function (p, ...rest) { opened.push(String(p)); return own.call(this, p, ...rest); };
}
const write = process.stdout.write.bind(process.stdout);
let done = false;
process.stdout.write = (chunk, ...rest) => {
  if (!done && String(chunk).includes('"url"')) {
    done = true;
    fs.writeFileSync(process.env.VIEW_ENTRY_OUT, JSON.stringify({ modules: Object.keys(require.cache), opened }));
  }
  return write(chunk, ...rest);
};
`;

test("rlenv view prints its URL having loaded the server's front alone and opened no byte of the trajectory", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "rlenv-view-entry-"));
  const file = path.join(dir, "rollouts", "r.jsonl");
  mkdirSync(path.dirname(file));
  writeFileSync(file, `${JSON.stringify({ type: "start", t: 0, rollout_id: "r", task_id: "t", env: "e" })}\n`);
  const preload = path.join(dir, "preload.cjs");
  writeFileSync(preload, PRELOAD);
  const out = path.join(dir, "out.json");
  const child = spawn(
    process.execPath,
    ["--require", preload, "--import", "tsx", path.join(REPO, "src/cli/view-main.ts"), "view", file, "--json"],
    {
      cwd: REPO,
      env: { ...process.env, VIEW_ENTRY_OUT: out },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  try {
    await new Promise<void>((resolve, reject) => {
      child.stdout.on("data", (d: Buffer) => {
        if (d.toString().includes('"url"')) resolve();
      });
      child.once("exit", (code) => reject(new Error(`rlenv view exited (${code}): ${stderr}`)));
    });
  } finally {
    child.kill("SIGTERM");
    await exited;
  }
  assert.ok(existsSync(out), stderr);
  const { modules, opened } = JSON.parse(readFileSync(out, "utf8")) as { modules: string[]; opened: string[] };
  const ours = modules
    .filter((m) => m.startsWith(`${REPO}/src/`))
    .map((m) => path.relative(REPO, m))
    .sort();
  // The dynamic import of the server's front is seen, so the list is whole.
  assert.ok(ours.includes("src/core/view/server/http-server.ts"), ours.join(", "));
  assert.deepEqual(ours, BEFORE_URL, "modules loaded before the URL");
  const packages = new Set(
    modules.filter((m) => m.includes("/node_modules/")).map((m) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(m)?.[1]),
  );
  packages.delete("tsx");
  assert.deepEqual([...packages], ["commander"], "packages loaded before the URL (no zod)");
  assert.deepEqual(
    opened.filter((p) => p.includes(path.basename(file))),
    [],
    "the trajectory was opened before the URL",
  );
});
