import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { stringify } from "yaml";
import { HARBOR_PARTS, loadHarborTask } from "./load-harbor";
import { nativeSolutionCommand } from "./native-solution";
import { readTree } from "../util/read-tree";
import type { TreeFile } from "../model/harbor";

/** The folder of an imported environment holding the Harbor task's files that are none of its parts. */
export const HARBOR_EXTRA = "harbor-extra";

export interface ImportResult {
  /** Native environment folders written, one per task. */
  written: string[];
  /** Tasks not imported, each with why (one broken task does not stop the others). */
  failed: Array<{ dir: string; message: string }>;
}

/**
 * Writes a tree with its modes as they were: test.sh and solve.sh too, which Harbor (and the
 * verifier and oracle here) `chmod +x` before running them, so export gives back the same modes.
 */
function writeTree(dir: string, files: Map<string, TreeFile>): void {
  for (const [rel, f] of files) {
    const to = path.join(dir, rel);
    mkdirSync(path.dirname(to), { recursive: true });
    writeFileSync(to, f.bytes);
    if (f.executable) chmodSync(to, 0o755);
  }
}

/**
 * `rlenv import harbor`: each Harbor task becomes a native environment folder (it has an image
 * of its own) named after the task:
 *   environment.yaml      sandbox.build on environment/Dockerfile, limits and timeouts from
 *                         task.toml, reward [type: harbor]; metadata.harbor.task_toml holds
 *                         the whole task.toml, so export writes it back field for field
 *   environment/          the Docker build context, byte for byte
 *   tasks/<id>/task.yaml  the prompt (instruction.md) and the oracle command
 *   tasks/<id>/tests/     hidden tests (copied to /tests after the agent)
 *   tasks/<id>/solution/  the solution files (moved to /solution, then solve.sh runs)
 */
export function importHarbor(taskDirs: readonly string[], outDir: string): ImportResult {
  const result: ImportResult = { written: [], failed: [] };
  for (const dir of taskDirs) {
    const { env, problems } = loadHarborTask(dir);
    const h = env?.harbor;
    const task = env?.tasks[0];
    if (!env || !h || !task) {
      const errors = problems.filter((p) => p.severity === "error").map((p) => `${p.file}:${p.line}: ${p.message}`);
      result.failed.push({ dir, message: errors.join("; ") || "the task does not load" });
      continue;
    }
    if (task.stages) {
      // The native layout has one prompt, one set of tests and one oracle per task: converting would drop the later steps.
      result.failed.push({
        dir,
        message: `a multi-step task (${task.stages.list.length} [[steps]]) has no native layout here: run its folder as it is (rlenv validate --run ${dir})`,
      });
      continue;
    }
    const out = path.join(outDir, env.manifest.name);
    if (existsSync(path.join(out, "environment.yaml"))) {
      result.failed.push({ dir, message: `${out} already holds an environment: not overwritten` });
      continue;
    }
    const id = task.id;
    const s = env.manifest.sandbox;
    const solution = existsSync(path.join(dir, "solution")) ? readTree(path.join(dir, "solution"), dir) : new Map<string, TreeFile>();
    const manifest = {
      name: env.manifest.name,
      domain: "code",
      ...(env.manifest.description ? { description: env.manifest.description } : {}),
      sandbox: {
        build: "environment/Dockerfile",
        workdir: s.workdir,
        user: s.user,
        rootfs: "writable",
        capabilities: "default",
        reset: "recreate",
        limits: {
          cpus: s.limits.cpus,
          memory: s.limits.memory,
          pids: s.limits.pids,
          tmpfs: s.limits.tmpfs,
          file_size: s.limits.file_size,
          disk: s.limits.disk,
        },
        timeouts: { step: s.timeouts.step, rollout: s.timeouts.rollout },
      },
      tasks: "tasks",
      tools: env.manifest.tools,
      max_turns: env.manifest.max_turns,
      reward: env.manifest.reward,
      // Harbor's tests read what the agent installed or left running: judged in its sandbox, after the clean slate.
      judge: { sandbox: "agent" },
      // The file's own text too: export writes it back as it was (comments, canary strings) while its fields are unchanged.
      metadata: { harbor: { task_toml: h.config.raw, task_toml_text: readFileSync(path.join(dir, "task.toml"), "utf8") } },
    };
    mkdirSync(out, { recursive: true });
    writeFileSync(path.join(out, "environment.yaml"), stringify(manifest, { lineWidth: 0 }));
    writeTree(path.join(out, "environment"), h.image.context);
    const taskDir = path.join(out, "tasks", id);
    mkdirSync(taskDir, { recursive: true });
    const taskYaml = {
      prompt: task.prompt,
      ...(solution.size > 0
        ? { solution: { commands: [nativeSolutionCommand([...solution.keys()], { ...h.config.env, ...h.config.solutionEnv })] } }
        : {}),
      ...(task.metadata ? { metadata: task.metadata } : {}),
    };
    writeFileSync(path.join(taskDir, "task.yaml"), stringify(taskYaml, { lineWidth: 0, blockQuote: "literal" }));
    writeTree(path.join(taskDir, "tests"), readTree(path.join(dir, "tests"), dir));
    if (solution.size > 0) writeTree(path.join(taskDir, "solution"), solution);
    // Files beside the task's own parts (a README, a job config, custom metrics) ride along in harbor-extra/.
    const extra = [...readTree(dir).entries()].filter(([rel]) => !HARBOR_PARTS.has(rel.split("/")[0] ?? ""));
    if (extra.length > 0) writeTree(path.join(out, HARBOR_EXTRA), new Map(extra));
    result.written.push(out);
  }
  return result;
}
