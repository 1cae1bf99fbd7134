// Runs the extension-host suites in real VS Code and exits with their result.
//
// Harness, the first that can run here:
//  1. VS Code OSS from the `code-server` npm package (test/setup/code-server.sh installs it
//     into .vscode-test/), its workbench opened in Debian's Chromium by playwright-core with
//     the smoke-test driver on, so the URL `payload` (extensionDevelopmentPath,
//     extensionTestsPath) is honoured; the suites run in the server's Node extension host.
//  2. @vscode/test-electron, where VS Code can be downloaded.
// Two sessions: "main" (trusted workspace) and "untrusted" (Workspace Trust on, the
// workspace left in restricted mode). Writes .test-artifacts/extension-counts as
// "<passed> <failed>" and screenshots under .test-artifacts/screenshots/.
import { spawn, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { createServer as createNetServer } from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { format } from "node:util";
import * as esbuild from "esbuild";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const artifacts = path.join(repo, ".test-artifacts");
const shots = path.join(artifacts, "screenshots");
// Logs of each session land here; the session's workspace and profile live in a fresh
// temp folder (several people may run the suites at once on one machine).
const logsDir = path.join(artifacts, "extension-host");
const outDir = path.join(repo, "dist", "test", "extension");
const chromiumPath = process.env.RLENV_CHROMIUM ?? "/usr/bin/chromium";
const SESSION_TIMEOUT_MS = Number(process.env.RLENV_EXT_TIMEOUT_MS ?? 8 * 60_000);
const only = process.argv.slice(2); // session names to run (default: all)

const log = (...a) => console.log("[ext-host]", ...a);
/** Workbench chatter unrelated to the suites (no network here: gallery, chat, sign-in). */
const WORKBENCH_NOISE = /^\[(AgentHost|ChatModelSelection|AccountPolicyGate)\]|SettingsEditor2|open-vsx|getaddrinfo|^\s*$/;

/** Pure-logic tests of src/extension (no vscode) run with plain node first. */
function runUnitTests() {
  const r = spawnSync("bash", ["scripts/run-node-tests.sh", "test/extension/unit"], { cwd: repo, stdio: "inherit" });
  return r.status === 0;
}

/** The newest modification time of any file under `dir` (0 when there is none). */
function newestMtime(dir) {
  let newest = 0;
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile()) newest = Math.max(newest, statSync(path.join(e.parentPath ?? e.path, e.name)).mtimeMs);
  }
  return newest;
}

async function buildBundles() {
  // Run by hand after an edit, the suites would otherwise test the bundle of the last build.
  const bundle = path.join(repo, "dist", "extension.js");
  const why = !existsSync(bundle) ? "missing" : newestMtime(path.join(repo, "src")) > statSync(bundle).mtimeMs ? "older than src/" : "";
  if (why) {
    log(`dist/extension.js ${why}: building`);
    const r = spawnSync(process.execPath, ["esbuild.mjs"], { cwd: repo, stdio: "inherit" });
    if (r.status !== 0) throw new Error("build failed");
  }
  // The suites: mocha and vscode come from the host (mocha from node_modules at run time).
  await esbuild.build({
    entryPoints: { main: "test/extension/suite/main.ts", untrusted: "test/extension/suite/untrusted.ts" },
    absWorkingDir: repo,
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node20",
    outdir: outDir,
    external: ["vscode", "mocha"],
    sourcemap: "inline",
    logLevel: "warning",
  });
}

/** A fresh workspace under `base`: a copy of the example environments plus a folder for test files. */
function makeWorkspace(base) {
  const ws = path.join(base, "workspace");
  mkdirSync(ws, { recursive: true });
  if (existsSync(path.join(repo, "environments")))
    cpSync(path.join(repo, "environments"), path.join(ws, "environments"), { recursive: true });
  mkdirSync(path.join(ws, "scratch"), { recursive: true });
  return ws;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createNetServer();
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
    s.on("error", reject);
  });
}

async function waitForHttp(url, ms) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    try {
      const r = await fetch(url);
      if (r.ok) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} did not answer within ${ms} ms`);
}

/** Which harness can run here, and why the others cannot. */
function pickHarness() {
  const info = path.join(repo, ".vscode-test", "code-server.json");
  const reasons = [];
  if (process.env.RLENV_MISSING_code_server) reasons.push(`code-server: ${process.env.RLENV_MISSING_code_server}`);
  else if (!existsSync(info)) reasons.push("code-server: not installed (run test/setup/code-server.sh)");
  else if (!existsSync(chromiumPath)) reasons.push(`code-server: no Chromium at ${chromiumPath}`);
  else return { kind: "code-server", ...JSON.parse(readFileSync(info, "utf8")) };
  return { kind: "test-electron", reasons };
}

/**
 * Serves the suites' requests for what the page shows, which the extension host cannot see:
 * GET /shot?name=x saves the page as x.png; GET /webview?selector=s[&click=1] counts the
 * elements matching s inside the webviews' frames (every frame but the workbench's own),
 * and with click=1 clicks the first of them. Answers JSON { count }.
 */
function screenshotServer(getPage) {
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const page = getPage();
    if (!page || (url.pathname !== "/shot" && url.pathname !== "/webview")) {
      res.writeHead(404).end();
      return;
    }
    try {
      if (url.pathname === "/webview") {
        const result = await queryWebviews(page, url.searchParams.get("selector") ?? "", url.searchParams.get("click") === "1");
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(result));
        return;
      }
      const name = (url.searchParams.get("name") ?? "shot").replace(/[^A-Za-z0-9._-]/g, "_");
      const file = path.join(shots, `${name}.png`);
      await page.screenshot({ path: file });
      res.writeHead(200, { "content-type": "text/plain" }).end(file);
    } catch (e) {
      res.writeHead(500).end(String(e));
    }
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

/** Counts `selector` in every webview frame; clicks the first match when asked. */
async function queryWebviews(page, selector, click) {
  let count = 0;
  let clicked = false;
  for (const frame of page.frames()) {
    if (frame === page.mainFrame() || frame.isDetached()) continue;
    const here = await frame
      .locator(selector)
      .count()
      .catch(() => 0);
    if (here > 0 && click && !clicked) {
      await frame.locator(selector).first().click({ timeout: 5000 });
      clicked = true;
    }
    count += here;
  }
  return { count, clicked };
}

async function runCodeServerSession(h, session, trusted) {
  const { chromium } = await import("playwright-core");
  const base = mkdtempSync(path.join(os.tmpdir(), `rlenv-ext-${session}-`));
  const ws = makeWorkspace(base);
  const userData = path.join(base, "user-data");
  const resultsFile = path.join(base, "results.json");
  mkdirSync(path.join(userData, "User"), { recursive: true });
  // Settings of the test profile: no welcome page, and for the untrusted session no trust
  // prompt (the workspace simply stays in restricted mode).
  writeFileSync(
    path.join(userData, "User", "settings.json"),
    JSON.stringify({
      "workbench.startupEditor": "none",
      "workbench.tips.enabled": false,
      "security.workspace.trust.startupPrompt": "never",
      "security.workspace.trust.emptyWindow": false,
      "telemetry.telemetryLevel": "off",
      "extensions.autoCheckUpdates": false,
      "update.mode": "none",
      "chat.disableAIFeatures": true,
      "workbench.secondarySideBar.defaultVisibility": "hidden",
      "extensions.autoUpdate": false,
    }),
  );
  const port = await freePort();
  const config = path.join(base, "config.yaml");
  writeFileSync(config, `bind-addr: 127.0.0.1:${port}\nauth: none\ncert: false\n`);
  let page;
  let writeLogOnExit = () => {};
  const shotServer = await screenshotServer(() => page);
  const env = {
    ...process.env,
    RLENV_EXT_RESULTS: resultsFile,
    RLENV_SCREENSHOT_URL: `http://127.0.0.1:${shotServer.address().port}/shot`,
    RLENV_EXT_SESSION: session,
    RLENV_REPO: repo,
  };
  for (const k of Object.keys(env)) if (k.startsWith("npm_") || k.startsWith("VSCODE_")) delete env[k];
  const args = [
    h.entry,
    "--auth",
    "none",
    "--bind-addr",
    `127.0.0.1:${port}`,
    "--user-data-dir",
    userData,
    "--extensions-dir",
    path.join(base, "extensions"),
    "--config",
    config,
    "--disable-telemetry",
    "--disable-update-check",
    "--disable-getting-started-override",
    ...(trusted ? ["--disable-workspace-trust"] : []),
    "--vscode-option",
    "enable-smoke-test-driver",
    ws,
  ];
  const sessionLogs = path.join(logsDir, session);
  rmSync(sessionLogs, { recursive: true, force: true });
  mkdirSync(sessionLogs, { recursive: true });
  // Its own process group, so the server, its extension host and helpers stop together.
  const server = spawn(h.node, args, { env, stdio: ["ignore", "pipe", "pipe"], detached: true });
  let serverOut = "";
  server.stdout.on("data", (d) => (serverOut += d));
  server.stderr.on("data", (d) => (serverOut += d));
  const t0 = Date.now();
  let browser;
  try {
    await waitForHttp(`http://127.0.0.1:${port}/healthz`, 30_000);
    log(`${session}: code-server ${h.version} up in ${Date.now() - t0} ms on 127.0.0.1:${port}`);
    browser = await chromium.launch({
      executablePath: chromiumPath,
      headless: true,
      args: [
        "--no-sandbox",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--use-angle=swiftshader",
        "--enable-unsafe-swiftshader",
      ],
    });
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    page = await context.newPage();
    let resolveExit;
    const exited = new Promise((r) => (resolveExit = r));
    // Everything the workbench logs goes to workbench.log; the console gets the suites'
    // output (mocha's reporter, forwarded from the extension host) and our own errors.
    const workbenchLog = [];
    writeLogOnExit = () => writeFileSync(path.join(sessionLogs, "workbench.log"), workbenchLog.join("\n"));
    await page.exposeFunction("codeAutomationLog", (level, msg) => {
      const text = Array.isArray(msg) ? format(...msg) : String(msg);
      workbenchLog.push(`[${level}] ${text}`);
      if (WORKBENCH_NOISE.test(text)) return;
      if (level === "error" || level === "warn") {
        if (/rlenv|RL Env|extension host|Extension Host|activat/i.test(text)) console.error(`  [${level}] ${text}`);
      } else console.log(`  ${text}`);
    });
    await page.exposeFunction("codeAutomationExit", (code) => resolveExit(Number(code)));
    page.on("pageerror", (e) => console.error(`  [page error] ${e.message}`));
    const remote = `vscode-remote://127.0.0.1:${port}`;
    const payload = [
      ["extensionDevelopmentPath", `${remote}${repo}`],
      ["extensionTestsPath", `${remote}${path.join(outDir, `${session}.js`)}`],
    ];
    const url = `http://127.0.0.1:${port}/?folder=${encodeURIComponent(ws)}&payload=${encodeURIComponent(JSON.stringify(payload))}`;
    // The workbench page can take more than playwright's default 30 s to load on a loaded machine.
    await page.goto(url, { timeout: 180_000 });
    log(`${session}: workbench opened`);
    const timeout = new Promise((r) => setTimeout(() => r("timeout"), SESSION_TIMEOUT_MS));
    const code = await Promise.race([exited, timeout]);
    if (code === "timeout") {
      await page.screenshot({ path: path.join(shots, `${session}-timeout.png`) }).catch(() => {});
      throw new Error(`${session}: the suites did not finish within ${SESSION_TIMEOUT_MS / 1000} s`);
    }
    const results = existsSync(resultsFile)
      ? JSON.parse(readFileSync(resultsFile, "utf8"))
      : { passed: 0, failed: 1, note: "no results file: the suites did not start" };
    log(
      `${session}: exit ${code}, ${results.passed} passed, ${results.failed} failed, ${results.pending ?? 0} pending, ${((Date.now() - t0) / 1000).toFixed(1)} s`,
    );
    return { code: code === 0 && results.failed === 0 ? 0 : 1, passed: results.passed, failed: results.failed || (code === 0 ? 0 : 1) };
  } finally {
    await browser?.close().catch(() => {});
    shotServer.close();
    await stopGroup(server);
    writeFileSync(path.join(sessionLogs, "code-server.log"), serverOut);
    writeLogOnExit();
    if (!process.env.RLENV_KEEP_EXT_WORKSPACE) rmSync(base, { recursive: true, force: true });
  }
}

/** SIGTERM to the server's process group, SIGKILL to what is left after a grace period. */
async function stopGroup(child) {
  const signal = (sig) => {
    try {
      process.kill(-child.pid, sig);
    } catch {}
  };
  signal("SIGTERM");
  const gone = new Promise((r) => child.once("exit", r));
  await Promise.race([gone, new Promise((r) => setTimeout(r, 3000))]);
  signal("SIGKILL");
}

async function runTestElectron(reasons) {
  let runTests;
  try {
    ({ runTests } = await import("@vscode/test-electron"));
  } catch (e) {
    return { skipped: `${reasons.join("; ")}; @vscode/test-electron unavailable: ${e.message}` };
  }
  let total = { code: 0, passed: 0, failed: 0 };
  for (const session of ["main"]) {
    const base = mkdtempSync(path.join(os.tmpdir(), `rlenv-ext-${session}-`));
    const ws = makeWorkspace(base);
    const resultsFile = path.join(base, "results.json");
    try {
      const code = await runTests({
        extensionDevelopmentPath: repo,
        extensionTestsPath: path.join(outDir, `${session}.js`),
        launchArgs: [ws, "--disable-extensions", "--disable-workspace-trust"],
        extensionTestsEnv: { RLENV_EXT_RESULTS: resultsFile, RLENV_EXT_SESSION: session, RLENV_REPO: repo },
      });
      const r = JSON.parse(readFileSync(resultsFile, "utf8"));
      total = { code: total.code || code, passed: total.passed + r.passed, failed: total.failed + r.failed };
    } catch (e) {
      // A download that cannot happen here is a missing harness, not a failing suite.
      if (/download|ENOTFOUND|ECONNREFUSED|getaddrinfo|fetch failed/i.test(String(e)))
        return { skipped: `${reasons.join("; ")}; @vscode/test-electron: ${e.message ?? e}` };
      throw e;
    }
  }
  return total;
}

async function main() {
  mkdirSync(shots, { recursive: true });
  rmSync(path.join(artifacts, "extension-counts"), { force: true });
  await buildBundles();
  // RLENV_EXT_SKIP_UNIT=1 skips them (while working on one feature's suites, with RLENV_EXT_GREP).
  const unitOk = process.env.RLENV_EXT_SKIP_UNIT ? true : runUnitTests();
  const h = pickHarness();
  let passed = 0;
  let failed = 0;
  let code = unitOk ? 0 : 1;
  if (h.kind === "code-server") {
    const sessions = [
      ["main", true],
      ["untrusted", false],
    ].filter(([name]) => only.length === 0 || only.includes(name));
    for (const [name, trusted] of sessions) {
      try {
        const r = await runCodeServerSession(h, name, trusted);
        passed += r.passed;
        failed += r.failed;
        code ||= r.code;
      } catch (e) {
        console.error(`[ext-host] ${name}: ${e.stack ?? e}`);
        failed += 1;
        code = 1;
      }
    }
  } else {
    const r = await runTestElectron(h.reasons);
    if (r.skipped) {
      log(`skipped: no VS Code can run here — ${r.skipped}`);
    } else {
      passed += r.passed;
      failed += r.failed;
      code ||= r.code;
    }
  }
  writeFileSync(path.join(artifacts, "extension-counts"), `${passed} ${failed}\n`);
  log(`extension host: ${passed} passed, ${failed} failed`);
  process.exit(code);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
