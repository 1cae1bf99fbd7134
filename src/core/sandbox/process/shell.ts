import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import type { Writable } from "node:stream";
import { DEFAULT_SHELL, ShellEvents } from "../shell-common";
import { closingInherited } from "./close-fds";
import type { SandboxShell, ShellOptions } from "../../model/sandbox";
import { shq } from "../../util/shell-quote";

/**
 * Node has no pty without a native addon, so the pty is made inside the sandbox, by the
 * host's Python (visible there through the read-only /usr) in a new devpts: the process runs
 * on the pty's slave; this relays stdin to the master and the master to stdout, and reads
 * "cols rows" lines on fd 3 to resize (the kernel then sends SIGWINCH). It exits with the
 * command's status (128+n for a signal).
 */
const PTY_RELAY = String.raw`
import os, sys, select, fcntl, termios, struct, errno
cols, rows, argv = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
def size(fd, c, r): fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", r, c, 0, 0))
master, slave = os.openpty()
size(master, cols, rows)  # before the fork: a resize read from fd 3 can only come later
pid = os.fork()
if pid == 0:
    os.setsid()
    fcntl.ioctl(slave, termios.TIOCSCTTY, 0)
    for fd in (0, 1, 2): os.dup2(slave, fd)
    for fd in (slave, master, 3): os.close(fd)
    try: os.execvp(argv[0], argv)
    except OSError as e: sys.stderr.write(f"cannot run {argv[0]}: {e}\n"); os._exit(127)
os.close(slave)
inputs, ctl = [0, 3, master], b""
while master in inputs:
    for fd in select.select(inputs, [], [])[0]:
        try: data = os.read(fd, 65536)
        except OSError as e:
            if e.errno != errno.EIO: raise
            data = b""
        if fd == master:
            if not data: inputs.remove(master)
            else: os.write(1, data)
        elif not data: inputs.remove(fd)
        elif fd == 0: os.write(master, data)
        else:
            ctl += data
            while b"\n" in ctl:
                line, ctl = ctl.split(b"\n", 1)
                c, r = map(int, line.split())
                size(master, c, r)
_, status = os.waitpid(pid, 0)
sys.exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status))
`;

/** Host argv, environment and cwd that run argv inside the sandbox. */
export type IsolatedSpawn = (argv: string[], env: Record<string, string>) => { full: string[]; env: Record<string, string>; cwd: string };

/** Opens an interactive shell through the sandbox's own isolation (bwrap/unshare, cgroup, rlimits). */
export async function openProcessShell(isolate: IsolatedSpawn, opts: ShellOptions = {}): Promise<SandboxShell> {
  const cols = opts.cols ?? 80;
  const rows = opts.rows ?? 24;
  const command = opts.command ?? DEFAULT_SHELL;
  const env = { TERM: "xterm-256color", ...opts.env };
  const python = existsSync("/usr/bin/python3");
  // Without Python: util-linux `script` makes the pty (no resizing then: it sizes from its own stdin, a pipe).
  const argv = python
    ? ["/usr/bin/python3", "-c", PTY_RELAY, String(cols), String(rows), ...command]
    : ["script", "-q", "-e", "-c", `stty cols ${cols} rows ${rows}; exec ${command.map(shq).join(" ")}`, "/dev/null"];
  const spec = isolate(argv, env);
  // fd 3 is the resize channel: kept; everything above it closed (see close-fds.ts).
  const full = closingInherited(spec.full, 3);
  const child = spawn(full[0] ?? "", full.slice(1), {
    detached: true,
    env: spec.env,
    cwd: spec.cwd,
    stdio: ["pipe", "pipe", "pipe", "pipe"],
  });
  const control = child.stdio[3] as Writable;
  const events = new ShellEvents();
  let killed = false;
  child.stdout.on("data", (d: Buffer) => events.data(d));
  child.stderr.on("data", (d: Buffer) => events.data(d));
  for (const s of [child.stdin, control]) s.on("error", () => {}); // the shell may be gone before a write lands
  const finished = new Promise<void>((resolve) => {
    child.on("error", (e) => events.data(Buffer.from(`could not start the sandbox shell: ${e.message}\r\n`)));
    child.on("close", (code, sig) => {
      events.exited(killed || sig !== null ? null : code);
      resolve();
    });
  });
  return {
    write: (data) => {
      if (events.running) child.stdin.write(data);
    },
    resize: (c, r) => {
      if (events.running && python) control.write(`${Math.max(1, Math.floor(c))} ${Math.max(1, Math.floor(r))}\n`);
    },
    onData: events.onData,
    onExit: events.onExit,
    close: async () => {
      if (!events.running) return;
      killed = true;
      // The group holds bwrap (or unshare); its death takes the sandbox's pid namespace, so every process the shell started, with it.
      if (child.pid !== undefined) {
        try {
          process.kill(-child.pid, "SIGKILL");
        } catch {}
      }
      await finished;
    },
  };
}
