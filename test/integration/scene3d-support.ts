import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { loadEnvironment } from "../../src/core/environment/load-environment";
import type { Environment } from "../../src/core/model/environment";
import { runEnvironment } from "../../src/core/rollout/run-environment";
import type { TrajectoryEvent } from "../../src/core/schema/trajectory";
import { missing } from "../support/services";

/** Helpers for the scene3d tests: the real example environments and the real engine. */
export const REPO = path.resolve(import.meta.dirname, "..", "..");

export function loadSceneEnv(name: string): Environment {
  const { env, problems } = loadEnvironment(path.join(REPO, "environments", name));
  const errors = problems.filter((p) => p.severity === "error");
  if (!env || errors.length > 0)
    throw new Error(`${name} does not load: ${errors.map((p) => `${p.file}:${p.line}: ${p.message}`).join("; ")}`);
  return env;
}

/** Why the Blender tests cannot run here, or false. They need Debian's blender on the host (the process sandbox runs it). */
export function blenderSkip(): string | false {
  try {
    const out = execFileSync("blender", ["--version"], { encoding: "utf8", timeout: 30_000, stdio: ["ignore", "pipe", "ignore"] });
    return /Blender 3\./.test(out) ? false : `blender --version says '${out.split("\n")[0]}', want 3.x`;
  } catch {
    return "blender is not installed here (apt-get install -y blender python3-numpy)";
  }
}

export const BLENDER_IMAGE = "rlenv/blender:bookworm";

/**
 * Why Blender cannot run in this kind of sandbox here, or false: the process sandbox runs
 * the host's blender; the docker one needs the image built from scripts/image/recipes/blender.txt.
 */
export function blenderSandboxSkip(backend: "process" | "docker"): string | false {
  if (backend === "process") return blenderSkip();
  const why = missing("docker") || missing("image");
  if (why) return why;
  try {
    execFileSync("docker", ["image", "inspect", BLENDER_IMAGE], { stdio: "ignore", timeout: 30_000 });
    return false;
  } catch {
    return `the image ${BLENDER_IMAGE} is not built here (rlenv image build blender)`;
  }
}

export async function rollAll(env: Environment, policy: "oracle" | "nop", opts: { tasks?: string[]; concurrency?: number } = {}) {
  const runsDir = mkdtempSync(path.join(tmpdir(), "rlenv-scene3d-"));
  try {
    const res = await runEnvironment({
      env,
      config: {
        policy: { kind: policy },
        sandbox: "process",
        concurrency: opts.concurrency ?? 2,
        ...(opts.tasks ? { tasks: opts.tasks } : {}),
      },
      runsDir,
      maxInfraAttempts: 1,
    });
    return res.rollouts.map((r) => ({
      ...r,
      events: readFileSync(r.file, "utf8")
        .split("\n")
        .filter((l) => l.trim())
        .map((l) => JSON.parse(l) as TrajectoryEvent),
    }));
  } finally {
    rmSync(runsDir, { recursive: true, force: true });
  }
}
