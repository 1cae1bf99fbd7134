import { randomBytes } from "node:crypto";
import { chmodSync, chownSync, existsSync, mkdirSync, rmSync, statSync } from "node:fs";
import path from "node:path";
import { ownerPrefix } from "../../util/owner";
import type { Sandbox, SandboxProvider, SandboxRequest } from "../../model/sandbox";
import { AGENT_PYTHON, AgentProcess } from "./agent-process";
import { SandboxCgroup } from "./cgroup";
import { chooseIsolation, ISOLATION_MODES, type IsolationMode, isolationUnavailable } from "./isolation";
import { DEFAULT_DISK_BYTES } from "../../model/sandbox";
import { mountDisk, unmountDisk } from "./disk";
import { hostIdentity } from "./host-identity";
import { isolatedLaunch, ProcessSandbox, parseUser } from "./sandbox";
import { defaultSandboxBase, sweepProcessOrphans } from "./sweep";
import { WarmSandboxes } from "./warm";

export interface ProcessProviderOptions {
  /** Run commands with no isolation at all when neither bwrap nor unshare works. */
  unsafeNoSandbox?: boolean;
  /** Why Docker was not used, when it was tried first (`--sandbox auto`): the refusal names it; unset, Docker was not tried. */
  dockerWhy?: string;
  /** Force a mode (tests; null acts as a host where nothing isolates); default: RLENV_ISOLATION, else the strongest that works. */
  mode?: IsolationMode | null;
  /** Where sandbox folders live; default <tmpdir>/rlenv-sandboxes. */
  baseDir?: string;
  /** Use cgroups for limits where writable (default true; false tests the rlimit fallback). */
  cgroups?: boolean;
  /** Told once when running without isolation. */
  warn?: (message: string) => void;
}

export const UNSAFE_WARNING =
  "WARNING: --unsafe-no-sandbox: neither bubblewrap nor unshare can isolate commands here, so model-written code runs " +
  "as YOU, with your files, your network and no limits. Use it only for code you trust.";

/** Hands out process sandboxes, from a few kept ready per shape once prewarm asked for them. */
export class ProcessSandboxProvider implements SandboxProvider {
  readonly backend = "process" as const;
  readonly mode: IsolationMode;
  readonly baseDir: string;
  private readonly open = new Set<ProcessSandbox>();
  private readonly cgroups: boolean;
  private readonly warm = new WarmSandboxes((req) => this.start(req));

  constructor(opts: ProcessProviderOptions = {}) {
    const detected = opts.mode === undefined ? chooseIsolation() : opts.mode;
    if (!detected) {
      if (!opts.unsafeNoSandbox) {
        throw new Error(noSandboxMessage(opts.dockerWhy));
      }
      (opts.warn ?? ((m: string) => process.stderr.write(`${m}\n`)))(UNSAFE_WARNING);
    }
    this.mode = detected ?? "none";
    this.cgroups = opts.cgroups ?? true;
    this.baseDir = opts.baseDir ?? defaultSandboxBase();
    mkdirSync(this.baseDir, { recursive: true });
    // bwrap started by root runs as an unprivileged host identity (see host-identity.ts), which must pass through here to its own folder.
    if (this.mode === "bwrap" && hostIdentity("bwrap", { uid: 0, gid: 0 })) {
      const mode = statSync(this.baseDir).mode & 0o777;
      if ((mode & 0o111) !== 0o111) chmodSync(this.baseDir, mode | 0o711);
    }
    sweepProcessOrphans(this.baseDir);
  }

  async acquire(req: SandboxRequest): Promise<Sandbox> {
    req.signal?.throwIfAborted();
    // Only an isolated sandbox with an agent can be wiped and handed on; never one without.
    const reusable = { ...req, reuse: req.reuse === true && this.mode !== "none" };
    let sb = this.warm.take(reusable);
    if (!sb) {
      try {
        sb = await this.start(reusable);
      } catch (e) {
        this.warm.unlend(reusable);
        throw e;
      }
    }
    this.open.add(sb);
    return sb;
  }

  /** A closed sandbox goes back to the warm ones, wiped, when it may serve again; else it is destroyed. */
  private async release(sb: ProcessSandbox, req: SandboxRequest): Promise<void> {
    this.open.delete(sb);
    if (req.reuse) {
      // giveBack counts the loan back itself, kept or not.
      if (!sb.reusable) this.warm.unlend(req);
      else if (await this.warm.giveBack(sb, req)) return;
    }
    await sb.destroy();
  }

  /**
   * Starts `count` sandboxes of this shape (default 2) ahead of the acquires that will want
   * them, and keeps that many ready as they are taken: their agents' start (namespaces and an
   * interpreter) then overlaps the work of the sandboxes in use.
   */
  async prewarm(req: SandboxRequest, count = 2): Promise<void> {
    if (this.mode === "none") return;
    await this.warm.fill(req, count);
  }

  /** A new sandbox: its folders, its cgroup, and its agent started in them. */
  private async start(req: SandboxRequest): Promise<ProcessSandbox> {
    // Named by owner (pid and start time) so a later sweep can tell a dead run's folders and cgroups.
    const id = `${ownerPrefix()}${randomBytes(4).toString("hex")}`;
    const root = path.join(this.baseDir, id);
    const dirs = { root, work: path.join(root, "work"), tmp: path.join(root, "tmp"), mnt: path.join(root, "mnt") };
    mkdirSync(root, { recursive: true, mode: 0o700 });
    // The disk quota of the workdir and /tmp together (see disk.ts), where the host lets us mount it.
    if (this.mode !== "none") mountDisk(root, req.limits.diskBytes ?? DEFAULT_DISK_BYTES);
    for (const d of [dirs.work, dirs.tmp, dirs.mnt]) mkdirSync(d, { recursive: true, mode: 0o755 });
    // No other host user may enter the sandbox's folders (whatever the sandbox leaves there, a
    // setuid program included, is out of their reach); bwrap started as the sandbox's host
    // identity must, to bind them.
    chmodSync(root, 0o700);
    const host = this.mode === "none" ? null : hostIdentity(this.mode, parseUser(req.user));
    if (host) {
      // The commands run as the sandbox user's host identity: it must own its folders.
      for (const d of [dirs.work, dirs.tmp]) chownSync(d, host.uid, host.gid);
      if (this.mode === "bwrap") chownSync(root, host.uid, host.gid);
    }
    const cgroup = this.mode === "none" || !this.cgroups ? null : SandboxCgroup.create(id, req.limits);
    const mode = this.mode;
    let agent: AgentProcess | null = null;
    // The agent runs inside the namespaces, so only where they isolate (unisolated, its reset
    // would kill every process of the host user), and on the host's own Python.
    if (mode !== "none" && existsSync(AGENT_PYTHON)) {
      try {
        // The agent is its namespace's init, as in a docker container: no command of the sandbox can kill it.
        agent = await AgentProcess.start((argv) =>
          isolatedLaunch(req, { dirs, mode, cgroup }, req.workdir, argv, req.workdir, undefined, true),
        );
      } catch (e) {
        await cgroup?.remove();
        unmountDisk(root);
        rmSync(root, { recursive: true, force: true });
        throw e;
      }
    }
    return new ProcessSandbox(id, req, { dirs, mode, cgroup, agent }, (s) => this.release(s, req));
  }

  /** Ids of the sandboxes a holder has and has not closed yet: what a leak check looks at, since closed ones may stay warm for reuse. */
  get lentIds(): string[] {
    return [...this.open].map((s) => s.id);
  }

  async shutdown(): Promise<void> {
    await this.warm.stop();
    await Promise.all([...this.open].map((s) => s.close()));
  }
}

/** Why no sandbox can start: each thing tried and why it failed (Docker only when it was tried), then what to do. */
function noSandboxMessage(dockerWhy: string | undefined): string {
  const isolation = ISOLATION_MODES.map(
    (m) => isolationUnavailable(m) ?? (m === "bwrap" ? "bubblewrap (bwrap) is not installed or not permitted" : "unshare needs root"),
  );
  return (
    `no sandbox is available: ${[dockerWhy, ...isolation].filter((x) => x !== undefined).join("; ")}. ` +
    `Install bubblewrap (apt-get install bubblewrap)${dockerWhy === undefined ? ", run with --sandbox docker where Docker runs," : " or start Docker,"} ` +
    "or pass --unsafe-no-sandbox to run commands unisolated."
  );
}
