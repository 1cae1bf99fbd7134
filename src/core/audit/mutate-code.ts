import { readFileSync } from "node:fs";
import path from "node:path";
import type { Environment } from "../model/environment";
import type { LoadedTask } from "../model/environment";
import { sandboxRequest } from "../sandbox/request";
import type { Sandbox, SandboxProvider } from "../model/sandbox";
import type { Solution } from "../schema/task";
import { contentOfBytes, isExecutable, textFiles } from "../model/file-content";
import type { FileMap } from "../schema/common";
import { allTextFiles } from "./file-map";
import { resetToSeed, taskSeed, writeTaskFiles } from "../sandbox/task-files";
import { argvOf, type ScreenCandidate, type ScreenPlan, type ScreenRun } from "./screen";
import { auditAssetPath } from "./shipped-asset";
import { editablePythonFiles, patchedFiles } from "./probe-vars";

/** One mutant of the reference solution's Python, as rlenv_mutate.py made it. */
export interface CodeMutant {
  file: string;
  operator: string;
  line: number;
  description: string;
  source: string;
  original: string;
  diff: string;
}

/** A Python helper shipped in src/core/audit/python (dist/audit/python in a bundle), as text. */
export function auditPython(name: string): string {
  return readFileSync(auditAssetPath(path.posix.join("python", name), name), "utf8");
}

/** In the workbench's own workdir (readFiles reads there); no rollout ever sees it. */
const TRACE_DIR = ".rlenv-audit";
const TRACE_OUT = ".rlenv-audit/trace.json";
/** What a traced run of the test command reads as its sentinel (the real one never leaves a rollout). */
const TRACE_STDIN = "rlenv-sentinel-audit-trace\n";

/**
 * A sandbox holding a task's reference solution, where the mutants are made (Python's own
 * ast, in the task's image) and where a surviving mutant's outputs are compared with the
 * gold's. It is not a rollout: the mutants themselves are played by the oracle through the
 * ordinary engine.
 */
export class MutationWorkbench {
  private constructor(
    private readonly sb: Sandbox,
    private readonly env: Environment,
    private readonly task: LoadedTask,
    /** The solution's files as they are once it is applied (a patch's result included). */
    /** The reference solution's files as the oracle leaves them (a patch's result included), bytes and modes kept. */
    readonly gold: FileMap,
  ) {}

  static async open(provider: SandboxProvider, env: Environment, task: LoadedTask, signal?: AbortSignal): Promise<MutationWorkbench> {
    const sb = await provider.acquire(sandboxRequest(env, { "rlenv.audit": task.id }, signal));
    try {
      const seed = taskSeed(task);
      await resetToSeed(sb, seed);
      const s = task.solution ?? {};
      if (s.files) await writeTaskFiles(sb, s.files);
      if (s.patch) {
        const r = await sb.exec(
          "cat > /tmp/.rlenv-audit.patch && (git apply --whitespace=nowarn /tmp/.rlenv-audit.patch 2>/dev/null || patch -p1 --forward < /tmp/.rlenv-audit.patch)",
          { stdin: s.patch.endsWith("\n") ? s.patch : `${s.patch}\n`, timeoutMs: 60_000 },
        );
        if (r.status !== "ok" || r.exitCode !== 0) throw new Error(`the reference patch does not apply: ${r.stderr.slice(0, 300)}`);
      }
      const names = [...new Set([...Object.keys(s.files ?? {}), ...patchedFiles(s.patch)])];
      const read = await sb.readFiles(names);
      const gold: FileMap = {};
      for (const n of names) {
        const b = read[n];
        // Bytes as they are (a binary file decoded as UTF-8 would be written back damaged), executable as given.
        if (b) gold[n] = contentOfBytes(b, isExecutable(s.files?.[n] ?? seed[n] ?? ""));
      }
      return new MutationWorkbench(sb, env, task, gold);
    } catch (e) {
      await sb.close().catch(() => {});
      throw e;
    }
  }

  /** The Python files of the solution that can be mutated. */
  targets(): string[] {
    const editable = new Set(editablePythonFiles(this.task));
    return Object.keys(this.gold)
      .filter((n) => editable.has(n))
      .sort();
  }

  /** Up to `max` mutants, the same ones for the same seed. */
  async mutants(seed: number, max: number): Promise<{ mutants: CodeMutant[]; candidates: number; errors: string[] }> {
    const files = this.targets();
    if (files.length === 0 || max === 0) return { mutants: [], candidates: 0, errors: [] };
    const r = await this.sb.exec(["python3", "-", "--seed", String(seed), "--max", String(max), ...files], {
      stdin: auditPython("rlenv_mutate.py"),
      timeoutMs: 120_000,
      maxOutputBytes: 64 * 1024 * 1024,
    });
    if (r.status !== "ok" || r.exitCode !== 0)
      throw new Error(`the mutator failed (${r.reason ?? `exit ${r.exitCode}`}): ${r.stderr.slice(0, 500)}`);
    return JSON.parse(r.stdout) as { mutants: CodeMutant[]; candidates: number; errors: string[] };
  }

  get backend(): "docker" | "process" {
    return this.sb.backend;
  }

  get workdir(): string {
    return this.sb.workdir;
  }

  /** The reference solution as files (a patch's result included), as the oracle leaves the workdir. */
  goldSolution(): Solution {
    const s = this.task.solution ?? {};
    const { patch: _patch, ...rest } = s;
    return { ...rest, files: { ...this.gold } };
  }

  /** The reference solution with one file replaced by its mutant: the gold files written whole, so no patch is needed. */
  mutantSolution(m: CodeMutant): Solution {
    const s = this.task.solution ?? {};
    const { patch: _patch, ...rest } = s;
    return { ...rest, files: this.withMutant(m) };
  }

  /** The gold's files with one replaced by its mutant (an executable file stays one). */
  withMutant(m: Pick<CodeMutant, "file" | "source">): FileMap {
    const was = this.gold[m.file];
    return { ...this.gold, [m.file]: was !== undefined && isExecutable(was) ? { text: m.source, executable: true } : m.source };
  }

  /**
   * What the code computes on the task's own inputs, with these files in place: for a
   * stdio verifier the output of every visible and hidden case; otherwise the values the
   * solution's functions return while the hidden tests run (rlenv_trace.py). Null when it
   * cannot be told (a verifier with no command to trace).
   */
  async outputs(files: FileMap): Promise<string | null> {
    await writeTaskFiles(this.sb, files);
    const tests = this.tracedVerifier();
    if (!tests) return null;
    const timeoutMs = (tests.timeout ?? 60) * 1000;
    if (tests.type === "tests" && tests.format === "stdio") {
      const program = tests.program ?? this.task.tests?.command ?? tests.command ?? "python3 solution.py";
      const cases = [...(this.task.tests?.cases ?? [])];
      for (const [n, text] of Object.entries(textFiles(this.task.visible_tests))) {
        if (!n.endsWith(".json")) continue;
        try {
          const parsed = JSON.parse(text) as Array<{ stdin?: string }>;
          if (Array.isArray(parsed)) for (const c of parsed) cases.push({ stdin: c.stdin ?? "", stdout: "" });
        } catch {}
      }
      const outs: string[] = [];
      for (const c of cases) {
        const r = await this.sb.exec(program, { stdin: c.stdin, timeoutMs: c.timeout ? c.timeout * 1000 : timeoutMs });
        outs.push(`${r.status}:${r.exitCode}:${r.stdout.replace(/[ \t]+$/gm, "").replace(/\n+$/, "")}`);
      }
      return JSON.stringify(outs);
    }
    const command = this.task.tests?.command ?? tests.command;
    if (!command) return null;
    await this.installTracer();
    if (this.task.tests?.files) await writeTaskFiles(this.sb, this.task.tests.files);
    await this.sb.exec(`rm -f ${TRACE_OUT}`, { timeoutMs: 10_000 });
    const r = await this.sb.exec(command, { stdin: TRACE_STDIN, timeoutMs, env: this.traceEnv() });
    const out = (await this.sb.readFiles([TRACE_OUT]))[TRACE_OUT];
    if (!out) return null;
    return `${r.status}:${r.exitCode}\n${out.toString("utf8")}`;
  }

  /**
   * outputs() for many sets of files (the gold's, then each mutant's) in one exec of the screen
   * (rlenv_screen.py): each set in a workdir of its own (the seed, the files, the tracer), the
   * task's test command run under the tracer with its full timeout. One exec instead of five per
   * set, which under load cost more than the traced runs. A stdio verifier, or files that are not
   * all text, take outputs() one set at a time. Leaves the workdir as restore() does.
   */
  async outputsMany(sets: ReadonlyArray<FileMap>): Promise<Array<string | null>> {
    const tests = this.tracedVerifier();
    const command = this.task.tests?.command ?? tests?.command;
    const seed = allTextFiles(taskSeed(this.task));
    const hidden = allTextFiles(this.task.tests?.files);
    const texts = sets.map((files) => allTextFiles(files));
    if (!tests || !command || (tests.type === "tests" && tests.format === "stdio") || !seed || !hidden || texts.some((t) => t === null)) {
      await this.restore();
      const out: Array<string | null> = [];
      for (const files of sets) {
        out.push(await this.outputs(files));
        await this.writeGold();
      }
      return out;
    }
    const tracer = auditPython("rlenv_trace.py");
    const runs = await this.screen(
      {
        seed,
        steps: [
          {
            argv: argvOf(command, this.env.manifest.domain === "code" ? "bash" : "sh"),
            hidden,
            stdin: TRACE_STDIN,
            timeout_ms: (tests.timeout ?? 60) * 1000,
            report: TRACE_OUT,
            env: this.traceEnv(),
          },
        ],
      },
      texts.map((files) => ({ files: { ...files, [`${TRACE_DIR}/sitecustomize.py`]: tracer } })),
    );
    await this.restore();
    if ("failed" in runs) throw new Error(runs.failed);
    return runs.map((r) => {
      const run = r?.[0];
      return run?.report ? `${run.status}:${run.exitCode}\n${run.report.toString("utf8")}` : null;
    });
  }

  /** The verifier whose command the equivalence check traces: the first tests or script one. */
  private tracedVerifier() {
    return this.env.manifest.reward.find((v) => v.type === "tests" || v.type === "script");
  }

  /** The test command's environment under the tracer (rlenv_trace.py): where it is, what it watches, where it writes. */
  private traceEnv(): Record<string, string> {
    return {
      PYTHONPATH: path.posix.join(this.sb.workdir, TRACE_DIR),
      RLENV_TRACE_FILES: this.targets()
        .map((f) => path.posix.join(this.sb.workdir, f))
        .join(":"),
      RLENV_TRACE_OUT: path.posix.join(this.sb.workdir, TRACE_OUT),
    };
  }

  private tracer = false;
  /** The tracer goes in only when outputs are wanted, so the screen's runs see the workdir as a rollout leaves it. */
  private async installTracer(): Promise<void> {
    if (this.tracer) return;
    const r = await this.sb.exec(`mkdir -p ${TRACE_DIR} && cat > ${TRACE_DIR}/sitecustomize.py`, {
      stdin: auditPython("rlenv_trace.py"),
      timeoutMs: 30_000,
    });
    if (r.status !== "ok" || r.exitCode !== 0) throw new Error(`could not install the tracer: ${r.stderr.slice(0, 300)}`);
    this.tracer = true;
  }

  /**
   * Every candidate's workdir through the verifier's commands in one exec (rlenv_screen.py):
   * each recorded run per candidate, in order, or why the screen failed as a whole. It leaves
   * the workdir empty: the reference solution must be written back before outputs().
   */
  async screen(
    plan: Pick<ScreenPlan, "seed" | "steps"> & Partial<Pick<ScreenPlan, "budget">>,
    candidates: ScreenCandidate[],
  ): Promise<Array<ScreenRun[] | null> | { failed: string }> {
    if (candidates.length === 0) return [];
    const stepsMs = plan.steps.reduce((s, st) => s + st.timeout_ms, 0) + 2000;
    const actionsMs = (c: ScreenCandidate) => (c.actions ?? []).reduce((s, a) => s + ("timeout_ms" in a ? a.timeout_ms : 0), 0);
    const limit = this.env.manifest.sandbox.limits.output;
    let source: string;
    try {
      source = auditPython("rlenv_screen.py");
    } catch (e) {
      return { failed: (e as Error).message };
    }
    const r = await this.sb.exec(["python3", "-I", "-c", source], {
      stdin: JSON.stringify({
        workdir: this.sb.workdir,
        seed: plan.seed,
        candidates,
        steps: plan.steps,
        output_limit: limit,
        budget: plan.budget,
      }),
      timeoutMs: 30_000 + candidates.reduce((s, c) => s + stepsMs + actionsMs(c), 0),
      maxOutputBytes: 256 * 1024 * 1024,
    });
    if (r.status !== "ok" || r.exitCode !== 0)
      return { failed: `the screen ended ${r.reason ?? `with exit ${r.exitCode}`}: ${r.stderr.slice(-300)}` };
    type Raw = {
      status: ScreenRun["status"];
      exit_code: number | null;
      stdout: string;
      stderr: string;
      stdout_bytes: number;
      stderr_bytes: number;
      duration_ms: number;
      report: string | null;
    };
    let parsed: { candidates: Array<{ steps: Raw[] } | { error: string }> };
    try {
      parsed = JSON.parse(r.stdout) as typeof parsed;
    } catch (e) {
      return { failed: `the screen's answer is not JSON: ${(e as Error).message}` };
    }
    if (parsed.candidates.length !== candidates.length) return { failed: "the screen answered for another number of candidates" };
    return parsed.candidates.map((c) =>
      "error" in c
        ? null
        : c.steps.map((x) => {
            const out = Buffer.from(x.stdout, "base64");
            const err = Buffer.from(x.stderr, "base64");
            return {
              status: x.status,
              exitCode: x.exit_code,
              stdout: out.toString("utf8"),
              stderr: err.toString("utf8"),
              keptBytes: out.length + err.length,
              stdoutBytes: x.stdout_bytes,
              stderrBytes: x.stderr_bytes,
              durationMs: x.duration_ms,
              report: x.report === null ? null : Buffer.from(x.report, "base64"),
            };
          }),
    );
  }

  /** The workdir as open() left it (the seed, then the reference solution), after the screen emptied it. */
  async restore(): Promise<void> {
    await resetToSeed(this.sb, taskSeed(this.task));
    await this.writeGold();
  }

  /** Puts the reference solution's files back. */
  async writeGold(): Promise<void> {
    await writeTaskFiles(this.sb, this.gold);
  }

  async close(): Promise<void> {
    await this.sb.close().catch(() => {});
  }
}
