// Job ids in completion: `rlenv jobs cancel <TAB>`, `jobs <TAB>`, `logs <TAB>` and `pull <TAB>`
// offer the job ids of the configured runner, asked through the hidden `rlenv __complete jobs`
// with a short timeout, and nothing (not file names) when no runner answers. A real runner
// (`rlenv runner serve`, in its own process) holds jobs in its journal; each shell completes
// with the script `rlenv completion SHELL` writes and an `rlenv` on PATH that runs this checkout.
import assert from "node:assert/strict";
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { runnerFromWords } from "../../../src/cli/completion-sources";
import type { JobRecord } from "../../../src/core/remote/api";
import { JobJournal } from "../../../src/core/remote/jobs/journal";
import { rlenvCommand } from "../../support/cli";
import { bashOffers, fishOffers, type Shell, writeCompletionScripts, zshOffers } from "../../support/completion-shells";

const IDS = ["j-older", "j-newer"];
let work: string;
let cwd: string;
let runner: ChildProcess | undefined;
let scripts: Record<Shell, string>;
const saved = { ...process.env };

const has = (shell: string) => spawnSync("sh", ["-c", `command -v ${shell}`]).status === 0;
/** A word as sh reads it back: single-quoted. */
const shellWord = (w: string) => `'${w.replace(/'/g, `'\\''`)}'`;

function job(id: string, created: string): JobRecord {
  return {
    id,
    state: "completed",
    created,
    env: { name: "demo", hash: "h", domain: "code", tasks: 1 },
    spec: { config: { policy: { kind: "oracle" }, k: 1, concurrency: 1, sandbox: "process" }, executor: "local" },
    progress: { done: 1, total: 1, mean_reward: 1 },
    units: [],
    interruptions: 0,
    run_id: `run-${id}`,
  };
}

/** Starts `rlenv runner serve` on a free port over a data dir whose journal holds the jobs; its URL and token. */
async function startRunner(data: string): Promise<{ url: string; token: string }> {
  const journal = new JobJournal(data);
  journal.save(job("j-older", "2026-01-01T00:00:00Z"));
  journal.save(job("j-newer", "2026-02-01T00:00:00Z"));
  const [node, ...cli] = rlenvCommand();
  runner = spawn(node as string, [...cli, "runner", "serve", "--port", "0", "--data", data], { stdio: ["ignore", "pipe", "pipe"] });
  const child = runner;
  let out = "";
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout?.on("data", (b: Buffer) => {
      out += b.toString();
      const m = /runner listening on (\S+)/.exec(out);
      if (m?.[1]) resolve(m[1]);
    });
    child.stderr?.on("data", (b: Buffer) => {
      out += b.toString();
    });
    child.on("exit", (code) => reject(new Error(`rlenv runner serve exited ${code}: ${out}`)));
  });
  return { url, token: readFileSync(path.join(data, "token"), "utf8").trim() };
}

before(async () => {
  work = mkdtempSync(path.join(tmpdir(), "rlenv-completion-jobs-"));
  cwd = path.join(work, "cwd");
  mkdirSync(cwd, { recursive: true });
  // A file in the folder: completion must not offer it where a job id goes.
  writeFileSync(path.join(cwd, "notes.txt"), "");
  const bin = path.join(work, "bin");
  mkdirSync(bin);
  // Each TAB that asks for job ids starts it: the built CLI when it is up to date (test/support/cli.ts).
  writeFileSync(path.join(bin, "rlenv"), `#!/bin/sh\nexec ${rlenvCommand().map(shellWord).join(" ")} "$@"\n`);
  chmodSync(path.join(bin, "rlenv"), 0o755);
  const { url, token } = await startRunner(path.join(work, "runner-data"));
  writeFileSync(path.join(work, "runners.yaml"), `runners:\n  lab:\n    url: ${url}\n`);
  Object.assign(process.env, {
    PATH: `${bin}:${process.env.PATH}`,
    RLENV_RUNNERS: path.join(work, "runners.yaml"),
    RLENV_CREDENTIALS: path.join(work, "credentials.json"),
    RLENV_RUNNER_TOKEN_LAB: token,
  });
  delete process.env.RLENV_RUNNER;
  scripts = writeCompletionScripts(work);
});

after(() => {
  runner?.kill();
  for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
  Object.assign(process.env, saved);
  rmSync(work, { recursive: true, force: true });
});

/** Runs with RLENV_RUNNER set to `runner` (unset when undefined). */
function env(runnerName: string | undefined): NodeJS.ProcessEnv {
  const e = { ...process.env };
  if (runnerName === undefined) delete e.RLENV_RUNNER;
  else e.RLENV_RUNNER = runnerName;
  return e;
}

const bash = (runnerName: string | undefined, ...words: string[]) => bashOffers({ script: scripts.bash, cwd, env: env(runnerName) }, words);
const zsh = (runnerName: string | undefined, line: string) =>
  zshOffers({ script: scripts.zsh, cwd, env: env(runnerName) }, line, path.join(work, "zsh-matches.txt"));
const fish = (runnerName: string | undefined, line: string) => fishOffers({ script: scripts.fish, cwd, env: env(runnerName) }, line);

const sorted = (xs: string[]) => [...xs].sort();

test("the --runner typed on the line: --runner X, --runner=X, bash's --runner = X; the last wins", () => {
  assert.equal(runnerFromWords(["jobs", "--runner", "lab", "cancel"]), "lab");
  assert.equal(runnerFromWords(["jobs", "--runner=lab"]), "lab");
  assert.equal(runnerFromWords(["jobs", "--runner", "=", "lab", "cancel"]), "lab");
  assert.equal(runnerFromWords(["logs", "--runner", "a", "--runner", "b"]), "b");
  assert.equal(runnerFromWords(["jobs", "cancel"]), undefined);
});

test("`rlenv __complete jobs` prints the runner's job ids, newest first, and nothing when no runner answers", () => {
  const run = (runnerName: string | undefined, ...words: string[]) =>
    spawnSync("rlenv", ["__complete", "jobs", "--", ...words], { encoding: "utf8", env: env(runnerName) });
  const ok = run("lab", "jobs", "cancel");
  assert.equal(ok.stdout, "j-newer\nj-older\n");
  assert.equal(run(undefined, "logs", "--runner", "lab").stdout, "j-newer\nj-older\n");
  // No runner configured, and a runner that does not answer: nothing, no error, exit 0.
  for (const r of [run(undefined, "jobs"), run("http://127.0.0.1:9/", "jobs")])
    assert.deepEqual([r.status, r.stdout, r.stderr], [0, "", ""]);
  // The hidden command is not a command a user is offered.
  assert.ok(!bash(undefined, "rlenv", "__c").includes("__complete"));
});

describe("bash", { skip: has("bash") ? false : "bash is not installed" }, () => {
  test("jobs cancel, jobs, logs, pull: the runner's job ids (beside `cancel` for jobs)", () => {
    assert.deepEqual(bash("lab", "rlenv", "jobs", "cancel", ""), sorted(IDS));
    assert.deepEqual(bash("lab", "rlenv", "jobs", "cancel", "j-n"), ["j-newer"]);
    assert.deepEqual(bash("lab", "rlenv", "jobs", ""), sorted(["cancel", ...IDS]));
    // `jobs ID` is the whole command: a second id only after `cancel`, and no file names.
    assert.deepEqual(bash("lab", "rlenv", "jobs", "j-older", ""), []);
    assert.deepEqual(bash(undefined, "rlenv", "logs", "--runner", "lab", ""), sorted(IDS));
    assert.deepEqual(bash(undefined, "rlenv", "pull", "--runner", "=", "lab", ""), sorted(IDS));
  });
  test("no runner answering: nothing, not file names", () => {
    assert.deepEqual(bash(undefined, "rlenv", "jobs", "cancel", ""), []);
    assert.deepEqual(bash("http://127.0.0.1:9/", "rlenv", "logs", ""), []);
    // Where a file goes, files are still offered.
    assert.deepEqual(bash(undefined, "rlenv", "validate", "no"), ["notes.txt"]);
  });
});

describe("zsh", { skip: has("zsh") ? false : "zsh is not installed" }, () => {
  test("jobs cancel and logs offer the job ids; nothing without a runner", () => {
    assert.deepEqual(zsh("lab", "rlenv jobs cancel "), sorted(IDS));
    assert.deepEqual(zsh(undefined, "rlenv logs --runner lab "), sorted(IDS));
    assert.deepEqual(zsh("lab", "rlenv jobs "), sorted(["cancel", ...IDS]));
    assert.deepEqual(zsh("lab", "rlenv jobs j-older "), [], "a second id only after cancel");
    assert.deepEqual(zsh(undefined, "rlenv jobs cancel "), []);
  });
});

describe("fish", { skip: has("fish") ? false : "fish is not installed" }, () => {
  test("jobs cancel and pull offer the job ids; nothing without a runner", () => {
    assert.deepEqual(fish("lab", "rlenv jobs cancel "), sorted(IDS));
    assert.deepEqual(fish("lab", "rlenv jobs j-older "), [], "a second id only after cancel");
    assert.deepEqual(fish(undefined, "rlenv pull --runner lab "), sorted(IDS));
    assert.deepEqual(fish(undefined, "rlenv jobs cancel "), []);
  });
});
