import { randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import { resolveInside } from "../../../environment/safe-path";
import type { ExecResult, Sandbox } from "../../../model/sandbox";
import type { ContentPart, SceneSnapshot } from "../../../schema/trajectory";
import { ToolError } from "../../../model/errors";
import { SceneBackendCrash, type SceneBackend, SceneBackendStartError, type StepResult } from "../backend";
import type { AddObjectArgs, GroupArgs, RenderViewArgs, UpdateObjectArgs } from "../tool-args";
import { blenderServerSource } from "./server-source";

export interface BlenderOptions {
  signal?: AbortSignal;
  /** Milliseconds one step may take before Blender counts as hung. */
  timeoutMs: number;
  /** Milliseconds Blender may take to start (default 60 s). */
  startTimeoutMs?: number;
  /** Milliseconds the server may live (default 2 h): the rollout's own timeout ends it sooner. */
  lifetimeMs?: number;
  /** Export a glTF with every snapshot (default true). */
  gltf?: boolean;
  /** The Blender command in the sandbox (default `blender`). */
  blender?: string;
  assetsDir?: string | undefined;
}

interface Reply {
  ok: boolean;
  text?: string;
  error?: string;
  parts?: ContentPart[];
  snapshot: SceneSnapshot;
}

const STDERR_TAIL = 8000;
const tail = (s: string, n = STDERR_TAIL) => (s.length > n ? `…${s.slice(-n)}` : s);

/**
 * The scene in Blender, kept alive for the whole rollout: one long sandbox exec runs
 * `blender -b --python blender_rpc.py`, and each step is a short exec that drops a request
 * file in the server's folder under /tmp and waits for the answer file. If Blender exits
 * or stops answering, the step throws SceneBackendCrash with Blender's stderr.
 */
export class BlenderBackend implements SceneBackend {
  readonly kind = "blender" as const;
  private seq = 0;
  private last: SceneSnapshot = { nodes: [] };
  private exited: ExecResult | null = null;
  private readonly exitedPromise: Promise<ExecResult>;
  private closed = false;
  private readonly uploaded = new Set<string>();

  private constructor(
    private readonly sandbox: Sandbox,
    private readonly dir: string,
    private readonly server: AbortController,
    serverRun: Promise<ExecResult>,
    private readonly opts: BlenderOptions,
  ) {
    this.exitedPromise = serverRun.then((r) => {
      this.exited = r;
      return r;
    });
  }

  /** Start Blender in the sandbox and wait until its server is ready. */
  static async start(sandbox: Sandbox, opts: BlenderOptions): Promise<BlenderBackend> {
    const dir = `/tmp/rlenv-blender-${randomBytes(4).toString("hex")}`;
    const server = new AbortController();
    const onAbort = () => server.abort();
    opts.signal?.addEventListener("abort", onAbort, { once: true });
    const bin = opts.blender ?? "blender";
    const run = sandbox.exec(
      [
        "sh",
        "-c",
        // HOME in the server folder: Blender writes its config there, never in the workdir.
        'mkdir -p "$0" && cat > "$0/server.py" && HOME="$0" exec "$1" -b --factory-startup -noaudio --python "$0/server.py" -- "$0"',
        dir,
        bin,
      ],
      { stdin: blenderServerSource(), timeoutMs: opts.lifetimeMs ?? 2 * 3600_000, signal: server.signal, maxOutputBytes: 2_000_000 },
    );
    const b = new BlenderBackend(sandbox, dir, server, run, opts);
    try {
      await b.waitFor("ready", opts.startTimeoutMs ?? 60_000, "start");
    } catch (e) {
      // No agent step has run yet: a Blender that cannot start is the infrastructure's failure.
      if (e instanceof SceneBackendCrash) throw new SceneBackendStartError(e.message);
      throw e;
    }
    return b;
  }

  /** Wait for a file in the server folder (polled by a sandbox exec), racing Blender's exit. */
  private async waitFor(file: string, timeoutMs: number, what: string, stdin?: string): Promise<string> {
    if (this.exited) throw this.crash(`Blender is no longer running (before ${what})`, this.exited);
    const step = new AbortController();
    const script =
      stdin === undefined
        ? 'while [ ! -e "$0/$1" ]; do sleep 0.002; done; cat "$0/$1"'
        : 'cat > "$0/$2.tmp" && mv "$0/$2.tmp" "$0/$2" && while [ ! -e "$0/$1" ]; do sleep 0.002; done; cat "$0/$1"; rm -f "$0/$1"';
    const reqName = `req-${this.seq}`;
    const exec = this.sandbox.exec(["sh", "-c", script, this.dir, file, reqName], {
      ...(stdin !== undefined ? { stdin } : {}),
      timeoutMs,
      signal: step.signal,
      maxOutputBytes: 256 * 1024 * 1024,
    });
    let res = await Promise.race([exec, this.exitedPromise.then(() => null)]);
    if (res === null) {
      step.abort();
      res = await exec;
      // The process sandbox kills every process of the sandbox when an exec times out, so a
      // hang can show up as Blender exiting: the step's own timeout says which it was.
      if (res.status !== "timeout") throw this.crash(`Blender exited during ${what}`, this.exited!);
    }
    if (res.status === "timeout") {
      const r = await this.kill();
      throw this.crash(`Blender did not answer within ${timeoutMs / 1000} s (${what}); it was stopped`, r);
    }
    if (res.status !== "ok" || res.exitCode !== 0) {
      const r = await this.kill();
      throw this.crash(`the step exec failed during ${what}: ${res.reason ?? `exit ${res.exitCode}`} ${res.stderr}`.trim(), r);
    }
    return res.stdout;
  }

  private crash(message: string, server: ExecResult | null): SceneBackendCrash {
    const stderr = server ? tail(server.stderr) || tail(server.stdout) : "";
    const how = server ? (server.exitCode !== null ? ` (exit code ${server.exitCode})` : server.reason ? ` (${server.reason})` : "") : "";
    return new SceneBackendCrash(`${message}${how}`, stderr);
  }

  /** Stop the server and return how it ended. */
  private async kill(): Promise<ExecResult | null> {
    this.server.abort();
    return Promise.race([this.exitedPromise, new Promise<null>((r) => setTimeout(() => r(null), 1000))]);
  }

  private async call(op: string, args: unknown, what: string): Promise<Reply> {
    if (this.closed) throw new SceneBackendCrash("the Blender scene is closed", "");
    const n = this.seq;
    const text = await this.waitFor(`resp-${n}`, this.opts.timeoutMs, what, JSON.stringify({ op, args, gltf: this.opts.gltf ?? true }));
    this.seq++;
    let reply: Reply;
    try {
      reply = JSON.parse(text) as Reply;
    } catch {
      throw new SceneBackendCrash(`Blender's answer to ${what} is not JSON`, tail(text, 2000));
    }
    this.last = reply.snapshot;
    if (!reply.ok) throw new ToolError(reply.error ?? "failed");
    return reply;
  }

  private async step(op: string, args: unknown, what: string): Promise<StepResult> {
    const r = await this.call(op, args, what);
    return { text: r.text ?? "", ...(r.parts ? { parts: r.parts } : {}) };
  }

  async add(args: AddObjectArgs): Promise<StepResult> {
    if (args.kind !== "asset") return this.step("add", args, "add_object");
    return this.step("add", { ...args, asset_file: await this.upload(args.asset) }, "add_object");
  }

  /** Copy an asset from the environment's folder into the server's, once; its path there. */
  private async upload(asset: string | undefined): Promise<string> {
    if (!asset) throw new ToolError("kind 'asset' needs 'asset': a .gltf/.glb path in the asset folder");
    if (!this.opts.assetsDir) throw new ToolError("this environment has no asset folder (scene.assets in environment.yaml)");
    const r = resolveInside(this.opts.assetsDir, asset);
    if (!r.ok) throw new ToolError(`asset '${asset}': ${r.message}`);
    const inside = `${this.dir}/assets/${asset.replace(/[^A-Za-z0-9._-]/g, "_")}`;
    if (this.uploaded.has(inside)) return inside;
    let bytes: Buffer;
    try {
      bytes = await readFile(r.path);
    } catch (e) {
      throw new ToolError(`cannot read asset '${asset}': ${(e as Error).message}`);
    }
    const res = await this.sandbox.exec(["sh", "-c", 'mkdir -p "$(dirname "$0")" && cat > "$0"', inside], {
      stdin: bytes,
      timeoutMs: this.opts.timeoutMs,
    });
    if (res.status !== "ok" || res.exitCode !== 0)
      throw new SceneBackendCrash(
        `could not copy the asset '${asset}' into the sandbox: ${res.reason ?? `exit ${res.exitCode}`}`,
        res.stderr,
      );
    this.uploaded.add(inside);
    return inside;
  }
  update(args: UpdateObjectArgs): Promise<StepResult> {
    return this.step("update", args, "update_object");
  }
  remove(name: string): Promise<StepResult> {
    return this.step("remove", { name }, "remove_object");
  }
  group(args: GroupArgs): Promise<StepResult> {
    return this.step("group", args, "group");
  }
  render(args: RenderViewArgs): Promise<StepResult> {
    return this.step("render", args, "render_view");
  }
  runPython(code: string): Promise<StepResult> {
    return this.step("run_bpy", { code }, "run_bpy");
  }

  /** The snapshot Blender sent with its last answer: every step returns one, so this costs nothing. */
  async snapshot(): Promise<SceneSnapshot> {
    return this.last;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (!this.exited) {
      // Ask politely, then make sure: the server's exec is aborted either way.
      await this.sandbox
        .exec(["sh", "-c", 'printf \'{"op":"quit"}\' > "$0/q.tmp" && mv "$0/q.tmp" "$0/req-$1"', this.dir, String(this.seq)], {
          timeoutMs: 5000,
        })
        .catch(() => undefined);
      await Promise.race([this.exitedPromise, new Promise((r) => setTimeout(r, 2000))]);
      this.server.abort();
    }
    await this.sandbox.exec(["rm", "-rf", this.dir], { timeoutMs: 10_000 }).catch(() => undefined);
  }
}
