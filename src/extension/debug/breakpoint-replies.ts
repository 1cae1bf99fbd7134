import type { DebugProtocol } from "@vscode/debugprotocol";
import { type Breakpoint, parseBreakpoint, taskBreakpoint, unknownComponent } from "../../core/debug/breakpoints";
import type { Environment } from "../../core/model/environment";

/** What the editor is told of each breakpoint it set, and the breakpoints that took. */
export interface BreakpointReplies {
  out: DebugProtocol.Breakpoint[];
  bps: Breakpoint[];
}

/** Function breakpoints: each parsed, and one naming a reward component checked against the environment's components. */
export function functionBreakpoints(breakpoints: DebugProtocol.FunctionBreakpoint[], components: string[]): BreakpointReplies {
  const out: DebugProtocol.Breakpoint[] = [];
  const bps: Breakpoint[] = [];
  for (const b of breakpoints) {
    const r = parseBreakpoint(b.name, {
      ...(b.condition ? { condition: b.condition } : {}),
      ...(b.hitCondition ? { hitCondition: b.hitCondition } : {}),
    });
    if (!r.ok) {
      out.push({ verified: false, message: r.error });
      continue;
    }
    const unknown = unknownComponent(r.breakpoint, components);
    if (unknown) {
      out.push({ verified: false, message: unknown });
      continue;
    }
    bps.push(r.breakpoint);
    out.push({ id: r.breakpoint.id, verified: true });
  }
  return { out, bps };
}

/** Line breakpoints in one file: each on a task's line (or anywhere in a one-task task.yaml) pauses before that task's tool calls. */
export function taskLineBreakpoints(
  file: string,
  breakpoints: DebugProtocol.SourceBreakpoint[],
  env: Environment | undefined,
): BreakpointReplies {
  const inFile = (env?.tasks ?? []).filter((t) => t.source.file === file);
  // A task folder's task.yaml holds one task: any line of it means that task.
  const wholeFile = inFile.length === 1 && /(^|[\\/])task\.(ya?ml|json)$/.test(file) ? inFile[0] : undefined;
  const out: DebugProtocol.Breakpoint[] = [];
  const bps: Breakpoint[] = [];
  for (const b of breakpoints) {
    const task = wholeFile ?? inFile.find((t) => t.source.line === b.line);
    if (!task) {
      const why =
        inFile.length === 0
          ? `not a task file of ${env?.manifest.name ?? "the environment being debugged"}`
          : "no task starts on this line: a line breakpoint goes on a task's line";
      out.push({ verified: false, line: b.line, message: `${why} (a task breakpoint pauses before each of its tool calls)` });
      continue;
    }
    const taskId = task.id;
    const r = taskBreakpoint(file, task.source.line, {
      ...(b.condition ? { condition: b.condition } : {}),
      ...(b.hitCondition ? { hitCondition: b.hitCondition } : {}),
    });
    if (!r.ok) {
      out.push({ verified: false, line: b.line, message: r.error });
      continue;
    }
    bps.push(r.breakpoint);
    out.push({ id: r.breakpoint.id, verified: true, line: b.line, message: `pause before each tool call of ${taskId}` });
  }
  return { out, bps };
}
