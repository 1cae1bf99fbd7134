import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { sandboxFiles } from "../../src/core/model/file-content";
import { loadEnvironment } from "../../src/core/environment/load-environment";
import { sandboxRequest } from "../../src/core/sandbox/request";
import { png, randomBin, sha256, sqliteDb } from "../support/binary-fixtures";
import { backendSkip, nop, oracle, rewardEvent, rollOut, sharedProvider, trajectoryDir } from "./code-rollouts";
import { tmp } from "./rollout-helpers";

/**
 * What an author writes is exactly what the sandbox gets, and nothing else, on every backend:
 * binary seed files, hidden tests and solutions arrive byte for byte (SHA-256 computed inside
 * the sandbox), and no link out of the environment folder brings a host file in.
 */

const MANIFEST = (
  tasks: string,
  o: { name: string; command: string; nopMax: number } = { name: "fidelity", command: "python3 check.py", nopMax: 1 },
) => `name: ${o.name}
domain: code
sandbox: { workdir: /workspace, timeouts: { step: 60, rollout: 240 } }
tasks: ${tasks}
tools: [bash, write_file, submit]
reward:
  - type: tests
    command: ${o.command}
    format: exit-code
validation: { oracle: { min: 1 }, nop: { max: ${o.nopMax} } }
`;

const BINS = { "shop.db": sqliteDb(), "img/logo.png": png(), "random.bin": randomBin() };

/** The hidden check: every file's SHA-256 as computed in the sandbox, and a query of the database. */
function checkPy(expect: Record<string, string>): string {
  return `import hashlib, json, sqlite3, sys
expect = json.loads(${JSON.stringify(JSON.stringify(expect))})
bad = {p: h for p, h in ((p, hashlib.sha256(open(p, "rb").read()).hexdigest()) for p in expect) if h != expect[p]}
rows = sqlite3.connect("shop.db").execute("select name, price, blob from items order by price").fetchall()
ok_rows = rows == [("pain", 1.25, None), ("tea", 2.5, bytes(range(256))), ("café", 3.0, b"\\xff\\xfe\\x00")]
print(json.dumps({"bad": bad, "rows_ok": ok_rows}))
sys.exit(0 if not bad and ok_rows else 1)
`;
}

/** A folder-form environment: the binaries as seed files, in the hidden tests and in the solution. */
function folderEnv(): string {
  const dir = tmp("rlenv-fid-");
  const t = path.join(dir, "tasks/t1");
  const expect: Record<string, string> = {};
  for (const [rel, bytes] of Object.entries(BINS)) {
    for (const [sub, prefix] of [
      ["files", ""],
      ["tests", "hidden/"],
      ["solution", "solved/"],
    ] as const) {
      mkdirSync(path.dirname(path.join(t, sub, prefix + rel)), { recursive: true });
      writeFileSync(path.join(t, sub, prefix + rel), bytes);
      expect[prefix + rel] = sha256(bytes);
    }
  }
  writeFileSync(path.join(t, "solution/solved/note.txt"), "text stays text\n");
  expect["solved/note.txt"] = sha256("text stays text\n");
  writeFileSync(path.join(t, "tests/check.py"), checkPy(expect));
  writeFileSync(path.join(t, "task.yaml"), "prompt: Copy the files\n");
  writeFileSync(path.join(dir, "environment.yaml"), MANIFEST("tasks"));
  return dir;
}

/** The same as one JSONL line, binary content as { base64 }. */
function jsonlEnv(): string {
  const dir = tmp("rlenv-fid-");
  const b64 = (b: Buffer) => ({ base64: b.toString("base64") });
  const expect: Record<string, string> = {};
  const files: Record<string, unknown> = {};
  const tests: Record<string, unknown> = {};
  const solution: Record<string, unknown> = {};
  for (const [rel, bytes] of Object.entries(BINS)) {
    files[rel] = b64(bytes);
    tests[`hidden/${rel}`] = b64(bytes);
    solution[`solved/${rel}`] = b64(bytes);
    for (const p of [rel, `hidden/${rel}`, `solved/${rel}`]) expect[p] = sha256(bytes);
  }
  tests["check.py"] = checkPy(expect);
  writeFileSync(
    path.join(dir, "tasks.jsonl"),
    `${JSON.stringify({ id: "t1", prompt: "Copy the files", files, tests: { files: tests }, solution: { files: solution } })}\n`,
  );
  writeFileSync(path.join(dir, "environment.yaml"), MANIFEST("tasks.jsonl"));
  return dir;
}

/**
 * Executable files: the hidden check is run as ./check.sh (no shell named), and checks every
 * file's mode as the sandbox shows it: executable seed, hidden and solution files (text and
 * binary) 755, the others 644, and the executable seed script runs as ./run.sh.
 */
const EXEC_MANIFEST = (tasks: string) => MANIFEST(tasks, { name: "fidelity-modes", command: "./check.sh", nopMax: 0 });
const EXEC_FILES = {
  seed: { "run.sh": "#!/bin/sh\necho ran\n", "tool.bin": Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 1, 2]) },
  seedPlain: { "data.txt": "plain\n", "blob.bin": Buffer.from([0, 1, 2]) },
  solution: { "solved/go.sh": "#!/bin/sh\necho go\n" },
  solutionPlain: { "solved/notes.txt": "done\n" },
};
const CHECK_SH = `#!/bin/sh
# The solution's marker: the nop rollout has none and must score 0.
[ -f solved/notes.txt ] || { echo "no solution"; exit 1; }
modes=$(stat -c '%n=%a' run.sh tool.bin data.txt blob.bin solved/go.sh solved/notes.txt check.sh | tr '\\n' ' ')
echo "$modes"
[ "$modes" = "run.sh=755 tool.bin=755 data.txt=644 blob.bin=644 solved/go.sh=755 solved/notes.txt=644 check.sh=755 " ] || exit 1
[ "$(./run.sh)" = ran ] && [ "$(./solved/go.sh)" = go ]
`;

function execFolderEnv(): string {
  const dir = tmp("rlenv-fid-");
  const t = path.join(dir, "tasks/t1");
  const put = (rel: string, c: string | Buffer, mode: number) => {
    mkdirSync(path.dirname(path.join(t, rel)), { recursive: true });
    writeFileSync(path.join(t, rel), c);
    chmodSync(path.join(t, rel), mode);
  };
  for (const [rel, c] of Object.entries(EXEC_FILES.seed)) put(`files/${rel}`, c, 0o755);
  for (const [rel, c] of Object.entries(EXEC_FILES.seedPlain)) put(`files/${rel}`, c, 0o644);
  for (const [rel, c] of Object.entries(EXEC_FILES.solution)) put(`solution/${rel}`, c, 0o700);
  for (const [rel, c] of Object.entries(EXEC_FILES.solutionPlain)) put(`solution/${rel}`, c, 0o600);
  put("tests/check.sh", CHECK_SH, 0o755);
  writeFileSync(path.join(t, "task.yaml"), "prompt: Run it\n");
  writeFileSync(path.join(dir, "environment.yaml"), EXEC_MANIFEST("tasks"));
  return dir;
}

function execJsonlEnv(): string {
  const dir = tmp("rlenv-fid-");
  const as = (c: string | Buffer, executable: boolean) =>
    typeof c === "string"
      ? executable
        ? { text: c, executable }
        : c
      : { base64: c.toString("base64"), ...(executable ? { executable } : {}) };
  const map = (m: Record<string, string | Buffer>, x: boolean) => Object.fromEntries(Object.entries(m).map(([k, c]) => [k, as(c, x)]));
  const task = {
    id: "t1",
    prompt: "Run it",
    files: { ...map(EXEC_FILES.seed, true), ...map(EXEC_FILES.seedPlain, false) },
    tests: { files: { "check.sh": as(CHECK_SH, true) } },
    solution: { files: { ...map(EXEC_FILES.solution, true), ...map(EXEC_FILES.solutionPlain, false) } },
  };
  writeFileSync(path.join(dir, "tasks.jsonl"), `${JSON.stringify(task)}\n`);
  writeFileSync(path.join(dir, "environment.yaml"), EXEC_MANIFEST("tasks.jsonl"));
  return dir;
}

/** Links out of the folder to a host file holding a secret: refused by the loader, and the sandbox never shows it. */
function linkEnv(secret: string): string {
  const host = tmp("rlenv-host-");
  writeFileSync(path.join(host, "secret.txt"), `${secret}\n`);
  mkdirSync(path.join(host, "dir"));
  writeFileSync(path.join(host, "dir/inner.txt"), `${secret}\n`);
  const dir = tmp("rlenv-fid-");
  const t = path.join(dir, "tasks/t1");
  for (const sub of ["files", "tests", "solution"]) mkdirSync(path.join(t, sub), { recursive: true });
  writeFileSync(path.join(t, "files/main.py"), "x = 1\n");
  symlinkSync(path.join(host, "secret.txt"), path.join(t, "files/passwd"));
  symlinkSync(path.join(host, "dir"), path.join(t, "files/etc"));
  symlinkSync(path.join(host, "secret.txt"), path.join(t, "tests/leak.txt"));
  symlinkSync(path.join(host, "secret.txt"), path.join(t, "solution/leak.txt"));
  symlinkSync(path.join(host, "dir"), path.join(dir, "tasks/t2"));
  writeFileSync(path.join(t, "solution/main.py"), "x = 2\n");
  // The check names the secret in hex only, so that finding it anywhere means a host file came in.
  writeFileSync(
    path.join(t, "tests/check.py"),
    `import os, sys\nfound = [os.path.join(d, f) for d, _, fs in os.walk(".") for f in fs if bytes.fromhex(${JSON.stringify(Buffer.from(secret).toString("hex"))}) in open(os.path.join(d, f), "rb").read()]\nprint(found, sorted(os.listdir(".")))\nsys.exit(1 if found or os.path.lexists("passwd") or os.path.lexists("etc") or open("main.py").read() != "x = 2\\n" else 0)\n`,
  );
  writeFileSync(path.join(t, "task.yaml"), "prompt: Fix it\n");
  writeFileSync(path.join(dir, "environment.yaml"), MANIFEST("tasks"));
  return dir;
}

for (const backend of ["process", "docker"] as const) {
  describe(`${backend} backend: the sandbox gets exactly what the author wrote`, async () => {
    const skip = await backendSkip(backend);
    const get = sharedProvider(backend);

    for (const [form, make] of [
      ["a task folder", folderEnv],
      ["a JSONL line with base64", jsonlEnv],
    ] as const) {
      test(`binary seed files, hidden tests and solution files from ${form} arrive byte for byte (SHA-256 inside the sandbox)`, {
        skip,
      }, async () => {
        const { env, problems } = loadEnvironment(make());
        assert.deepEqual(problems, []);
        assert.ok(env);
        const task = env.tasks[0];
        assert.ok(task);
        const p = await get();
        // Straight after reset: the seed, hashed by sha256sum in the sandbox.
        const sb = await p.acquire(sandboxRequest(env));
        try {
          await sb.reset(sandboxFiles(task.files));
          const r = await sb.exec(["sha256sum", ...Object.keys(BINS)]);
          assert.equal(r.exitCode, 0, r.stderr);
          const got = Object.fromEntries(
            r.stdout
              .trim()
              .split("\n")
              .map((l) => l.split(/\s+/).reverse()),
          );
          assert.deepEqual(got, Object.fromEntries(Object.entries(BINS).map(([rel, b]) => [rel, sha256(b)])));
        } finally {
          await sb.close();
        }
        // Through the engine: the oracle writes the solution, the hidden files come after submit.
        const { dir, cleanup } = trajectoryDir();
        try {
          const rolled = await rollOut(env, task, oracle(task), p, dir);
          const reward = rewardEvent(rolled.events);
          assert.equal(reward?.total, 1, JSON.stringify(reward?.components ?? rolled.events.filter((e) => e.type === "error")));
        } finally {
          cleanup();
        }
      });
    }

    for (const [form, make] of [
      ["a task folder (modes on disk)", execFolderEnv],
      ["a JSONL line (executable: true)", execJsonlEnv],
    ] as const) {
      test(`executable seed, hidden and solution files from ${form} keep mode 755, the others 644`, { skip }, async () => {
        const { env, problems } = loadEnvironment(make());
        assert.deepEqual(problems, []);
        assert.ok(env);
        const task = env.tasks[0];
        assert.ok(task);
        const { dir, cleanup } = trajectoryDir();
        try {
          const p = await get();
          const rolled = await rollOut(env, task, oracle(task), p, dir);
          const reward = rewardEvent(rolled.events);
          assert.equal(reward?.total, 1, JSON.stringify(reward?.components ?? rolled.events.filter((e) => e.type === "error")));
          // Without the solution the same check fails: it judges, it does not pass everything.
          const nopped = await rollOut(env, task, nop(), p, dir);
          assert.equal(rewardEvent(nopped.events)?.total, 0);
        } finally {
          cleanup();
        }
      });
    }

    test("no link out of the environment brings a host file into the sandbox", { skip }, async () => {
      const secret = `rlenv-secret-${randomBytes(8).toString("hex")}`;
      const { env, problems } = loadEnvironment(linkEnv(secret));
      assert.deepEqual(problems.map((x) => x.message.replace(/ \(to .*\)$/, "")).sort(), [
        "'tasks/t1/files/etc' links outside the environment",
        "'tasks/t1/files/passwd' links outside the environment",
        "'tasks/t1/solution/leak.txt' links outside the environment",
        "'tasks/t1/tests/leak.txt' links outside the environment",
        "'tasks/t2' links outside the environment",
      ]);
      assert.ok(env);
      const task = env.tasks[0];
      assert.ok(task);
      assert.deepEqual(
        env.tasks.map((t) => t.id),
        ["t1"],
      );
      for (const m of [task.files, task.tests?.files, task.solution?.files])
        for (const c of Object.values(m ?? {})) assert.ok(!JSON.stringify(c).includes(secret));
      // Even rolled out despite the errors, nothing of the host is there.
      const { dir, cleanup } = trajectoryDir();
      try {
        const rolled = await rollOut(env, task, oracle(task), await get(), dir);
        const reward = rewardEvent(rolled.events);
        assert.equal(reward?.total, 1, JSON.stringify(reward?.components ?? rolled.events.filter((e) => e.type === "error")));
      } finally {
        cleanup();
      }
    });
  });
}
