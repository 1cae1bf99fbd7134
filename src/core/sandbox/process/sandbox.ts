import { spawn } from "node:child_process";
import { access, rm } from "node:fs/promises";
import path from "node:path";
import type { FileDiff } from "../../schema/trajectory";
import { diffFiles, seedMap } from "../diff";
import { emptyDir, readInside, readTree, writeTree } from "../host-files";
import { OutputCollector } from "../output";
import { relativeToWorkdir, resolveSandboxPath } from "../paths";
import type { ExecOptions, ExecResult, Sandbox, SandboxRequest, SandboxShell, ShellOptions } from "../types";
import type { SandboxCgroup } from "./cgroup";
import { type ExecLayout, type IsolationMode, isolatedArgv } from "./isolation";
import { openProcessShell } from "./shell";

const PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/** Host folders backing one process sandbox. */
export interface ProcessSandboxDirs {
  root: string;
  work: string;
  tmp: string;
  mnt: string;
}

function parseUser(user: string | undefined): { uid: number; gid: number } {
  const [u, g] = (user ?? "1000:1000").split(":");
  const uid = Number(u);
  const gid = Number(g ?? u);
  return { uid: Number.isInteger(uid) ? uid : 1000, gid: Number.isInteger(gid) ? gid : 1000 };
}

/**
 * A sandbox made of host folders (workdir, /tmp) and, per exec, a fresh isolated process
 * tree (bubblewrap or unshare namespaces) in a cgroup shared by the sandbox's commands.
 */
export class ProcessSandbox implements Sandbox {
  readonly backend = "process" as const;
  readonly workdir: string;
  private seed = new Map<string, Buffer>();
  private readonly running = new Set<() => void>();
  private closed = false;
  /** Times this sandbox killed its own commands wholesale (a timeout, a reset): a kill it did not count came from outside. */
  private ownKills = 0;
  private readonly user: { uid: number; gid: number };

  constructor(
    readonly id: string,
    private readonly req: SandboxRequest,
    private readonly dirs: ProcessSandboxDirs,
    private readonly mode: IsolationMode,
    private readonly cgroup: SandboxCgroup | null,
    private readonly onClose: (s: ProcessSandbox) => void,
  ) {
    // Without namespaces the command sees the host folder itself.
    this.workdir = mode === "none" ? dirs.work : req.workdir;
    this.user = parseUser(req.user);
  }

  /** Where the sandbox sees /tmp: its own host folder when nothing is namespaced. */
  private get tmpRoot(): string {
    return this.mode === "none" ? this.dirs.tmp : "/tmp";
  }

  private hostPath(insidePath: string): string {
    const abs = resolveSandboxPath(this.workdir, insidePath, [this.workdir, this.tmpRoot]);
    const tmpRoot = this.tmpRoot;
    if (abs === tmpRoot || abs.startsWith(`${tmpRoot}/`)) return path.join(this.dirs.tmp, path.posix.relative(tmpRoot, abs));
    return path.join(this.dirs.work, relativeToWorkdir(this.workdir, abs));
  }

  async exec(command: string | string[], opts: ExecOptions = {}): Promise<ExecResult> {
    const started = performance.now();
    if (this.closed) return { status: "error", exitCode: null, stdout: "", stderr: "", durationMs: 0, reason: "sandbox is closed" };
    const argv = typeof command === "string" ? ["/bin/sh", "-c", command] : command;
    let cwd: string;
    try {
      cwd = resolveSandboxPath(this.workdir, opts.cwd ?? ".", [this.workdir, this.tmpRoot]);
    } catch (e) {
      return { status: "error", exitCode: null, stdout: "", stderr: "", durationMs: 0, reason: (e as Error).message };
    }
    const { full, env } = this.isolated(argv, cwd, opts.env);
    const oomBefore = this.cgroup?.oomKills() ?? 0;
    const pidsBefore = this.cgroup?.pidsLimitHits() ?? 0;
    const out = new OutputCollector(opts.maxOutputBytes ?? this.req.limits.outputBytes);
    const ownKillsBefore = this.ownKills;

    return new Promise<ExecResult>((resolve) => {
      const child = spawn(full[0] ?? "", full.slice(1), {
        detached: true,
        env,
        cwd: this.mode === "none" ? cwd : this.dirs.root,
        stdio: ["pipe", "pipe", "pipe"],
      });
      let ending: "timeout" | "killed" | null = null;
      let spawnError: Error | null = null;
      const killTree = () => {
        this.ownKills++;
        if (child.pid !== undefined) {
          try {
            process.kill(-child.pid, "SIGKILL");
          } catch {}
        }
        this.cgroup?.killAll();
      };
      const onAbort = () => {
        ending ??= "killed";
        killTree();
      };
      this.running.add(onAbort);
      const timer = opts.timeoutMs
        ? setTimeout(() => {
            ending ??= "timeout";
            killTree();
          }, opts.timeoutMs)
        : null;
      if (opts.signal?.aborted) onAbort();
      opts.signal?.addEventListener("abort", onAbort, { once: true });
      child.stdout.on("data", (c: Buffer) => out.push("stdout", c));
      child.stderr.on("data", (c: Buffer) => out.push("stderr", c));
      child.stdin.on("error", () => {}); // a command that ignores stdin closes the pipe early
      child.stdin.end(opts.stdin ?? "");
      child.on("error", (e) => {
        spawnError = e;
      });
      child.on("close", (code, sig) => {
        if (timer) clearTimeout(timer);
        opts.signal?.removeEventListener("abort", onAbort);
        this.running.delete(onAbort);
        const durationMs = performance.now() - started;
        const o = out.result();
        if (spawnError) {
          resolve({ status: "error", exitCode: null, ...o, durationMs, reason: `could not start the sandbox: ${spawnError.message}` });
          return;
        }
        // bwrap reports a signal death of its child as 128+signal.
        const signalled = sig !== null || (code !== null && code > 128 && this.mode !== "none");
        const exitCode = sig !== null ? null : code;
        const oom = (this.cgroup?.oomKills() ?? 0) > oomBefore;
        const forkRefused = (this.cgroup?.pidsLimitHits() ?? 0) > pidsBefore;
        if (ending === "timeout") {
          resolve({
            status: "timeout",
            exitCode: null,
            ...o,
            durationMs,
            reason: `killed after ${(opts.timeoutMs ?? 0) / 1000} s timeout`,
          });
        } else if (ending === "killed") {
          resolve({ status: "killed", exitCode: null, ...o, durationMs, reason: "cancelled" });
        } else if (oom && signalled) {
          resolve({
            status: "oom",
            exitCode: null,
            ...o,
            durationMs,
            reason: `out of memory (OOM kill at the ${this.req.limits.memoryBytes} byte limit)`,
          });
        } else if (sig !== null && this.mode !== "none" && this.ownKills === ownKillsBefore) {
          // The isolating process itself (outside the command's namespaces, where the command
          // cannot reach it) died of a signal nobody here sent: the sandbox was killed from outside.
          resolve({
            status: "error",
            exitCode: null,
            ...o,
            durationMs,
            reason: `the sandbox's processes were killed from outside (${sig})`,
            sandboxLost: true,
          });
        } else {
          resolve({
            status: "ok",
            exitCode,
            ...o,
            durationMs,
            ...(forkRefused ? { reason: `fork refused: pids limit of ${this.req.limits.pids} reached` } : {}),
          });
        }
      });
    });
  }

  /** The host argv and environment that run argv isolated like every exec: namespaces, cgroup or rlimits. */
  private isolated(argv: string[], cwd: string, extraEnv?: Record<string, string>): { full: string[]; env: Record<string, string> } {
    const layout: ExecLayout = {
      hostWork: this.dirs.work,
      hostTmp: this.dirs.tmp,
      hostRoot: this.dirs.mnt,
      workdir: this.workdir,
      cwd,
      ...this.user,
    };
    let full = isolatedArgv(this.mode, layout, argv);
    if (!this.cgroup && this.mode !== "none") {
      // No cgroup to write: fall back to rlimits (address space for memory, so a big
      // allocation fails with ENOMEM instead of an OOM kill). RLIMIT_NPROC is left alone: it
      // counts every process of the host user, so it would refuse forks for unrelated reasons.
      full = ["prlimit", `--as=${this.req.limits.memoryBytes}`, "--", ...full];
    }
    if (this.cgroup) {
      // Join the cgroup before exec so nothing the command forks escapes the limits.
      const join = 'n=$1; shift; while [ "$n" -gt 0 ]; do echo $$ > "$1/cgroup.procs" || exit 125; shift; n=$((n-1)); done; exec "$@"';
      full = ["/bin/sh", "-c", join, "sh", String(this.cgroup.dirs.length), ...this.cgroup.dirs, ...full];
    }
    return { full, env: { PATH, HOME: this.workdir, LANG: "C.UTF-8", TMPDIR: this.tmpRoot, ...extraEnv } };
  }

  /** An interactive shell under the same isolation as exec, on a pty made inside the sandbox (see ./shell.ts). */
  async shell(opts?: ShellOptions): Promise<SandboxShell> {
    if (this.closed) throw new Error("the sandbox is closed: no shell can start in it");
    return openProcessShell((argv, env) => {
      const { full, env: fullEnv } = this.isolated(argv, this.workdir, env);
      return { full, env: fullEnv, cwd: this.mode === "none" ? this.workdir : this.dirs.root };
    }, opts);
  }

  async writeFiles(files: Record<string, string | Buffer>, opts: { mode?: number } = {}): Promise<void> {
    const mapped: Record<string, string | Buffer> = {};
    for (const [p, c] of Object.entries(files)) mapped[path.relative(this.dirs.root, this.hostPath(p))] = c;
    // Under unshare the commands run as the sandbox user on these very host files, so that
    // user must own them (bwrap maps the host user onto the sandbox user, so it already does).
    await writeTree(this.dirs.root, mapped, opts.mode, this.mode === "unshare" ? this.user : undefined);
  }

  async readFiles(paths: string[]): Promise<Record<string, Buffer | null>> {
    const out: Record<string, Buffer | null> = {};
    for (const p of paths) out[p] = await readInside(this.dirs.root, this.hostPath(p));
    return out;
  }

  async diff(): Promise<FileDiff[]> {
    return diffFiles(this.seed, await readTree(this.dirs.work));
  }

  /** Liveness (see Sandbox.probe): nothing runs between commands here, so its folders (and cgroup) must still be there. */
  async probe(): Promise<string | null> {
    if (this.closed) return "the sandbox is closed";
    for (const dir of [this.dirs.work, this.dirs.tmp, ...(this.cgroup?.dirs ?? [])]) {
      try {
        await access(dir);
      } catch {
        return `the sandbox's ${dir} is gone`;
      }
    }
    return null;
  }

  async reset(seed: Record<string, string | Buffer>): Promise<void> {
    this.ownKills++;
    for (const abort of this.running) abort();
    this.cgroup?.killAll();
    await emptyDir(this.dirs.work);
    await emptyDir(this.dirs.tmp);
    this.seed = seedMap(seed);
    await this.writeFiles(seed);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const abort of this.running) abort();
    await this.cgroup?.remove();
    await rm(this.dirs.root, { recursive: true, force: true });
    this.onClose(this);
  }
}
