import { randomBytes } from "node:crypto";
import os from "node:os";
import type { Duplex } from "node:stream";
import type Docker from "dockerode";
import { currentOwner } from "../../util/owner";
import { DEFAULT_DISK_BYTES, type SandboxRequest } from "../../model/sandbox";
import { type AgentClient, dockerAgentClient } from "../agent/agent-client";
import { agentArgv } from "../agent/agent-source";
import { ContainerBackstop } from "./backstop";
import { removeContainer } from "./remove-container";

/** Labels on every sandbox container: the owner pid, its start time and host let a later start reap orphans. */
export const OWNER_LABEL = "rlenv.owner";
export const OWNER_START_LABEL = "rlenv.owner.start";
export const HOST_LABEL = "rlenv.host";
export const SANDBOX_LABEL = "rlenv.sandbox";

/**
 * The container spec of one sandbox: no network, no capabilities (Docker's default set where
 * the environment asks, as Harbor tasks do), no new privileges, read-only root, limits.
 * Its life is tied to its owner's connection: the agent serves requests on the container's
 * stdin, which the engine closes when the one attached client (us) goes (StdinOnce), however
 * we went (a SIGKILL included); the agent then exits, and with it the container, which the
 * engine removes with its workdir volume (AutoRemove).
 */
export function containerSpec(req: SandboxRequest, name: string): Docker.ContainerCreateOptions {
  const l = req.limits;
  const owner = currentOwner();
  return {
    name,
    Image: req.image,
    Cmd: agentArgv(),
    User: req.user ?? "1000:1000",
    WorkingDir: req.workdir,
    Env: [`HOME=${req.workdir}`, "LANG=C.UTF-8", "PYTHONDONTWRITEBYTECODE=1", "TMPDIR=/tmp"],
    Labels: {
      ...req.labels,
      [OWNER_LABEL]: String(owner.pid),
      ...(owner.start === null ? {} : { [OWNER_START_LABEL]: owner.start }),
      [HOST_LABEL]: os.hostname(),
      [SANDBOX_LABEL]: "1",
    },
    OpenStdin: true,
    StdinOnce: true,
    AttachStdin: true,
    AttachStdout: true,
    AttachStderr: true,
    Tty: false,
    NetworkDisabled: true,
    HostConfig: {
      AutoRemove: true,
      NetworkMode: "none",
      // Docker's default set is what Harbor's containers get (apt-get drops to _apt, tasks chown); no-new-privileges stays.
      ...(req.defaultCapabilities ? {} : { CapDrop: ["ALL"] }),
      SecurityOpt: ["no-new-privileges"],
      PidsLimit: l.pids,
      Memory: l.memoryBytes,
      MemorySwap: l.memoryBytes, // equal to Memory: no swap
      NanoCpus: Math.round(l.cpus * 1e9),
      // The agent and every command inherit it; the agent ignores SIGXFSZ for its own writes, its commands do not (see agent.py).
      ...(l.fileBytes !== undefined ? { Ulimits: [{ Name: "fsize", Soft: l.fileBytes, Hard: l.fileBytes }] } : {}),
      // Read-only unless the environment asks otherwise (Harbor tasks install and write outside the workdir, as in their own image).
      ReadonlyRootfs: !req.writableRoot,
      Tmpfs: { "/tmp": `rw,nosuid,nodev,size=${l.tmpfsBytes},mode=1777` },
      // An anonymous volume: writable, starts as a copy of the image's (empty, user-owned)
      // workdir, reachable by putArchive/getArchive, and removed with the container. Its disk
      // quota (see workdirVolume) is a tmpfs of the request's size.
      Mounts: [{ Type: "volume", Source: "", Target: req.workdir, ...workdirVolume(req) }],
      // No init of docker's: the agent is the PID namespace's init, which the commands it runs cannot kill (see agent.py).
      Init: false,
      LogConfig: { Type: "none", Config: {} },
    },
  };
}

/**
 * The workdir volume's disk quota: a tmpfs (nosuid, nodev) of `limits.diskBytes`, so a model
 * that fills the workdir fails its own writes ('No space left on device') instead of the
 * engine's disk. Its pages count against the container's memory as it writes them. Not for a
 * writable root (Harbor tasks): their image's workdir may be large, the engine copies it into
 * the volume outside the container's limits, and their root is unbounded anyway (a quota on
 * the container's layer needs overlay2 on xfs with pquota).
 */
function workdirVolume(req: SandboxRequest): Partial<Docker.MountSettings> {
  if (req.writableRoot) return {};
  const size = req.limits.diskBytes ?? DEFAULT_DISK_BYTES;
  return {
    VolumeOptions: {
      // Copied from the image as a plain volume is: the workdir's owner and modes, any files it holds.
      NoCopy: false,
      Labels: {},
      DriverConfig: { Name: "local", Options: { type: "tmpfs", device: "tmpfs", o: `size=${size},nosuid,nodev` } },
    },
  };
}

/** A started sandbox container with its agent answering. */
export interface LiveContainer {
  container: Docker.Container;
  agent: AgentClient;
  name: string;
  /** Kills its commands from outside when the agent does not answer past a deadline. */
  backstop: ContainerBackstop;
  /** Why a wipe could not prove the container clean: it is never lent again. */
  spoiled?: string;
}

export async function startContainer(docker: Docker, req: SandboxRequest): Promise<LiveContainer> {
  const name = `rlenv-${process.pid}-${randomBytes(5).toString("hex")}`;
  const container = await docker.createContainer(containerSpec(req, name)).catch((e: Error & { statusCode?: number }) => {
    // The engine's own words ("no such container - No such image") name neither the image's origin nor the fix.
    if (e.statusCode === 404 && /no such image/i.test(e.message))
      throw new Error(
        `the sandbox image ${req.image} is not on this machine: build it with \`rlenv image build\` (a recipe name, or the environment folder for sandbox.build)`,
      );
    throw e;
  });
  try {
    const stream = (await container.attach({ stream: true, stdin: true, stdout: true, stderr: true, hijack: true })) as unknown as Duplex;
    const agent = dockerAgentClient(stream);
    await container.start();
    await agent.ready;
    return { container, agent, name, backstop: new ContainerBackstop(container, agent, req.user ?? "1000:1000") };
  } catch (e) {
    // An agent that died at start has set off the engine's auto-removal: removeContainer waits for it.
    await removeContainer(container).catch(() => {});
    throw e;
  }
}
