import { chmodSync, cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parse, stringify } from "smol-toml";
import { executablePaths, isExecutable, sandboxFiles } from "../model/file-content";
import type { Environment } from "../model/environment";
import type { LoadedTask } from "../model/environment";
import { renderTemplate } from "../model/prompt-template";
import { buildContext } from "../sandbox/image/context";
import { stockRecipe } from "../sandbox/image/stand-in";
import { parseSize } from "../sandbox/size";
import type { VerifierConfig } from "../schema/verifier";
import { type ExportDocument, graderSpec } from "./export-grader";
import { verifierEntry } from "../reward/verifier-table";
import { harborPython } from "./python-assets";
import { HARBOR_EXTRA } from "./import";
import { SOLUTION_MARK } from "./native-solution";
import { taskSeed } from "../sandbox/task-files";
import type { FileMap } from "../schema/common";
import { shq } from "../util/shell-quote";

export interface ExportResult {
  /** Harbor task folders written. */
  written: string[];
  /** What could not be carried over, per task: said, never dropped silently. */
  warnings: string[];
}

function sh(lines: string[]): string {
  return `#!/bin/bash\n${lines.join("\n")}\n`;
}

/** A Dockerfile's FROM of a stock rlenv image made buildable anywhere: Debian from a registry plus the recipe's packages. */
function portableFrom(image: string): string[] {
  const recipe = stockRecipe(image);
  if (!recipe) return [`FROM ${image}`];
  return [
    `FROM debian:${recipe.tag.split(":")[1] ?? "bookworm"}-slim`,
    `RUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ${recipe.packages.join(" ")} && rm -rf /var/lib/apt/lists/*`,
  ];
}

/**
 * The test.sh line that writes reward.json: one key per component, named as rlenv names it (the
 * verifier's name), and with several the weighted `reward` over them. The Python is one constant
 * word; each name goes in as an argument through shq and each score as "$score_i", so neither
 * quotes in a name nor the shell's single quotes (which never expand `$score_i`) lose a key.
 */
function rewardJsonLine(parts: ReadonlyArray<{ name: string; weight: number; i: number }>): string {
  const total = parts.reduce((a, p) => a + p.weight, 0) || 1;
  const args = parts.map((p) => `${shq(p.name)} ${shq(String(p.weight / total))} "$score_${p.i}"`).join(" ");
  return `python3 -c ${shq(harborPython("reward_json.py"))} ${args}`;
}

/** Where an exported task's agent leaves its answer: Harbor has no submit step, so the answer graders read this file. */
export const ANSWER_FILE = "/logs/agent/answer.json";

/** The test.sh lines that score one verifier into the shell variable `score_<i>`; null when it cannot run outside rlenv. */
function verifierLines(
  v: VerifierConfig,
  task: LoadedTask,
  i: number,
  files: Map<string, Buffer>,
  documents: readonly ExportDocument[],
  warn: (m: string) => void,
): string[] | null {
  const name = `score_${i}`;
  const graded = graderSpec(v, task, documents);
  if (graded) {
    for (const u of graded.unsupported)
      warn(`the ${v.type} verifier '${v.name ?? v.type}' field ${u} is graded by rlenv's own code only: it scores 0 in Harbor's grader.py`);
    files.set(`grade_${i}.json`, Buffer.from(JSON.stringify(graded.spec)));
    files.set("grader.py", Buffer.from(harborPython("grader.py")));
    return [
      `${name}=$(python3 /tests/grader.py /tests/grade_${i}.json ${ANSWER_FILE} 2>>/logs/verifier/grader.txt | tail -n 1)`,
      `: "\${${name}:=0}"`,
    ];
  }
  const grader = verifierEntry(v).harbor;
  if (grader.kind !== "exec") return null;
  return grader.lines(v, {
    task,
    index: i,
    addFile: (rel, bytes) => files.set(rel, bytes),
    addProgram: (program) => {
      files.set(program, Buffer.from(harborPython(program)));
      return `/tests/${program}`;
    },
  });
}

/** Writes a file of one exported task's folder; the task's file maps; its warnings. */
interface TaskFolder {
  write(rel: string, bytes: Buffer | string, executable?: boolean): void;
  writeMap(prefix: string, map: FileMap | undefined): void;
  warn(message: string): void;
}

function writeSolution(out: TaskFolder, m: Environment["manifest"], task: LoadedTask, answerGraded: boolean): void {
  const { write, writeMap, warn } = out;
  // solution/: written back as imported, else a solve.sh that plays the reference solution.
  const s = task.solution;
  if (s?.commands?.[0]?.startsWith(SOLUTION_MARK)) {
    writeMap("solution/", s.files);
  } else if (s) {
    const lines = ["set -e", `cd ${shq(m.sandbox.workdir)}`];
    for (const [p, c] of Object.entries(sandboxFiles(s.files))) {
      const b64 = (Buffer.isBuffer(c) ? c : Buffer.from(c)).toString("base64");
      lines.push(`mkdir -p "$(dirname ${shq(p)})"`, `echo ${shq(b64)} | base64 -d > ${shq(p)}`);
      if (s.files && isExecutable(s.files[p] ?? "")) lines.push(`chmod 755 ${shq(p)}`);
    }
    if (s.patch)
      lines.push(
        "cat > /tmp/solution.patch <<'RLENV_PATCH'",
        s.patch.replace(/\n?$/, "\n") + "RLENV_PATCH",
        "git apply /tmp/solution.patch || patch -p1 < /tmp/solution.patch",
      );
    for (const c of s.commands ?? []) lines.push(c);
    if (s.answer !== undefined) {
      lines.push(`mkdir -p /logs/agent && cat > ${ANSWER_FILE} <<'RLENV_ANSWER'`, JSON.stringify(s.answer), "RLENV_ANSWER");
      if (!answerGraded) warn(`the reference answer is written to ${ANSWER_FILE}, but no verifier of this task grades an answer in Harbor`);
    }
    if (s.tool_calls?.length)
      warn(`${s.tool_calls.length} reference tool call(s) are not exported: Harbor's oracle runs a shell script only`);
    write("solution/solve.sh", sh(lines), true);
  } else warn("no reference solution: the task has no solution/solve.sh");
}

function writeTests(
  out: TaskFolder,
  m: Environment["manifest"],
  task: LoadedTask,
  documents: readonly ExportDocument[],
  answerGraded: boolean,
): void {
  const { write, writeMap, warn } = out;
  // tests/: as imported (harbor verifier), else a test.sh running the exec-based verifiers.
  const verifiers = task.reward ?? m.reward;
  if (verifiers.length === 1 && verifiers[0]?.type === "harbor") {
    writeMap("tests/", task.tests?.files);
    return;
  }
  const extra = new Map<string, Buffer>();
  const lines = [
    "mkdir -p /logs/verifier",
    "# Hidden test files go into the workdir, where rlenv's verifiers find them.",
    'cp -a /tests/files/. "$PWD"/ 2>/dev/null || true',
  ];
  const parts: Array<{ name: string; weight: number; i: number }> = [];
  verifiers.forEach((v, i) => {
    const got = verifierLines(v, task, i, extra, documents, warn);
    if (!got) {
      warn(
        `the ${v.type} verifier '${v.name ?? v.type}' is graded by rlenv's own code and cannot run in Harbor's container: left out of test.sh`,
      );
      return;
    }
    lines.push(...got);
    // Two verifiers of one name (two unnamed `tests`) would share a key of reward.json: the later ones get `_2`, `_3`.
    const base = v.name ?? v.type;
    let name = base;
    for (let n = 2; parts.some((p) => p.name === name); n++) name = `${base}_${n}`;
    parts.push({ name, weight: v.weight, i });
  });
  writeMap("tests/files/", task.tests?.files);
  for (const [p, c] of extra) write(`tests/${p}`, c);
  if (parts.length === 0) lines.push("echo 0 > /logs/verifier/reward.txt");
  else if (parts.length === 1 && !answerGraded) lines.push(`echo "$score_${parts[0]?.i}" > /logs/verifier/reward.txt`);
  else lines.push(rewardJsonLine(parts));
  write("tests/test.sh", sh(lines), true);
}

/**
 * `rlenv export harbor`: each task of an environment becomes a Harbor task folder. A task
 * imported from Harbor (metadata.harbor.task_toml, the oracle command of import) is written
 * back as it was: task.toml field for field, instruction.md, environment/, tests/ and
 * solution/ byte for byte. Any other task gets a task.toml from the manifest's limits and
 * timeouts, a Dockerfile (the environment's own, else Debian with the stock image's packages)
 * that bakes the seed files into the workdir, a solve.sh playing the reference solution, and
 * a test.sh that runs the exec-based verifiers (tests: exit status or stdio cases; script) and
 * writes reward.txt (one) or reward.json (several, each by name, plus their weighted reward).
 * Verifiers graded by rlenv's own code (exact, numeric, fields, judge, scene) cannot run in
 * Harbor's container: each is a warning.
 */
export function exportHarbor(env: Environment, outDir: string, opts: { documents?: readonly ExportDocument[] } = {}): ExportResult {
  const documents = opts.documents ?? [];
  const result: ExportResult = { written: [], warnings: [] };
  const m = env.manifest;
  const harbor = m.metadata?.harbor as { task_toml?: Record<string, unknown>; task_toml_text?: string } | undefined;
  const harborToml = harbor?.task_toml;
  // The imported file's text, while its fields are still those of the manifest's copy (else they were edited here).
  let harborText: string | undefined;
  try {
    if (harbor?.task_toml_text && JSON.stringify(parse(harbor.task_toml_text)) === JSON.stringify(harborToml))
      harborText = harbor.task_toml_text;
  } catch {}
  for (const task of env.tasks) {
    const dir = path.join(outDir, task.id.replace(/\//g, "-"));
    const write = (rel: string, bytes: Buffer | string, executable = false) => {
      const to = path.join(dir, rel);
      mkdirSync(path.dirname(to), { recursive: true });
      writeFileSync(to, bytes);
      if (executable) chmodSync(to, 0o755);
    };
    /** A task's file map under `prefix`, its executable files with their mode. */
    const writeMap = (prefix: string, map: FileMap | undefined) => {
      const executable = new Set(executablePaths(map));
      for (const [p, c] of Object.entries(sandboxFiles(map))) write(`${prefix}${p}`, c, executable.has(p));
    };
    const warn = (message: string) => result.warnings.push(`${task.id}: ${message}`);
    result.written.push(dir);
    const verifierTimeout = Math.max(...(task.reward ?? m.reward).map((v) => v.timeout ?? 600));
    const toml = harborToml ?? {
      schema_version: "1.1",
      metadata: { ...(task.metadata ?? {}), rlenv_environment: m.name, rlenv_domain: m.domain },
      verifier: { timeout_sec: verifierTimeout },
      agent: { timeout_sec: m.sandbox.timeouts.rollout },
      environment: {
        build_timeout_sec: 600,
        cpus: Math.max(1, Math.ceil(m.sandbox.limits.cpus)),
        memory_mb: Math.round(parseSize(m.sandbox.limits.memory) / (1024 * 1024)),
        network_mode: "no-network",
      },
    };
    write("task.toml", harborText ?? stringify(toml));
    const carried = path.join(env.dir, HARBOR_EXTRA);
    if (harborToml && existsSync(carried)) cpSync(carried, dir, { recursive: true });
    const plain = env.prompts.system.trim() === "" && env.prompts.user.trim() === "{{task.prompt}}";
    // Harbor has no submit step: an agent whose answer is graded writes it to a file, and reads the task's documents in the workdir.
    const answerGraded = (task.reward ?? m.reward).some((v) => graderSpec(v, task) !== null);
    const named = documents.filter((d) => task.prompt.includes(d.name.split("/").pop() ?? d.name));
    const harborNote = [
      ...(named.length > 0 ? [`The documents are in ${m.sandbox.workdir}/documents/: ${named.map((d) => d.name).join(", ")}.`] : []),
      ...(answerGraded ? [`When you are done, write your answer to ${ANSWER_FILE} as JSON: the object you would submit.`] : []),
    ];
    write(
      "instruction.md",
      (plain
        ? task.prompt
        : [env.prompts.system, env.prompts.user]
            .filter((t) => t.trim())
            .map((t) => renderTemplate(t, env, task))
            .join("\n\n")) + (harborNote.length > 0 ? `\n\n${harborNote.join("\n")}\n` : ""),
    );

    // environment/: the build context, or a Dockerfile for the stock image; seed files baked in.
    const seedFiles = taskSeed(task);
    const seed: Record<string, string | Buffer> = sandboxFiles(seedFiles);
    // Docker's COPY keeps the build context's modes: an executable seed stays one in the image.
    const seedExecutable = new Set(executablePaths(seedFiles));
    if (env.paths.documents)
      for (const d of named) {
        const from = path.join(env.paths.documents, d.name);
        if (existsSync(from)) seed[`documents/${d.name}`] = readFileSync(from);
      }
    let original: string | null = null;
    let dockerfile: string[];
    if (m.sandbox.build && env.paths.build) {
      const ctx = buildContext(env);
      for (const f of ctx.files)
        if (path.join(ctx.dir, f) !== ctx.dockerfile) write(`environment/${f}`, readFileSync(path.join(ctx.dir, f)));
      original = readFileSync(ctx.dockerfile, "utf8");
      dockerfile = original
        .replace(/\n$/, "")
        .split("\n")
        .flatMap((l) => {
          const from = /^\s*FROM\s+(\S+)\s*$/i.exec(l);
          return from?.[1] && stockRecipe(from[1]) ? portableFrom(from[1]) : [l];
        });
    } else dockerfile = portableFrom(m.sandbox.image ?? "rlenv/python:bookworm");
    const before = dockerfile.join("\n");
    if (!harborToml) dockerfile.push(`WORKDIR ${m.sandbox.workdir}`);
    if (Object.keys(seed).length > 0) {
      for (const [p, c] of Object.entries(seed)) write(`environment/rlenv-seed/${p}`, c, seedExecutable.has(p));
      dockerfile.push(`COPY rlenv-seed/ ${m.sandbox.workdir}/`);
    }
    // A Dockerfile nothing had to change (an imported Harbor task's) is written byte for byte.
    const unchanged = original !== null && dockerfile.join("\n") === before && before === original.replace(/\n$/, "");
    write("environment/Dockerfile", unchanged && original !== null ? original : `${dockerfile.join("\n")}\n`);

    const out: TaskFolder = { write, writeMap, warn };
    writeSolution(out, m, task, answerGraded);
    writeTests(out, m, task, documents, answerGraded);
  }
  return result;
}
