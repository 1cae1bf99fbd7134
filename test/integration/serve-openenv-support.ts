/**
 * The OpenEnv conformance suite's server and reference runs: the real `rlenv serve` server
 * (startServeServer, in process) with only the OpenEnv mount, and the same task rolled out by
 * runRollout on a provider of the same backend, so the two rewards can be compared.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { openEnvMount } from "../../src/core/serve/openenv/openenv-mount";
import { type ServeServer, startServeServer } from "../../src/core/serve/serve-server";
import type { TrajectoryEvent } from "../../src/core/schema/trajectory";

export async function serveOpenEnv(
  dirs: string[],
  backend: "process" | "docker",
  o: { maxSessions?: number; idleTimeoutMs?: number } = {},
): Promise<{ server: ServeServer; runsDir: string; close(): Promise<void> }> {
  const runsDir = mkdtempSync(path.join(tmpdir(), "rlenv-serve-openenv-"));
  const server = await startServeServer({
    dirs,
    port: 0,
    maxSessions: o.maxSessions ?? 8,
    idleTimeoutMs: o.idleTimeoutMs ?? 0,
    protocols: [openEnvMount],
    backend,
    runsDir,
  });
  return {
    server,
    runsDir,
    close: async () => {
      await server.close();
      rmSync(runsDir, { recursive: true, force: true });
    },
  };
}

export function trajectoryEvents(file: string): TrajectoryEvent[] {
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as TrajectoryEvent);
}

/** Every process below `root` whose command line names `folder`, and their descendants (a process sandbox's). */
export function sandboxProcesses(root: number, folder: string): number[] {
  const parent = new Map<number, number>();
  const cmdline = new Map<number, string>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "latin1");
      parent.set(Number(name), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
      cmdline.set(Number(name), readFileSync(`/proc/${name}/cmdline`, "latin1"));
    } catch {}
  }
  const out: number[] = [];
  const walk = (p: number, inside: boolean) => {
    for (const [pid, pp] of parent) {
      if (pp !== p) continue;
      const mine = inside || (cmdline.get(pid) ?? "").includes(folder);
      if (mine) out.push(pid);
      walk(pid, mine);
    }
  };
  walk(root, false);
  return out;
}

/** Polls until `check` holds (no timing asserted: the test's own timeout bounds it). */
export async function until(check: () => boolean | Promise<boolean>, what: string, tries = 600): Promise<void> {
  for (let i = 0; i < tries; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`never happened: ${what}`);
}
