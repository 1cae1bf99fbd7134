import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import Docker from "dockerode";
import { DockerSandboxProvider } from "../../src/core/sandbox/docker/provider";
import type { Sandbox } from "../../src/core/model/sandbox";
import { missing } from "../support/services";
import { request } from "./sandbox-contract";

/**
 * The docker sandbox's ways around a process start: workdir files written by the agent
 * itself (putWorkdirFiles, exec's writeFirst) and a command line of plain words run as its
 * argv. Each must answer exactly as the shell scripts and `sh -c` they replace.
 */
const skip = missing("docker") || missing("image");
const image = process.env.RLENV_TEST_IMAGE ?? "rlenv/python:bookworm";

describe("docker sandbox fast paths", { skip }, () => {
  let provider: DockerSandboxProvider;
  let sb: Sandbox;
  before(async () => {
    provider = await DockerSandboxProvider.create({ docker: new Docker(), warm: 0 });
    sb = await provider.acquire(request({}, image));
  });
  after(async () => {
    await sb?.close();
    await provider?.shutdown();
  });
  const sh = async (command: string) => (await sb.exec(["sh", "-c", command])).stdout;

  test("putWorkdirFiles writes text into new folders and through links that stay in the workdir", async () => {
    await sb.reset({ "real.txt": "old\n" });
    await sh("ln -s real.txt alias.txt");
    assert.deepEqual(await sb.putWorkdirFiles?.({ files: { "a/b/c.txt": "deep ✓\n", "alias.txt": "new\n" }, links: "follow" }), {
      ok: true,
    });
    assert.equal(await sh("cat a/b/c.txt real.txt; test -L alias.txt && echo link"), "deep ✓\nnew\nlink\n");
  });

  test("putWorkdirFiles refuses what resolves outside the workdir, and folders", async () => {
    await sb.reset({});
    await sh("ln -s /tmp out; ln -s /etc/hostname host; mkdir dir");
    const refused = async (files: Record<string, string>, links: "follow" | "replace", message: RegExp) => {
      const r = await sb.putWorkdirFiles?.({ files, links });
      assert.equal(r?.ok, false, JSON.stringify(files));
      assert.match(r && !r.ok ? r.message : "", message);
    };
    await refused({ "out/planted.txt": "x" }, "follow", /^'out\/planted\.txt' resolves to \/tmp\/planted\.txt, outside the workdir$/);
    await refused({ "out/planted.txt": "x" }, "replace", /outside the workdir/);
    await refused({ host: "x" }, "follow", /^'host' resolves to \/etc\/hostname, outside the workdir$/);
    await refused({ dir: "x" }, "follow", /^'dir' is a folder$/);
    assert.equal(await sh("ls -A /tmp"), "");
  });

  test("putWorkdirFiles with replace removes a link at the file's path and writes a plain file", async () => {
    await sb.reset({ "target.txt": "keep\n" });
    await sh("ln -s target.txt check.py; ln -s /etc/hostname other.py");
    assert.deepEqual(await sb.putWorkdirFiles?.({ files: { "check.py": "print(1)\n", "other.py": "print(2)\n" }, links: "replace" }), {
      ok: true,
    });
    assert.equal(await sh("cat target.txt check.py other.py; find . -type l | wc -l"), "keep\nprint(1)\nprint(2)\n0\n");
  });

  test("exec writeFirst writes the files in the same step, and a refusal ends the exec as an error", async () => {
    await sb.reset({});
    const r = await sb.exec("cat hidden/t.py", { writeFirst: { files: { "hidden/t.py": "secret\n" }, links: "replace" } });
    assert.equal(r.stdout, "secret\n");
    await sh("ln -s /tmp escape");
    const bad = await sb.exec("cat escape/t.py", { writeFirst: { files: { "escape/t.py": "x" }, links: "replace" } });
    assert.equal(bad.status, "error");
    assert.match(bad.reason ?? "", /could not write the files first: 'escape\/t\.py' resolves to \/tmp\/t\.py, outside the workdir/);
  });

  test("a command line of plain words answers as sh -c would: missing 127, not executable 126, builtins kept", async () => {
    await sb.reset({ "script.txt": "echo from-sh\n", "noexec.sh": "echo hi\n" });
    const missingProgram = await sb.exec("no-such-program --flag");
    assert.equal(missingProgram.exitCode, 127);
    assert.match(missingProgram.stderr, /no-such-program: not found/);
    const notExecutable = await sb.exec("./noexec.sh");
    assert.equal(notExecutable.exitCode, 126);
    assert.match(notExecutable.stderr, /Permission denied/);
    await sh("chmod +x script.txt");
    assert.equal((await sb.exec("./script.txt")).stdout, "from-sh\n", "a script without #! is run by sh");
    assert.equal((await sb.exec("echo -n x")).stdout, "x", "the builtin echo, as sh -c runs it");
    assert.equal((await sb.exec("exit 3")).exitCode, 3);
    const words = await sb.exec("ls -A", { env: { LC_ALL: "C" } });
    assert.equal(words.stdout, "noexec.sh\nscript.txt\n");
  });
});
