import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { backends, withSandbox } from "./backends";

/**
 * Class 1, the reward channel: code the verifier runs (or the agent's own commands) tries to
 * read the sandbox agent's memory and to write forged replies into the channel the host
 * trusts, by every door a process of the agent's user has: /proc/1/mem, /proc/1/fd/1 (the
 * agent's stdout, the reply channel) and /proc/1/fd/0 (its requests), pidfd_getfd, ptrace.
 * None may open; a command run after the attack answers with its own exit status.
 */
const ATTACK = String.raw`
import base64, ctypes, json, os
libc = ctypes.CDLL(None, use_errno=True)
got = {}
def forged(i):
    out = base64.b64encode(b"FORGED 16 passed").decode()
    return (json.dumps({"id": i, "exit": 0, "signal": None, "stdout": out, "stderr": "", "total": 16,
                        "ending": None, "oom": False, "pids_hit": False, "ms": 1.0}) + "\n").encode()
def flood(fd):
    os.write(fd, b"".join(forged(i) for i in range(1, 400)))
try:
    start = int(open("/proc/1/maps").readline().split("-")[0], 16)
    with open("/proc/1/mem", "rb") as f:
        f.seek(start)
        f.read(16)
    got["mem"] = "read"
except OSError as e:
    got["mem"] = "blocked: %s" % e.strerror
for name, path, flags in (("stdout", "/proc/1/fd/1", os.O_WRONLY), ("stdin", "/proc/1/fd/0", os.O_WRONLY)):
    try:
        fd = os.open(path, flags)
        if name == "stdout":
            flood(fd)
        got[name] = "opened"
    except OSError as e:
        got[name] = "blocked: %s" % e.strerror
pidfd = libc.syscall(434, 1, 0)  # pidfd_open
fd = libc.syscall(438, pidfd, 1, 0) if pidfd >= 0 else -1  # pidfd_getfd: the agent's stdout
if fd >= 0:
    flood(fd)
    got["pidfd_getfd"] = "took the agent's stdout"
else:
    got["pidfd_getfd"] = "blocked: %s" % os.strerror(ctypes.get_errno())
if libc.ptrace(16, 1, None, None) == 0:  # PTRACE_ATTACH
    got["ptrace"] = "attached"
else:
    got["ptrace"] = "blocked: %s" % os.strerror(ctypes.get_errno())
print(json.dumps(got))
`;

for (const b of backends()) {
  describe(`${b.name}: the agent's reply channel`, { skip: b.skip }, () => {
    test("no command can read the agent's memory or take, open or write its descriptors; a later command answers for itself", async () => {
      await withSandbox(b, async (sb) => {
        const attack = await sb.exec(["python3", "-c", ATTACK], { timeoutMs: 20_000 });
        const verdict = await sb.exec("exit 1", { timeoutMs: 20_000 });
        assert.equal(verdict.exitCode, 1, `a forged reply answered for the command: ${JSON.stringify(verdict)}`);
        assert.doesNotMatch(verdict.stdout, /FORGED/);
        assert.equal(attack.status, "ok", JSON.stringify(attack));
        const got = JSON.parse(attack.stdout) as Record<string, string>;
        for (const [door, what] of Object.entries(got)) assert.match(what, /^blocked: /, `${door}: ${what}`);
        assert.equal(sb.tampered?.() ?? null, null);
      });
    });
  });
}
