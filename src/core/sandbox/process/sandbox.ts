import { access, rm } from "node:fs/promises";
import path from "node:path";
import type { FileDiff } from "../../schema/trajectory";
import { agentExec, execResultOf, failedExec, putRequest } from "../agent/agent-exec";
import { answerWithin, pingAgent, resetFailure, resetRequest, SILENT, WIPED } from "../agent/probe-and-reset";
import { diffFiles, seedMap } from "../diff";
import { emptyDir, readInside, readTree, writeTree } from "../host-files";
import { relativeToWorkdir, resolveSandboxPath } from "../paths";
import { TreeBudget } from "../read-bounds";
import type { ExecOptions, ExecResult, Sandbox, SandboxRequest, SandboxShell, ShellOptions, WorkdirFiles } from "../../model/sandbox";
import type { AgentProcess, IsolatedLaunch } from "./agent-process";
import type { SandboxCgroup } from "./cgroup";
import { unmountDisk } from "./disk";
import { hostIdentity } from "./host-identity";
import { type ExecLayout, type IsolationMode, isolatedArgv } from "./isolation";
import { openProcessShell } from "./shell";
import { spawnExec } from "./spawn-exec";

const PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
/** How long a closed sandbox's wipe may take before it is destroyed instead of handed on. */
const RECYCLE_WIPE_MS = 10_000;

/** Host folders backing one process sandbox. */
export interface ProcessSandboxDirs {
  root: string;
  work: string;
  tmp: string;
  mnt: string;
}

export function parseUser(user: string | undefined): { uid: number; gid: number } {
  const [u, g] = (user ?? "1000:1000").split(":");
  const uid = Number(u);
  const gid = Number(g ?? u);
  return { uid: Number.isInteger(uid) ? uid : 1000, gid: Number.isInteger(gid) ? gid : 1000 };
}

/** Where a process sandbox's pieces are: its host folders, isolation, cgroup and (where it has one) its agent. */
export interface ProcessSandboxParts {
  dirs: ProcessSandboxDirs;
  mode: IsolationMode;
  cgroup: SandboxCgroup | null;
  /** The long-lived agent inside the sandbox's namespaces; null: each command gets its own (see spawn-exec.ts). */
  agent: AgentProcess | null;
}

/** The host argv, environment and cwd that run argv isolated in a sandbox's folders: namespaces, cgroup or rlimits. */
export function isolatedLaunch(
  req: SandboxRequest,
  parts: Omit<ProcessSandboxParts, "agent">,
  workdir: string,
  argv: string[],
  cwd: string,
  extraEnv?: Record<string, string>,
  asInit = false,
): IsolatedLaunch {
  const { dirs, mode, cgroup } = parts;
  const layout: ExecLayout = {
    hostWork: dirs.work,
    hostTmp: dirs.tmp,
    hostRoot: dirs.mnt,
    workdir,
    cwd,
    ...parseUser(req.user),
    ...(asInit ? { asInit } : {}),
  };
  const host = mode === "bwrap" ? hostIdentity(mode, parseUser(req.user)) : null;
  if (host) layout.host = host;
  let full = isolatedArgv(mode, layout, argv);
  const rlimits: string[] = [];
  // No cgroup to write: fall back to rlimits (address space for memory, so a big
  // allocation fails with ENOMEM instead of an OOM kill). RLIMIT_NPROC is left alone: it
  // counts every process of the host user, so it would refuse forks for unrelated reasons.
  if (!cgroup && mode !== "none") rlimits.push(`--as=${req.limits.memoryBytes}`);
  // The workdir and /tmp are host folders: the file size limit keeps a runaway writer off the host's disk.
  if (req.limits.fileBytes !== undefined) rlimits.push(`--fsize=${req.limits.fileBytes}`);
  if (rlimits.length > 0) full = ["prlimit", ...rlimits, "--", ...full];
  if (cgroup) {
    // Join the cgroup before exec so nothing the command forks escapes the limits.
    const join = 'n=$1; shift; while [ "$n" -gt 0 ]; do echo $$ > "$1/cgroup.procs" || exit 125; shift; n=$((n-1)); done; exec "$@"';
    full = ["/bin/sh", "-c", join, "sh", String(cgroup.dirs.length), ...cgroup.dirs, ...full];
  }
  const tmp = mode === "none" ? dirs.tmp : "/tmp";
  return {
    full,
    env: { PATH, HOME: workdir, LANG: "C.UTF-8", TMPDIR: tmp, ...extraEnv },
    cwd: mode === "none" ? cwd : dirs.root,
  };
}

/**
 * A sandbox made of host folders (workdir, /tmp) and one isolated process tree (bubblewrap or
 * unshare namespaces) in a cgroup: the agent (agent.py, as in a docker container) lives in it
 * for the sandbox's whole life and spawns each command there. Files the host reads and writes
 * go straight to the host folders; reset and the files an exec writes first go through the
 * agent in the same round trip. Without an agent (see ProcessSandboxParts) each command gets
 * its own namespaces.
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
  private readonly dirs: ProcessSandboxDirs;
  private readonly mode: IsolationMode;
  private readonly cgroup: SandboxCgroup | null;
  private readonly agent: AgentProcess | null;
  /** Why a reset could not prove the sandbox clean: it is lost from then on. */
  private spoiled: string | null = null;
  /** Nothing has run or been written since the sandbox started: the first reset only writes the seed. */
  private pristine = true;

  constructor(
    readonly id: string,
    private readonly req: SandboxRequest,
    private readonly parts: ProcessSandboxParts,
    /** Where close hands the sandbox: the provider recycles it (see recycled) or destroys it. */
    private readonly release: (s: ProcessSandbox) => Promise<void>,
  ) {
    this.dirs = parts.dirs;
    this.mode = parts.mode;
    this.cgroup = parts.cgroup;
    this.agent = parts.agent;
    // Without namespaces the command sees the host folder itself.
    this.workdir = this.mode === "none" ? this.dirs.work : req.workdir;
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

  private launch(argv: string[], cwd: string, env?: Record<string, string>): IsolatedLaunch {
    return isolatedLaunch(this.req, { dirs: this.dirs, mode: this.mode, cgroup: this.cgroup }, this.workdir, argv, cwd, env);
  }

  async exec(command: string | string[], opts: ExecOptions = {}): Promise<ExecResult> {
    const started = performance.now();
    const fail = (reason: string): ExecResult => failedExec(started, reason);
    if (this.closed) return fail("sandbox is closed");
    let cwd: string;
    try {
      cwd = resolveSandboxPath(this.workdir, opts.cwd ?? ".", [this.workdir, this.tmpRoot]);
    } catch (e) {
      return fail((e as Error).message);
    }
    this.pristine = false;
    if (!this.agent) {
      const argv = typeof command === "string" ? ["/bin/sh", "-c", command] : command;
      return spawnExec(this.launch(argv, cwd, opts.env), opts, {
        req: this.req,
        cgroup: this.cgroup,
        isolated: this.mode !== "none",
        killAll: () => {
          this.ownKills++;
          this.cgroup?.killAll();
        },
        ownKills: () => this.ownKills,
        track: (abort) => {
          this.running.add(abort);
          return () => this.running.delete(abort);
        },
      });
    }
    const tamper = this.tampered();
    if (tamper) return fail(tamper);
    if (this.spoiled) return { ...fail(this.spoiled), sandboxLost: true };
    if (opts.signal?.aborted) return { ...fail("cancelled"), status: "killed" };
    // The cgroup's counters (the agent cannot see /sys): read around the command, as the agent does its own.
    const oomBefore = this.cgroup?.oomKills() ?? 0;
    const pidsBefore = this.cgroup?.pidsLimitHits() ?? 0;
    const agent = this.agent;
    const done = await agentExec(agent.client, command, cwd, opts, this.req, this.workdir, () => agent.killCommands());
    if ("lost" in done) {
      // Written into from inside: the model's doing, not a lost sandbox (see ChannelTampered).
      if (agent.client.tamper) return fail(agent.client.tamper.message);
      const why = this.agent.broken ?? done.lost.message;
      return { ...fail(why), sandboxLost: true };
    }
    const hits = this.cgroup
      ? { oom: this.cgroup.oomKills() > oomBefore, pidsHit: this.cgroup.pidsLimitHits() > pidsBefore }
      : { oom: false, pidsHit: false };
    return execResultOf(done.reply, opts, this.req, started, hits);
  }

  /** An interactive shell under the same isolation as exec, on a pty made inside the sandbox (see ./shell.ts). */
  async shell(opts?: ShellOptions): Promise<SandboxShell> {
    if (this.closed) throw new Error("the sandbox is closed: no shell can start in it");
    this.pristine = false;
    return openProcessShell((argv, env) => this.launch(argv, this.workdir, env), opts);
  }

  /** Every process but the agent killed, files untouched (see Sandbox.stopProcesses). */
  async stopProcesses(): Promise<string[]> {
    if (this.closed) throw new Error("sandbox is closed");
    if (!this.agent) {
      this.ownKills++;
      this.cgroup?.killAll();
      return [];
    }
    const r = await this.agent.client.request({ op: "wipe", paths: [] });
    if (r.error) throw new Error(`stopping the sandbox's processes: ${r.error}`);
    return [...(r.left ?? []), ...(await this.agent.clearFromHost(this.cgroup))];
  }

  /** Writes text files into the workdir through the agent: links resolve as the sandbox sees them (see Sandbox.putWorkdirFiles). */
  async putWorkdirFiles(w: WorkdirFiles): Promise<{ ok: true } | { ok: false; message: string }> {
    if (this.closed) throw new Error("sandbox is closed");
    if (!this.agent) throw new Error("this sandbox has no agent to write files from inside");
    this.pristine = false;
    const r = await this.agent.client.request({ op: "put", ...putRequest(this.workdir, w) });
    if (r.refused) return { ok: false, message: r.error ?? "refused" };
    if (r.error) throw new Error(`writing ${Object.keys(w.files).join(", ")}: ${r.error}`);
    return { ok: true };
  }

  async writeFiles(files: Record<string, string | Buffer>, opts: { mode?: number } = {}): Promise<void> {
    const mapped: Record<string, string | Buffer> = {};
    for (const [p, c] of Object.entries(files)) mapped[path.relative(this.dirs.root, this.hostPath(p))] = c;
    this.pristine = false;
    // The commands run as the sandbox user's host identity on these very host files, so it must
    // own them (bwrap started by another user maps that user onto the sandbox user: null here).
    await writeTree(
      this.dirs.root,
      mapped,
      opts.mode,
      this.mode === "none" ? undefined : (hostIdentity(this.mode, this.user) ?? undefined),
    );
  }

  async readFiles(paths: string[]): Promise<Record<string, Buffer | null>> {
    const out: Record<string, Buffer | null> = {};
    for (const p of paths) out[p] = await readInside(this.dirs.root, this.hostPath(p));
    return out;
  }

  async diff(): Promise<FileDiff[]> {
    const budget = new TreeBudget();
    const current = await readTree(this.dirs.work, budget);
    return diffFiles(this.seed, current, budget.cut);
  }

  /**
   * Liveness (see Sandbox.probe): the agent answers a request that starts no process within
   * timeoutMs, and the sandbox's folders (and cgroup) are still there.
   */
  async probe(timeoutMs = 5000): Promise<string | null> {
    if (this.closed) return "the sandbox is closed";
    if (this.spoiled) return this.spoiled;
    for (const dir of [this.dirs.work, this.dirs.tmp, ...(this.cgroup?.dirs ?? [])]) {
      try {
        await access(dir);
      } catch {
        return `the sandbox's ${dir} is gone`;
      }
    }
    if (!this.agent) return null;
    // A tampered channel is the model's doing: the sandbox is not lost to the machinery (see tampered()).
    if (this.agent.client.tamper) return null;
    const broken = this.agent.broken;
    if (broken) return broken;
    try {
      return (await pingAgent(this.agent.client, timeoutMs))?.message ?? null;
    } catch (e) {
      return this.agent.broken ?? (e as Error).message;
    }
  }

  /** Why nothing this sandbox answered can be believed (see Sandbox.tampered). */
  tampered(): string | null {
    return this.agent?.client.tamper?.message ?? null;
  }

  /**
   * Restore in place. With the agent, one round trip: every command killed, the workdir, /tmp
   * and shared memory emptied, then the seed written (as the sandbox user, so it owns them
   * under unshare too); throws when anything survived, so a sandbox that is not clean is never
   * used again. A pristine one only gets the seed.
   */
  async reset(seed: Record<string, string | Buffer>): Promise<void> {
    if (!this.agent) return this.resetFromHost(seed);
    if (this.closed) throw new Error("sandbox is closed");
    const broken = this.spoiled ?? this.agent.broken;
    if (broken) throw new Error(`the sandbox cannot be reset: ${broken}`);
    const { request, inline } = resetRequest(this.workdir, seed, this.pristine);
    const wiping = !this.pristine;
    const r = await this.agent.client.request(request);
    this.pristine = false;
    // The agent wiped what its PID namespace shows; the host then proves the whole cgroup empty.
    const left = wiping && !r.error ? await this.agent.clearFromHost(this.cgroup) : [];
    const failure = resetFailure(left.length > 0 ? { ...r, left: [...(r.left ?? []), ...left] } : r);
    if (failure) {
      this.spoiled = `resetting the sandbox: ${failure}`;
      throw new Error(this.spoiled);
    }
    this.seed = seedMap(seed);
    if (!inline && Object.keys(seed).length > 0) await this.writeFiles(seed);
  }

  /** Reset without an agent: kill every command (the cgroup), then empty and reseed the host folders. */
  private async resetFromHost(seed: Record<string, string | Buffer>): Promise<void> {
    this.ownKills++;
    for (const abort of this.running) abort();
    this.cgroup?.killAll();
    await emptyDir(this.dirs.work);
    await emptyDir(this.dirs.tmp);
    this.seed = seedMap(seed);
    await this.writeFiles(seed);
  }

  /** Closed for its holder; the provider then recycles it or destroys it (see release). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const abort of this.running) abort();
    await this.release(this);
  }

  /**
   * Whether this sandbox's namespaces and agent may serve another holder: its request allows
   * reuse and its agent still answers. Starting one costs a few namespaces and an interpreter
   * (over 100 ms of CPU), a reset one round trip.
   */
  get reusable(): boolean {
    return this.req.reuse === true && this.agent !== null && this.spoiled === null && this.agent.broken === null;
  }

  /**
   * A new handle on the same namespaces, cgroup and agent for the next holder, once a wipe
   * (every process killed, the workdir, /tmp and shared memory emptied) proved it clean; null
   * when it could not (destroy it then). This handle stays closed for whoever still holds it.
   */
  async recycled(req: SandboxRequest): Promise<ProcessSandbox | null> {
    if (!this.reusable || !this.agent) return null;
    try {
      // An agent that does not answer is not waited for: the sandbox is destroyed instead.
      const r = await answerWithin(this.agent.client.request({ op: "wipe", paths: [this.workdir, ...WIPED], files: {} }), RECYCLE_WIPE_MS);
      if (r === SILENT || resetFailure(r) !== null) return null;
      // Proven empty from the host too (its cgroup), or destroyed: never handed on on the agent's word alone.
      if ((await this.agent.clearFromHost(this.cgroup)).length > 0) return null;
    } catch {
      return null;
    }
    return new ProcessSandbox(this.id, req, this.parts, this.release);
  }

  /** Ends the agent and everything it runs, and removes the cgroup and the folders. */
  async destroy(): Promise<void> {
    this.closed = true;
    for (const abort of this.running) abort();
    await this.agent?.close();
    await this.cgroup?.remove();
    unmountDisk(this.dirs.root);
    await rm(this.dirs.root, { recursive: true, force: true });
  }
}
