import type { FileDiff } from "../schema/trajectory";

/** How an exec ended. `error` is an infrastructure failure (the sandbox itself broke). */
export type ExecStatus = "ok" | "timeout" | "oom" | "killed" | "error";

export interface ExecOptions {
  stdin?: string | Buffer;
  env?: Record<string, string>;
  /** Relative to the workdir, or absolute inside the sandbox. */
  cwd?: string;
  /** Milliseconds; the process tree is killed at the deadline and status is `timeout`. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Bytes kept of stdout+stderr together; the rest is cut and `truncated` set. */
  maxOutputBytes?: number;
  /**
   * Files written into the workdir (as by putWorkdirFiles) just before the command starts, in
   * the same step; a refused file ends the exec as an `error`. Only for a sandbox that has
   * putWorkdirFiles: the others do not look at it.
   */
  writeFirst?: WorkdirFiles;
}

/** Files for the workdir, written from inside the sandbox (see Sandbox.putWorkdirFiles). */
export interface WorkdirFiles {
  /** Workdir-relative path → text (written as UTF-8) or exact bytes. */
  files: Record<string, string | Buffer>;
  /** follow: a link at a file's own path is written through (as an editor does); replace: it is removed and a plain file written. */
  links: "follow" | "replace";
}

export interface ExecResult {
  status: ExecStatus;
  /** Null when killed by a signal or never started. */
  exitCode: number | null;
  stdout: string;
  stderr: string;
  durationMs: number;
  /** Output beyond maxOutputBytes was cut; original size in bytes. */
  truncated?: { originalBytes: number };
  /** Human-readable reason for a non-ok status: "killed after 5 s timeout", "out of memory (OOM kill)". */
  reason?: string;
  /**
   * The sandbox itself failed under the command (its container gone, its agent lost or not
   * answering, its processes killed from outside): the command's outcome says nothing about
   * the agent, and the sandbox cannot be used again. Status is then `error`.
   */
  sandboxLost?: boolean;
}

/** One isolated place where model-written code runs. */
export interface Sandbox {
  readonly id: string;
  readonly backend: "docker" | "process";
  /** Absolute workdir inside the sandbox. */
  readonly workdir: string;
  /** Run `sh -c command` (string) or argv (array) in the sandbox. Never throws for a failing command. */
  exec(command: string | string[], opts?: ExecOptions): Promise<ExecResult>;
  /** Write files relative to the workdir (or absolute inside the sandbox where allowed). */
  writeFiles(files: Record<string, string | Buffer>, opts?: { mode?: number }): Promise<void>;
  /**
   * Optional fast path: writes files into the workdir from inside the sandbox without
   * starting a process. Links resolve as the sandbox sees them and each file must land in
   * the workdir; a refusal (outside, a folder, an I/O error) is answered with its message.
   */
  putWorkdirFiles?(w: WorkdirFiles): Promise<{ ok: true } | { ok: false; message: string }>;
  /**
   * Kills every process still running in the sandbox (what the agent's commands left in the
   * background), files untouched; returns the processes that survived. Verifiers call it
   * first: a stray process could otherwise rewrite a report or a test's output under them.
   */
  stopProcesses?(): Promise<string[]>;
  /** Read files relative to the workdir; a missing file maps to null. */
  readFiles(paths: string[]): Promise<Record<string, Buffer | null>>;
  /** Changes in the workdir against the seed files given at reset. */
  diff(): Promise<FileDiff[]>;
  /** Restore the workdir to exactly these seed files (fast reset for warm reuse). */
  reset(seed: Record<string, string | Buffer>): Promise<void>;
  close(): Promise<void>;
  /**
   * Liveness: null while the sandbox answers, else why it is lost (container gone or paused,
   * agent connection lost, no answer within timeoutMs). Cheap: no process is started.
   */
  probe?(timeoutMs: number): Promise<string | null>;
  /**
   * Why nothing this sandbox answered can be believed: something inside it wrote into its
   * agent's reply channel (see ChannelTampered). The model's doing, not the machinery's: the
   * rollout is scored 0 with this reason, never retried; the sandbox is destroyed on close.
   * Null while the channel is sound.
   */
  tampered?(): string | null;
  /**
   * An interactive shell inside the sandbox with a terminal (the debugger's "Open Sandbox
   * Terminal"): docker execs with a TTY; the process backend gives its isolated shell.
   */
  shell?(opts?: ShellOptions): Promise<SandboxShell>;
}

export interface ShellOptions {
  cols?: number;
  rows?: number;
  /** argv to run; defaults to an interactive login-less shell (`bash -i`, else `sh -i`). */
  command?: string[];
  env?: Record<string, string>;
}

/** A live interactive process in a sandbox, bytes in and out. */
export interface SandboxShell {
  write(data: string | Buffer): void;
  resize(cols: number, rows: number): void;
  onData(listener: (data: Buffer) => void): void;
  /** Called once when the shell's process ends (exit code, null when killed). */
  onExit(listener: (code: number | null) => void): void;
  /** Ends the shell's process; the sandbox stays up. */
  close(): Promise<void>;
}

export interface SandboxRequest {
  image?: string;
  workdir: string;
  user?: string;
  limits: {
    cpus: number;
    memoryBytes: number;
    pids: number;
    outputBytes: number;
    tmpfsBytes: number;
    /** Largest file a command may write (RLIMIT_FSIZE); absent: no limit. */
    fileBytes?: number;
    /**
     * Disk quota of the writable folders: docker's workdir (/tmp is its own tmpfs of tmpfsBytes),
     * the process backend's workdir and /tmp together (one tmpfs, where the host lets it mount
     * one). Absent: DEFAULT_DISK_BYTES.
     */
    diskBytes?: number;
  };
  labels?: Record<string, string>;
  signal?: AbortSignal;
  /**
   * Whether a closed sandbox may be reset (workdir and /tmp emptied, processes killed) and
   * handed to a later acquire instead of removed: the manifest's `sandbox.reset: restore`.
   */
  reuse?: boolean;
  /** The image's root file system stays writable (the manifest's `sandbox.rootfs: writable`); such a sandbox is never reused. */
  writableRoot?: boolean;
  /** Docker's default capability set instead of none (the manifest's `sandbox.capabilities: default`); docker backend only. */
  defaultCapabilities?: boolean;
}

/** Hands out sandboxes (a warm pool where the backend has one). */
export interface SandboxProvider {
  readonly backend: "docker" | "process";
  acquire(req: SandboxRequest): Promise<Sandbox>;
  /**
   * Starts `count` sandboxes of this shape ahead of the acquires that will want them (backends
   * that keep warm ones); resolves once they are up, and rejects with why they could not start.
   */
  prewarm?(req: SandboxRequest, count?: number): Promise<void>;
  /** Close every sandbox and stop warming. */
  shutdown(): Promise<void>;
}

/** The disk quota of a sandbox whose request names none (the manifest's default, sandbox.limits.disk). */
export const DEFAULT_DISK_BYTES = 2 * 1024 ** 3;
