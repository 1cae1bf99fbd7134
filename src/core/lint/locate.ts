import { readFileSync } from "node:fs";
import type { Environment } from "../model/environment";
import type { LoadedTask } from "../model/environment";
import { JsonPositionIndex, LineMap, parseJsonWithPositions } from "../environment/json-positions";
import { PositionIndex } from "../environment/positions";
import type { Span } from "../model/problem";

/** A field's span: its value, or its key with `atKey`. */
export type Locate = (path: ReadonlyArray<PropertyKey>, atKey?: boolean) => Span;

/** Where a field of the manifest is; the start of the file when it cannot be read again. */
export function manifestLocator(env: Environment): Locate {
  try {
    const index = new PositionIndex(readFileSync(env.manifestPath, "utf8"));
    return (p, atKey) => index.spanOf(p, atKey);
  } catch {
    return () => ({ line: 1, column: 1, endLine: 1, endColumn: 1 });
  }
}

/**
 * Where a field of a task is: the exact span on its JSONL line, or in its task.yaml; the
 * task's first line when the path is not in the file (a field that came from a folder,
 * such as solution/ files).
 */
export function taskLocator(task: LoadedTask): Locate {
  const whole: Span = { line: task.source.line, column: 1, endLine: task.source.line, endColumn: 1 };
  try {
    if (task.source.file.endsWith(".jsonl")) {
      const raw = readFileSync(task.source.file, "utf8").split("\n")[task.source.line - 1] ?? "";
      const text = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
      const parsed = parseJsonWithPositions(text);
      const index = new JsonPositionIndex(parsed.ranges, new LineMap(text, task.source.line - 1));
      return (p, atKey) => index.spanOf(p, atKey);
    }
    const index = new PositionIndex(readFileSync(task.source.file, "utf8"));
    return (p, atKey) => index.spanOf(p, atKey);
  } catch {
    return () => whole;
  }
}
