/**
 * The OpenEnv conformance suite's server and reference runs: the real `rlenv serve` server
 * (startServeServer, in process) with only the OpenEnv mount, and the same task rolled out by
 * runRollout on a provider of the same backend, so the two rewards can be compared.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
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

/**
 * A copy of the rollout fixture whose tool calls may take two minutes (the fixture's own step
 * limit is 5 s). The fault tests kill a sandbox while its slow tool runs: on a loaded machine
 * finding that sandbox can take longer than 5 s, and the step's own timeout then ended the
 * call first, a tool error the test mistook for the engine missing the kill.
 */
export function patientFixture(fixture: string): { dir: string; cleanup(): void } {
  const root = mkdtempSync(path.join(tmpdir(), "rlenv-patient-fixture-"));
  const dir = path.join(root, path.basename(fixture));
  cpSync(fixture, dir, { recursive: true });
  const manifest = path.join(dir, "environment.yaml");
  const text = readFileSync(manifest, "utf8");
  const patient = text.replace(/timeouts: \{ step: \d+, rollout: \d+ \}/, "timeouts: { step: 120, rollout: 300 }");
  if (patient === text) throw new Error(`${manifest}: no 'timeouts: { step: N, rollout: N }' line to lengthen`);
  writeFileSync(manifest, patient);
  return { dir, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

export { sandboxProcesses } from "../support/proc-tree";

export function trajectoryEvents(file: string): TrajectoryEvent[] {
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as TrajectoryEvent);
}

/** Polls until `check` holds (no timing asserted: the test's own timeout bounds it). */
export async function until(check: () => boolean | Promise<boolean>, what: string, tries = 600): Promise<void> {
  for (let i = 0; i < tries; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`never happened: ${what}`);
}
