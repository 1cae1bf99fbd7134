import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { type AgentClient, pipedAgentClient } from "../agent/agent-client";
import { agentArgv } from "../agent/agent-source";
import { descendants, killBelow, liveProcess } from "../host-procs";
import type { SandboxCgroup } from "./cgroup";
import { closingInherited } from "./close-fds";

/** The host interpreter the agent runs on: inside the sandbox it is the same file, through the read-only /usr. */
export const AGENT_PYTHON = "/usr/bin/python3";

/** How to start one isolated process: the host argv (bwrap or unshare, cgroup join, rlimits), its environment and cwd. */
export interface IsolatedLaunch {
  full: string[];
  env: Record<string, string>;
  cwd: string;
}

/**
 * A process sandbox's agent (agent.py), running for the sandbox's whole life inside its
 * namespaces and cgroup: each command is a child it spawns there, so a command costs a
 * process spawn instead of new namespaces. Its stdin and stdout are the protocol's pipes;
 * the agent exits when its stdin closes (this process gone, however it went).
 */
export class AgentProcess {
  private closing = false;
  /** Host pids of the isolating processes and the agent itself, taken once it was ready: what killCommands spares. */
  private machinery = new Set<number>();
  /** Why the agent stopped, once it has (null while it runs). */
  private stoppedWhy: string | null = null;
  readonly exited: Promise<void>;

  private constructor(
    private readonly child: ChildProcessWithoutNullStreams,
    readonly client: AgentClient,
  ) {
    this.exited = new Promise<void>((resolve) => {
      child.on("error", (e) => {
        this.stoppedWhy ??= `the sandbox agent could not start: ${e.message}`;
        client.ended(this.stoppedWhy);
        resolve();
      });
      child.on("close", (code, sig) => {
        const words = client.lastWords;
        this.stoppedWhy ??= this.closing
          ? "sandbox closed"
          : sig
            ? // Nothing here kills the agent but close: a signal means the sandbox was killed from outside.
              `the sandbox's processes were killed from outside (${sig})`
            : `the sandbox agent exited with status ${code}${words ? `: ${words}` : ""}`;
        client.ended(this.stoppedWhy);
        resolve();
      });
    });
  }

  /** Starts the agent through `isolate` and waits for its ready line. */
  static async start(isolate: (argv: string[]) => IsolatedLaunch): Promise<AgentProcess> {
    const launch = isolate(agentArgv(AGENT_PYTHON));
    const full = closingInherited(launch.full);
    const child = spawn(full[0] ?? "", full.slice(1), {
      // Its own process group: close kills the isolating process and all it holds at once.
      detached: true,
      env: launch.env,
      cwd: launch.cwd,
      stdio: ["pipe", "pipe", "pipe"],
    });
    const agent = new AgentProcess(child, pipedAgentClient(child.stdin, child.stdout, child.stderr));
    try {
      await agent.client.ready;
    } catch (e) {
      agent.kill();
      throw new Error(`the process sandbox could not start: ${(e as Error).message}`);
    }
    // Nothing has run yet: everything under the isolating process now is the machinery.
    if (child.pid !== undefined) agent.machinery = new Set([child.pid, ...descendants(child.pid)]);
    return agent;
  }

  /**
   * Kills, from the host, every process in the sandbox but the isolating ones and the agent:
   * the backstop for a command past its deadline whose agent has not answered (it shares the
   * sandbox's CPU quota with the command, so a command that hogs it can starve the agent's own
   * kill). Loops while a fork races it, for at most a second. Returns how many it killed.
   */
  killCommands(): number {
    const root = this.child.pid;
    if (root === undefined || this.machinery.size === 0) return 0;
    try {
      return killBelow(root, this.machinery);
    } catch {
      return 0; // the host may not kill them: the agent's own kill, or the grace guard, ends the command
    }
  }

  /**
   * The clean slate from the host, after the agent's own wipe (which sees only its PID
   * namespace): every process of the sandbox but its machinery killed, through its cgroup
   * where it has one (the shell's processes live in another namespace of the same group), else
   * every process below the isolating one. Returns what is still alive (host pids, described):
   * a sandbox with any is not clean and must not be judged in or reused.
   */
  async clearFromHost(cgroup: SandboxCgroup | null): Promise<string[]> {
    const root = this.child.pid;
    if (root === undefined || this.machinery.size === 0) return ["the sandbox's processes cannot be told from its machinery"];
    if (cgroup) return (await cgroup.killAllBut(this.machinery)).map((p) => `process ${p} (host pid)`);
    try {
      killBelow(root, this.machinery, 2000);
    } catch (e) {
      return [`the host may not kill the sandbox's processes: ${(e as Error).message}`];
    }
    return descendants(root)
      .filter((p) => !this.machinery.has(p) && liveProcess(p))
      .map((p) => `process ${p} (host pid)`);
  }

  /** Null while the agent answers, else why it stopped. */
  get broken(): string | null {
    return this.stoppedWhy ?? this.client.broken?.message ?? null;
  }

  private kill(): void {
    this.closing = true;
    if (this.child.pid === undefined) return;
    try {
      process.kill(-this.child.pid, "SIGKILL");
    } catch {}
  }

  /** Ends the agent and everything in its namespaces, and waits for it to be gone. */
  async close(): Promise<void> {
    this.closing = true;
    this.client.close();
    this.kill();
    await this.exited;
  }
}
