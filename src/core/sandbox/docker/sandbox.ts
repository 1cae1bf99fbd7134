import path from "node:path";
import type { Readable } from "node:stream";
import type { FileDiff } from "../../schema/trajectory";
import { diffFiles, seedMap, toBuffer } from "../diff";
import { resolveSandboxPath } from "../paths";
import { READ_BYTES, TreeBudget } from "../read-bounds";
import { agentExec, execResultOf, failedExec, putRequest } from "../agent/agent-exec";
import { pingAgent, resetFailure, resetRequest } from "../agent/probe-and-reset";
import type { ExecOptions, ExecResult, Sandbox, SandboxRequest, SandboxShell, ShellOptions, WorkdirFiles } from "../../model/sandbox";
import type { LiveContainer } from "./container";
import { removeContainer } from "./remove-container";
import { openDockerShell } from "./shell";
import { packFiles, unpackFiles } from "./tar";

function owner(user: string | undefined): { uid: number; gid: number } {
  const [u, g] = (user ?? "1000:1000").split(":").map(Number);
  return { uid: Number.isInteger(u) ? (u as number) : 1000, gid: Number.isInteger(g) ? (g as number) : 1000 };
}

/**
 * One container, its agent spawning the commands. Files under the workdir (a volume) move as
 * tar archives through the engine; /tmp (a tmpfs the engine cannot reach) through the agent.
 */
export class DockerSandbox implements Sandbox {
  readonly backend = "docker" as const;
  readonly id: string;
  readonly workdir: string;
  private seed = new Map<string, Buffer>();
  private closed = false;

  /**
   * @param state what the pool knows of the container:
   *   - "pristine": nothing has run in it since it started, so the first reset only writes the seed;
   *   - "used": whatever ran is still there: a reset wipes, then writes the seed, in one round trip;
   *   - "recycled": the previous holder's files and processes are still there, and nothing may see
   *     them: the first reset wipes (with its seed, one round trip as for "used"), and any other
   *     first use wipes before it runs. Wiping on the way out as well cost a round trip per rollout.
   *   Anything that can change the container (exec, writeFiles) makes it "used".
   */
  constructor(
    readonly live: LiveContainer,
    readonly req: SandboxRequest,
    private readonly onClose: (s: DockerSandbox) => Promise<void>,
    private state: "pristine" | "used" | "recycled" = "used",
  ) {
    this.id = live.name;
    this.workdir = req.workdir;
  }

  get healthy(): boolean {
    return !this.closed && !this.live.agent.broken && !this.live.spoiled;
  }

  /** Nothing has run or been written in the container since it started or was wiped. */
  get untouched(): boolean {
    return this.state === "pristine";
  }

  private wiping: Promise<void> | null = null;

  /**
   * Wipes a recycled sandbox that sits unused in the pool, so that nothing its last holder left
   * running goes on for long (the pool calls this after a short idle time). It is then pristine.
   */
  async wipeIdle(): Promise<void> {
    if (this.state !== "recycled" || this.closed) return;
    this.wiping ??= this.reset({}).then(() => {
      this.state = "pristine";
    });
    await this.wiping.catch(() => {}); // a failed wipe spoiled it: the pool removes it when it is next taken
  }

  /** A recycled container is wiped before its first use that is not a reset (once, however many uses start together). */
  private async wipeIfRecycled(): Promise<void> {
    if (this.state !== "recycled" || this.closed) return;
    this.wiping ??= this.reset({});
    await this.wiping;
  }

  async exec(command: string | string[], opts: ExecOptions = {}): Promise<ExecResult> {
    const started = performance.now();
    const fail = (reason: string): ExecResult => failedExec(started, reason);
    const lost = (reason: string): ExecResult => ({ ...fail(reason), sandboxLost: true });
    if (this.closed) return fail("sandbox is closed");
    const tamperedBefore = this.tampered();
    if (tamperedBefore) return fail(tamperedBefore);
    try {
      await this.wipeIfRecycled();
    } catch (e) {
      return lost((e as Error).message);
    }
    this.state = "used";
    let cwd: string;
    try {
      cwd = resolveSandboxPath(this.workdir, opts.cwd ?? ".");
    } catch (e) {
      return fail((e as Error).message);
    }
    if (opts.signal?.aborted) return { ...fail("cancelled"), status: "killed" };
    const backstop = this.live.backstop;
    // Past the deadline with no answer: the command may be starving the agent of the container's CPU (see ./backstop.ts).
    const done = await agentExec(this.live.agent, command, cwd, opts, this.req, this.workdir, () => {
      backstop.killCommands().catch(() => {}); // a container gone meanwhile: the agent's silence then says so
    });
    if ("reply" in done) return execResultOf(done.reply, opts, this.req, started);
    // Written into from inside: the model's doing, not a lost sandbox (see ChannelTampered).
    const tamper = this.tampered();
    if (tamper) return fail(tamper);
    // The agent's connection broke, or it did not answer past the command's own deadline.
    const why = await this.explain(done.lost);
    this.live.spoiled ??= why;
    return lost(why);
  }

  /** Adds the container's own state (OOM-killed, exited) to an agent failure. */
  private async explain(e: Error): Promise<string> {
    try {
      const s = (await this.live.container.inspect()).State;
      if (s.OOMKilled) return `out of memory: the sandbox container was OOM-killed (${e.message})`;
      if (!s.Running) return `the sandbox container exited with ${s.ExitCode} (${e.message})`;
    } catch (err) {
      // Containers are auto-removed once they stop: gone is the usual state of a killed one.
      if ((err as { statusCode?: number }).statusCode === 404) return `the sandbox container is gone (${e.message})`;
    }
    return e.message;
  }

  /**
   * Liveness (see Sandbox.probe): the agent's connection, then a request that starts no process
   * (reading no files) answered within timeoutMs. A lost sandbox is spoiled: never lent again.
   */
  async probe(timeoutMs: number): Promise<string | null> {
    if (this.closed) return "the sandbox is closed";
    const why = await this.ping(timeoutMs);
    if (why) this.live.spoiled ??= why;
    return why;
  }

  private async ping(timeoutMs: number): Promise<string | null> {
    // A tampered channel is the model's doing: the sandbox is not lost to the machinery (see tampered()).
    if (this.live.agent.tamper) return null;
    const broken = this.live.agent.broken;
    if (broken) return this.explain(broken);
    let silence: Error | null;
    try {
      silence = await pingAgent(this.live.agent, timeoutMs);
    } catch (e) {
      return this.explain(e as Error);
    }
    if (!silence) return null;
    try {
      if ((await this.live.container.inspect()).State.Paused) return `the sandbox container is paused (${silence.message})`;
    } catch {}
    return this.explain(silence);
  }

  /** Why nothing this sandbox answered can be believed (see Sandbox.tampered). */
  tampered(): string | null {
    return this.live.agent.tamper?.message ?? null;
  }

  /** Every process but the container's init and the agent killed, in one round trip (see Sandbox.stopProcesses). */
  async stopProcesses(): Promise<string[]> {
    if (this.closed) throw new Error("sandbox is closed");
    const r = await this.live.agent.request({ op: "wipe", paths: [] });
    if (r.error) throw new Error(`stopping the sandbox's processes: ${r.error}`);
    return r.left ?? [];
  }

  /** Writes text files into the workdir through the agent: no process started (see Sandbox.putWorkdirFiles). */
  async putWorkdirFiles(w: WorkdirFiles): Promise<{ ok: true } | { ok: false; message: string }> {
    if (this.closed) throw new Error("sandbox is closed");
    await this.wipeIfRecycled();
    this.state = "used";
    const r = await this.live.agent.request({ op: "put", ...putRequest(this.workdir, w) });
    if (r.refused) return { ok: false, message: r.error ?? "refused" };
    if (r.error) throw new Error(`writing ${Object.keys(w.files).join(", ")}: ${r.error}`);
    return { ok: true };
  }

  /** Splits sandbox paths into workdir-relative ones (archives) and others (/tmp, through the agent). */
  private place(paths: string[]): { work: Map<string, string>; other: Map<string, string> } {
    const work = new Map<string, string>();
    const other = new Map<string, string>();
    for (const p of paths) {
      const abs = resolveSandboxPath(this.workdir, p);
      if (abs.startsWith(`${this.workdir}/`)) work.set(p, path.posix.relative(this.workdir, abs));
      else other.set(p, abs);
    }
    return { work, other };
  }

  async writeFiles(files: Record<string, string | Buffer>, opts: { mode?: number } = {}): Promise<void> {
    await this.wipeIfRecycled();
    this.state = "used";
    const { work, other } = this.place(Object.keys(files));
    if (work.size > 0) {
      const entries = new Map([...work].map(([p, rel]) => [rel, toBuffer(files[p] ?? "")]));
      const archive = await packFiles(entries, owner(this.req.user), opts.mode);
      await this.live.container.putArchive(archive, { path: this.workdir });
    }
    if (other.size > 0) {
      const payload = Object.fromEntries([...other].map(([p, abs]) => [abs, toBuffer(files[p] ?? "").toString("base64")]));
      const r = await this.live.agent.request({ op: "write", files: payload, mode: opts.mode ?? null });
      if (r.error) throw new Error(`writing ${[...other.keys()].join(", ")}: ${r.error}`);
    }
  }

  async readFiles(paths: string[]): Promise<Record<string, Buffer | null>> {
    await this.wipeIfRecycled();
    const { work, other } = this.place(paths);
    const out: Record<string, Buffer | null> = {};
    await Promise.all(
      [...work].map(async ([p, rel]) => {
        try {
          const stream = (await this.live.container.getArchive({ path: path.posix.join(this.workdir, rel) })) as unknown as Readable;
          const files = await unpackFiles(stream, "", new TreeBudget(READ_BYTES, READ_BYTES));
          out[p] = files.get(path.posix.basename(rel)) ?? null;
        } catch {
          out[p] = null; // 404: no such file (a folder also reads as null: it has no single content)
        }
      }),
    );
    if (other.size > 0) {
      // Bounded as the host's own reads are (see read-bounds.ts): a file past it comes back cut.
      const r = await this.live.agent.request({ op: "read", paths: [...other.values()], max_bytes: READ_BYTES }, undefined, READ_BYTES);
      for (const [p, abs] of other) {
        const b64 = r.files?.[abs];
        out[p] = typeof b64 === "string" ? Buffer.from(b64, "base64") : null;
      }
    }
    return out;
  }

  /** Every file of the workdir, as the engine archives it, within `budget` (see read-bounds.ts). */
  async snapshot(budget = new TreeBudget()): Promise<Map<string, Buffer>> {
    await this.wipeIfRecycled();
    const stream = (await this.live.container.getArchive({ path: `${this.workdir}/.` })) as unknown as Readable;
    return unpackFiles(stream, "./", budget);
  }

  async diff(): Promise<FileDiff[]> {
    const budget = new TreeBudget();
    const current = await this.snapshot(budget);
    return diffFiles(this.seed, current, budget.cut);
  }

  /**
   * Restore in place, in one agent round trip: kill every command, empty the workdir, /tmp and
   * shared memory (/dev/shm, POSIX queues, SysV IPC), then write the seed. Throws when anything
   * survived the wipe, so a sandbox that is not clean is never handed on. A pristine one (see
   * the constructor) only gets the seed.
   */
  async reset(seed: Record<string, string | Buffer>): Promise<void> {
    if (this.live.agent.broken) throw new Error(`the sandbox cannot be reset: ${this.live.agent.broken.message}`);
    // Seeds too large to go with the request follow as a tar archive through the engine.
    const { request, inline } = resetRequest(this.workdir, seed, this.state === "pristine");
    const r = await this.live.agent.request(request);
    this.state = "used";
    const failure = resetFailure(r);
    if (failure) {
      // Not provably clean: the pool removes it when it comes back, and never lends it again.
      this.live.spoiled = failure;
      throw new Error(`resetting the sandbox: ${failure}`);
    }
    this.seed = seedMap(seed);
    if (!inline && Object.keys(seed).length > 0) await this.writeFiles(seed);
  }

  /** An interactive TTY exec as the sandbox's user (see ./shell.ts). */
  async shell(opts?: ShellOptions): Promise<SandboxShell> {
    if (!this.healthy) throw new Error("the sandbox is closed or broken: no shell can start in it");
    await this.wipeIfRecycled();
    this.state = "used";
    return openDockerShell(
      {
        container: this.live.container,
        workdir: this.workdir,
        user: this.req.user ?? "1000:1000",
        exec: (argv) => this.exec(argv, { timeoutMs: 10_000 }),
      },
      opts,
    );
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.onClose(this);
  }

  /** Stops the agent and removes the container with its workdir volume. */
  async destroy(): Promise<void> {
    this.closed = true;
    this.live.agent.close();
    // Closing the agent starts the engine's auto-removal: removeContainer waits for it to end.
    await removeContainer(this.live.container);
  }
}
