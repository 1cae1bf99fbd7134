import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Environment } from "../../src/core/model/environment";
import { loadEnvironment } from "../../src/core/environment/load-environment";
import { readTrajectory } from "../../src/core/runs/trajectory-reader";
import { createSandboxProvider } from "../../src/core/sandbox/create-provider";
import type { SandboxProvider } from "../../src/core/model/sandbox";
import type { Manifest } from "../../src/core/schema/manifest";
import type { TrajectoryEvent } from "../../src/core/schema/trajectory";

export const FIXTURE = path.join(__dirname, "../fixtures/rollout-env");

export function fixtureEnv(): Environment {
  const { env, problems } = loadEnvironment(FIXTURE);
  if (!env || problems.length > 0) throw new Error(`fixture does not load: ${JSON.stringify(problems)}`);
  return env;
}

/** The fixture with some manifest fields replaced (timeouts, reward list, max_turns). */
export function variant(patch: (m: Manifest) => Partial<Manifest>): Environment {
  const env = fixtureEnv();
  return { ...env, manifest: { ...env.manifest, ...patch(env.manifest) } };
}

const made: string[] = [];
// Test folders go when the test process ends (hundreds piled up in /tmp otherwise).
process.once("exit", () => {
  for (const dir of made) {
    try {
      rmSync(dir, { recursive: true, force: true });
    } catch {
      // a sandbox's leftover the test already reported
    }
  }
});

/** A fresh folder under the system's temporary one, removed when the test process exits. */
export const tmp = (prefix: string) => {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  made.push(dir);
  return dir;
};

/** A process-backend provider in its own folder, so a test can check nothing is left behind; null when this machine cannot isolate. */
export async function processProvider(): Promise<{ provider: SandboxProvider; baseDir: string } | { skip: string }> {
  const baseDir = tmp("rlenv-sbx-");
  try {
    const { ProcessSandboxProvider } = await import("../../src/core/sandbox/process/provider");
    return { provider: new ProcessSandboxProvider({ baseDir }), baseDir };
  } catch (e) {
    return { skip: `process sandbox unavailable: ${(e as Error).message}` };
  }
}

export async function anyProvider(backend: "process" | "docker"): Promise<SandboxProvider> {
  return createSandboxProvider({ backend });
}

export const leftovers = (baseDir: string) => readdirSync(baseDir);

export function events(file: string): TrajectoryEvent[] {
  const r = readTrajectory(file);
  if (r.bad.length > 0) throw new Error(`${file}: ${JSON.stringify(r.bad)}`);
  return r.events;
}

export function ofType<T extends TrajectoryEvent["type"]>(evs: TrajectoryEvent[], type: T): Array<Extract<TrajectoryEvent, { type: T }>> {
  return evs.filter((e): e is Extract<TrajectoryEvent, { type: T }> => e.type === type);
}
