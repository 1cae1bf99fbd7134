import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";

const repo = path.resolve(import.meta.dirname, "../../..");
const vsce = path.join(repo, "node_modules", "@vscode", "vsce", "vsce");
const tmp = mkdtempSync(path.join(os.tmpdir(), "rlenv-vsix-"));
after(() => rmSync(tmp, { recursive: true, force: true }));
const built = existsSync(path.join(repo, "dist", "extension.js"));

test("the .vsix holds the bundles, schemas, snippets and media, and no sources", {
  skip: built ? false : "dist/ not built (npm run build)",
}, () => {
  const listed = execFileSync(process.execPath, [vsce, "ls", "--no-dependencies"], {
    cwd: repo,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  })
    .split("\n")
    .filter(Boolean);
  for (const f of [
    "package.json",
    "dist/extension.js",
    "dist/extension-engine.js",
    // Read at run time and sent into sandboxes as text: the sandbox agent and the Blender server.
    "dist/agent.py",
    "dist/blender_rpc.py",
    // The document parser's worker thread: without it every corpus is parsed on the extension host's thread.
    "dist/document-parse-worker.js",
    // The audit's Python helpers and probe library (the Test Explorer's Audit profile reads them).
    "dist/audit/python/rlenv_mutate.py",
    "dist/audit/python/rlenv_trace.py",
    "dist/audit/probes/exit-early-os-exit.yaml",
    // The Python programs an exported Harbor task runs, written into its tests/.
    "dist/harbor/python/grader.py",
    "schemas/environment.schema.json",
    "schemas/task.schema.json",
    "snippets/environment.code-snippets",
    "media/rlenv.svg",
  ]) {
    assert.ok(listed.includes(f), `${f} is packaged`);
  }
  // Every file the extension's bundles load from beside themselves (`path.join(__dirname, "x.js")`)
  // and the build wrote: a new worker or helper left out of .vscodeignore fails here.
  for (const bundle of ["dist/extension.js", "dist/extension-engine.js"]) {
    const text = readFileSync(path.join(repo, bundle), "utf8");
    for (const m of text.matchAll(/__dirname,\s*"([\w.-]+\.(?:js|py))"\)/g)) {
      const f = `dist/${m[1]}`;
      if (existsSync(path.join(repo, f))) assert.ok(listed.includes(f), `${f}, which ${bundle} loads, is packaged`);
    }
  }
  const stray = listed.filter(
    (f) =>
      f.startsWith("src/") || f.startsWith("test/") || f.startsWith("node_modules/") || f.endsWith(".map") || f.startsWith(".vscode-test/"),
  );
  assert.deepEqual(stray, []);
});

test("the bundles leave dockerode's BuildKit gRPC and protobuf out (rlenv never builds with BuildKit)", {
  skip: built ? false : "dist/ not built (npm run build)",
}, () => {
  for (const bundle of ["dist/extension-engine.js", "dist/cli-bundle.js"]) {
    const text = readFileSync(path.join(repo, bundle), "utf8");
    assert.ok(text.includes("dockerode"), `${bundle} bundles dockerode`);
    for (const part of ["@grpc/grpc-js", "@grpc/proto-loader", "protobufjs/src"])
      assert.ok(!text.includes(part), `${bundle} holds ${part}`);
  }
});

test("vsce packages the extension into a .vsix", { skip: built ? false : "dist/ not built (npm run build)" }, () => {
  const out = path.join(tmp, "rl-env-studio.vsix");
  execFileSync(process.execPath, [vsce, "package", "--no-dependencies", "-o", out], { cwd: repo, stdio: ["ignore", "pipe", "pipe"] });
  assert.ok(statSync(out).size > 100_000, "a non-trivial .vsix was written");
});
