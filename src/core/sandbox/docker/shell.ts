import { randomBytes } from "node:crypto";
import type { Duplex } from "node:stream";
import type Docker from "dockerode";
import { DEFAULT_SHELL, ShellEvents } from "../shell-common";
import type { ExecResult, SandboxShell, ShellOptions } from "../../model/sandbox";

export interface DockerShellTarget {
  container: Docker.Container;
  workdir: string;
  user: string;
  /** Runs a command in the sandbox (its agent): how close kills the shell's session. */
  exec(argv: string[]): Promise<ExecResult>;
}

/**
 * Kills every process of one session: the shell and whatever it started, foreground or
 * background, since Docker has no "kill this exec". Python is in every sandbox image (the agent).
 */
const KILL_SESSION = [
  "import os, sys, time",
  // A shell closed right after it opened may not have written its pid yet: wait for it (bounded).
  "for _ in range(100):",
  "    if os.path.exists(sys.argv[1]) and open(sys.argv[1]).read().strip(): break",
  "    time.sleep(0.02)",
  "sid = int(open(sys.argv[1]).read())",
  "for p in os.listdir('/proc'):",
  "    if p.isdigit():",
  "        try:",
  "            if os.getsid(int(p)) == sid: os.kill(int(p), 9)",
  "        except OSError: pass",
].join("\n");

/**
 * A `docker exec` with a TTY as the sandbox's user in its workdir. The exec's process first
 * writes its pid (its session id: Docker starts TTY execs in a new session) to /tmp so close
 * can kill the whole session from inside the container.
 */
export async function openDockerShell(t: DockerShellTarget, opts: ShellOptions = {}): Promise<SandboxShell> {
  const pidFile = `/tmp/.rlenv-shell-${randomBytes(6).toString("hex")}`;
  const argv = opts.command ?? DEFAULT_SHELL;
  const env = { HOME: t.workdir, TERM: "xterm-256color", LANG: "C.UTF-8", ...opts.env };
  const size = opts.cols && opts.rows ? `stty cols ${Math.floor(opts.cols)} rows ${Math.floor(opts.rows)} 2>/dev/null; ` : "";
  const exec = await t.container.exec({
    // The first size is set inside, before the shell starts: an exec resize only works once the exec runs.
    Cmd: ["/bin/sh", "-c", `echo $$ > "$0"; ${size}exec "$@"`, pidFile, ...argv],
    AttachStdin: true,
    AttachStdout: true,
    AttachStderr: true,
    Tty: true,
    WorkingDir: t.workdir,
    User: t.user,
    Env: Object.entries(env).map(([k, v]) => `${k}=${v}`),
  });
  const stream = (await exec.start({ hijack: true, stdin: true, Tty: true })) as unknown as Duplex;
  const events = new ShellEvents();
  // One resize at a time: concurrent requests may land out of order and leave an old size.
  let resizing = Promise.resolve();
  const resize = (cols: number, rows: number) => {
    resizing = resizing.then(() => exec.resize({ h: rows, w: cols }).catch(() => {})); // an exec that already ended has no TTY to size
  };
  stream.on("data", (d: Buffer) => events.data(d));
  stream.on("error", () => {}); // the end is reported through close below
  let killed = false;
  const finished = new Promise<void>((resolve) => {
    stream.once("close", async () => {
      let code: number | null = null;
      if (!killed) {
        try {
          code = (await exec.inspect()).ExitCode ?? null;
        } catch {}
      }
      t.exec(["rm", "-f", pidFile]).catch(() => {});
      events.exited(code);
      resolve();
    });
  });
  return {
    write: (data) => {
      if (events.running) stream.write(data);
    },
    resize,
    onData: events.onData,
    onExit: events.onExit,
    close: async () => {
      if (!events.running) return;
      killed = true;
      await t.exec(["python3", "-c", KILL_SESSION, pidFile]);
      stream.end();
      await finished;
    },
  };
}
