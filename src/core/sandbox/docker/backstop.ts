import type { Readable } from "node:stream";
import type Docker from "dockerode";
import type { AgentClient } from "../agent/agent-client";
import { descendants, inCgroupOf, killBelow, namespacePids } from "../host-procs";

/**
 * The docker backend's deadline backstop: kills a container's commands (every process but its
 * init and the agent) from outside, when the agent has not answered past a command's deadline.
 * The agent shares the container's CPU quota with the command, so a command that keeps the
 * quota busy can starve the agent's own kill and reply without bound; killed from here, the
 * agent gets its CPU back and answers. Where the engine runs on this host, the kills come from
 * the host itself (no process starts in the container, which a command at its pids limit would
 * refuse); else, or where the host may not kill them, a `docker exec` does it from inside.
 */

/** The container's processes on this host: its init and the agent, spared; null where the host cannot see them. */
interface HostView {
  id: string;
  init: number;
  agent: number;
}

/**
 * Kills, inside the container, every process but init (pid 1), the agent ($1) and itself, again
 * while a fork races it (a few rounds: a zombie, which no kill removes, keeps counting until its
 * parent reaps it). Builtins only: starting a program would cost CPU the command holds.
 */
const KILL_INSIDE = [
  "a=$1",
  "for round in 1 2 3 4 5 6 7 8 9 10; do",
  "  n=0",
  "  for d in /proc/[0-9]*; do",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: sh's own parameter expansion
  "    p=${d#/proc/}",
  '    case " 1 $a $$ " in *" $p "*) continue ;; esac',
  '    kill -9 "$p" 2>/dev/null && n=$((n + 1))',
  "  done",
  '  [ "$n" -eq 0 ] && break',
  "done",
].join("\n");

export class ContainerBackstop {
  /** Undefined until first needed; null: the engine's processes are not this host's to see or kill. */
  private host: HostView | null | undefined;

  constructor(
    private readonly container: Docker.Container,
    private readonly agent: AgentClient,
    /** The user commands run as (the agent's): the in-container kill runs as it, so it may kill them and nothing else. */
    private readonly user: string,
  ) {}

  /** Kills the container's commands; resolves with how: from the host, from inside, or not at all (the agent then must). */
  async killCommands(): Promise<"host" | "inside" | "none"> {
    const agentPid = this.agent.agentPid;
    if (agentPid === null) return "none"; // it could not be spared
    // Looked up once; checked again before each use, so a pid the host has since reused for another process is never killed.
    if (this.host && !(inCgroupOf(this.host.init, this.host.id) && namespacePids(this.host.agent)?.at(-1) === agentPid))
      this.host = undefined;
    this.host ??= await this.hostView(agentPid);
    if (this.host) {
      try {
        killBelow(this.host.init, new Set([this.host.init, this.host.agent]));
        return "host";
      } catch {
        this.host = null; // not ours to kill (another user's processes): from inside from now on
      }
    }
    await killInside(this.container, agentPid, this.user);
    return "inside";
  }

  /**
   * The container's init and agent as host pids, when the engine runs on this host: the init
   * the engine names must be in the container's cgroup and be pid 1 of its namespace (on a
   * remote engine or in a VM, that pid is some other process of this host, or none), and the
   * agent the init's descendant with the agent's pid in the container.
   */
  private async hostView(agentPid: number): Promise<HostView | null> {
    const info = await this.container.inspect();
    const init = info.State.Pid;
    if (!init || !inCgroupOf(init, info.Id) || namespacePids(init)?.at(-1) !== 1) return null;
    // The agent is the container's init itself (pid 1, see agent.py), else one of its descendants.
    const agent = agentPid === 1 ? init : descendants(init).find((p) => namespacePids(p)?.at(-1) === agentPid);
    return agent === undefined ? null : { id: info.Id, init, agent };
  }
}

/** The in-container kill (see KILL_INSIDE) as `user`; resolves once it has run. */
export async function killInside(container: Docker.Container, agentPid: number, user: string): Promise<void> {
  const exec = await container.exec({
    Cmd: ["/bin/sh", "-c", KILL_INSIDE, "sh", String(agentPid)],
    User: user,
    AttachStdout: true,
    AttachStderr: true,
  });
  const stream = (await exec.start({ hijack: true, stdin: false })) as unknown as Readable;
  await new Promise<void>((resolve) => {
    stream.on("data", () => {});
    stream.once("end", resolve);
    stream.once("close", resolve);
    stream.once("error", () => resolve());
  });
}
