import { readFileSync } from "node:fs";
import type { Environment } from "../../model/environment";
import type { LoadedTask } from "../../model/environment";
import { JsonPositionIndex, LineMap, parseJsonWithPositions } from "../../environment/json-positions";
import { formatPath, type Problem, type Span } from "../../model/problem";
import { BuiltinBackend } from "./builtin-backend";
import { parseChecks, SceneTarget } from "./checks/check-spec";

/** A tasks file's lines, read once per file however many of its tasks are checked (not once per task). */
type LineCache = Map<string, readonly string[]>;

function fileLines(cache: LineCache, file: string): readonly string[] {
  let lines = cache.get(file);
  if (!lines) {
    lines = readFileSync(file, "utf8").split("\n");
    cache.set(file, lines);
  }
  return lines;
}

/** Where a field of a task is: the exact span on a JSONL line, else the task's first line. */
function locator(task: LoadedTask, cache: LineCache): (path: PropertyKey[], atKey?: boolean) => Span {
  const whole: Span = { line: task.source.line, column: 1, endLine: task.source.line, endColumn: 1 };
  if (!task.source.file.endsWith(".jsonl")) return () => whole;
  try {
    const text = fileLines(cache, task.source.file)[task.source.line - 1] ?? "";
    const parsed = parseJsonWithPositions(text.endsWith("\r") ? text.slice(0, -1) : text);
    const index = new JsonPositionIndex(parsed.ranges, new LineMap(text, task.source.line - 1));
    return (p, atKey) => index.spanOf(p, atKey);
  } catch {
    return () => whole;
  }
}

/**
 * Static problems in scene tasks' hidden targets, positioned at the field: unknown or
 * malformed checks, initial objects that cannot be placed (duplicate names, missing
 * parents), iou target scenes that cannot be built, checks naming an object that neither
 * the initial scene nor the oracle's calls create.
 */
export async function sceneTaskProblems(env: Environment, manifestChecks: readonly unknown[] = []): Promise<Problem[]> {
  const problems: Problem[] = [];
  const lines: LineCache = new Map();
  for (const task of env.tasks) {
    const at = locator(task, lines);
    const prefix = `tasks[${task.source.index}]`;
    const push = (path: PropertyKey[], message: string, severity: Problem["severity"] = "error", atKey = false) =>
      problems.push({ file: task.source.file, ...at(path, atKey), path: formatPath(path, prefix), message, severity });

    const target = SceneTarget.safeParse(task.target ?? {});
    if (!target.success) {
      for (const i of target.error.issues) push(["target", ...i.path.map((p) => (typeof p === "symbol" ? String(p) : p))], i.message);
      continue;
    }
    const scene = new BuiltinBackend();
    for (const [i, spec] of target.data.initial.entries()) {
      try {
        await scene.add(spec);
      } catch (e) {
        push(["target", "initial", i], (e as Error).message);
      }
    }
    const { checks, problems: bad } = parseChecks(target.data.checks);
    for (const p of bad) push(["target", "checks", ...p.path], p.message, "error", p.atKey === true);
    if (checks.length === 0 && manifestChecks.length === 0 && bad.length === 0)
      push(["target"], "a scene task needs checks in target.checks (or the scene verifier's checks)");

    for (const [i, raw] of target.data.checks.entries()) {
      const [c] = parseChecks([raw]).checks;
      if (c?.check !== "iou") continue;
      const t = new BuiltinBackend();
      for (const [j, spec] of c.target.entries()) {
        try {
          await t.add(spec);
        } catch (e) {
          push(["target", "checks", i, "target", j], (e as Error).message);
        }
      }
    }

    // Names a check may refer to: the initial scene's, and those the reference solution creates.
    const known = new Set((await scene.snapshot()).nodes.map((n) => n.name));
    for (const call of task.solution?.tool_calls ?? []) {
      const name = call.arguments.name;
      if ((call.name === "add_object" || call.name === "group") && typeof name === "string") known.add(name);
      if (call.name === "update_object" && typeof call.arguments.new_name === "string") known.add(call.arguments.new_name);
    }
    const usesCode = (task.solution?.tool_calls ?? []).some((c) => c.name === "run_bpy");
    for (const [i, raw] of target.data.checks.entries()) {
      if (!raw || typeof raw !== "object") continue;
      const r = raw as Record<string, unknown>;
      const refs = ["object", "support", "container", "target", "a", "b"].flatMap((k) =>
        typeof r[k] === "string" ? [[k, r[k] as string] as const] : [],
      );
      const lists = Array.isArray(r.objects)
        ? (r.objects as unknown[]).flatMap((n, j) => (typeof n === "string" ? [[j, n] as const] : []))
        : [];
      if (usesCode || !task.solution) continue; // a bpy snippet may create any name
      for (const [k, n] of refs)
        if (!known.has(n))
          push(["target", "checks", i, k], `'${n}' is neither in the initial scene nor made by the reference solution`, "warning");
      for (const [j, n] of lists)
        if (!known.has(n))
          push(
            ["target", "checks", i, "objects", j],
            `'${n}' is neither in the initial scene nor made by the reference solution`,
            "warning",
          );
    }
  }
  return problems;
}
