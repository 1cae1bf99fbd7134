import { z } from "zod";
import { findDomain } from "../domains/registry";
import { DEFAULT_REPORT_SCHEMA } from "../domains/document/target";
import type { Environment } from "../model/environment";
import type { LoadedTask } from "../model/environment";
import { formatPath, type Problem } from "../model/problem";
import { didYouMean } from "../environment/suggest";
import { asStructured, expectedValue } from "../reward/answer-path";
import { buildToolset } from "../rollout/toolset";
import { gradingProblems } from "./grading-checks";
import { schemaShapeProblems } from "./json-schema-shape";
import { type Locate, manifestLocator, taskLocator } from "./locate";
import { visibleTestProblems } from "./visible-tests-checks";

type Severity = Problem["severity"];

/** A validator for a JSON Schema, or the reason there is none (zod refuses what it cannot read). */
function validatorOf(
  schema: unknown,
): { ok: true; check: (v: unknown) => Array<{ path: PropertyKey[]; message: string }> } | { ok: false; message: string } {
  try {
    const v = z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
    return {
      ok: true,
      check: (value) => {
        const r = v.safeParse(value);
        return r.success
          ? []
          : r.error.issues.map((i) => ({ path: i.path.map((p) => (typeof p === "symbol" ? String(p) : p)), message: readableIssue(i) }));
      },
    };
  } catch (e) {
    return { ok: false, message: (e as Error).message };
  }
}

/** zod's issue text, said the way the rest of the problems are ("expected a number, got a string"). */
function readableIssue(i: z.core.$ZodIssue): string {
  if (i.code === "invalid_type") {
    const got = /received (\w+)/.exec(i.message)?.[1];
    return `expected ${i.expected === "object" ? "a mapping" : i.expected === "array" ? "a list" : `a ${i.expected}`}${got ? `, got a ${got}` : ""}`;
  }
  if (i.code === "unrecognized_keys") return `unknown field${i.keys.length > 1 ? "s" : ""} ${i.keys.map((k) => `'${k}'`).join(", ")}`;
  return i.message.replace(/^Invalid input: /, "");
}

/** Every gold field name the tasks' targets hold (target.x and target.fields.x), for "did you mean". */
function targetFieldNames(tasks: readonly LoadedTask[]): Set<string> {
  const names = new Set<string>();
  for (const t of tasks) {
    const target = t.target;
    if (!target || typeof target !== "object") continue;
    for (const k of Object.keys(target)) if (k !== "fields" && k !== "schema" && k !== "grading" && k !== "evidence") names.add(k);
    const f = (target as { fields?: unknown }).fields;
    if (f && typeof f === "object") for (const k of Object.keys(f)) names.add(k);
  }
  return names;
}

type OnManifest = (path: PropertyKey[], message: string, severity?: Severity, atKey?: boolean) => void;
type OnTask = (path: PropertyKey[], message: string, severity?: Severity) => void;
type Validator = ReturnType<typeof validatorOf>;

/** Custom tools' parameters. Their index in `tools` is the manifest's, built-ins included. */
function customToolProblems(env: Environment, onManifest: OnManifest): void {
  env.manifest.tools.forEach((entry, i) => {
    if (typeof entry === "string") return;
    const at: PropertyKey[] = ["tools", i, "parameters"];
    const shape = schemaShapeProblems(entry.parameters, at);
    for (const p of shape) onManifest(p.path, `tool '${entry.name}': ${p.message}`, p.severity);
    if (shape.some((p) => p.severity === "error")) return;
    const v = validatorOf(entry.parameters);
    if (!v.ok)
      onManifest(at, `tool '${entry.name}': its parameters are not a JSON Schema the engine can check arguments with: ${v.message}`);
  });
}

/** Fields no task has a gold value for (an error on the verifier), or some tasks lack (a warning on each). */
function missingGoldProblems(env: Environment, onManifest: OnManifest, problems: Problem[]): void {
  const names = targetFieldNames(env.tasks);
  env.manifest.reward.forEach((r, i) => {
    if (r.type !== "fields" || env.tasks.length === 0) return;
    for (const field of Object.keys(r.fields)) {
      const missing = env.tasks.filter((t) => expectedValue(t, field) === undefined);
      if (missing.length === env.tasks.length) {
        const near = didYouMean(field, names);
        onManifest(
          ["reward", i, "fields", field],
          `no task's target has '${field}' (target.${field} or target.fields.${field}): every rollout scores 0 on it${near ? ` (did you mean '${near}'?)` : ""}`,
          "error",
          true,
        );
      } else if (missing.length > 0) {
        for (const t of missing) {
          const at = taskLocator(t);
          problems.push({
            file: t.source.file,
            ...at(["target"]),
            path: formatPath(["target"], `tasks[${t.source.index}]`),
            message: `no gold value for '${field}' (reward[${i}].fields): this task scores 0 on that field`,
            severity: "warning",
          });
        }
      }
    }
  });
}

/** The tools the agent (and the oracle's tool calls) will have, by name; null when the toolset does not build. */
async function toolParameters(env: Environment): Promise<Map<string, Record<string, unknown>> | null> {
  try {
    const toolset = buildToolset(env, await findDomain(env.manifest.domain));
    return new Map(toolset.specs.map((s) => [s.name, s.parameters]));
  } catch {
    // A tool the domain does not provide is the loader's problem to report, not this check's.
    return null;
  }
}

/** A structured report checked against the schema submit_report will enforce. */
function referenceReportProblems(env: Environment, task: LoadedTask, onTask: OnTask): void {
  const s = task.solution;
  if (env.manifest.domain !== "document" || s?.answer === undefined) return;
  const schema = (task.target as { schema?: unknown } | undefined)?.schema;
  if (schema !== undefined) for (const p of schemaShapeProblems(schema, ["target", "schema"])) onTask(p.path, p.message, p.severity);
  const v = validatorOf(schema ?? DEFAULT_REPORT_SCHEMA);
  if (!v.ok) onTask(["target", "schema"], `not a JSON Schema submit_report can enforce: ${v.message}`);
  else
    for (const issue of v.check(asStructured(s.answer)))
      onTask(
        ["solution", "answer", ...issue.path],
        `the reference answer does not match ${schema === undefined ? "the default report schema (answer, citations)" : "target.schema"}: ${issue.message}`,
      );
}

/** The reference's tool calls: each names a tool the environment has, with arguments its parameters accept; shell commands need bash. */
function referenceCallProblems(
  task: LoadedTask,
  tools: Map<string, Record<string, unknown>>,
  validatorFor: (name: string, schema: Record<string, unknown>) => Validator,
  onTask: OnTask,
): void {
  const s = task.solution;
  if (s?.tool_calls) {
    s.tool_calls.forEach((call, j) => {
      const params = tools.get(call.name);
      if (!params) {
        const near = didYouMean(call.name, tools.keys());
        onTask(
          ["solution", "tool_calls", j, "name"],
          `no tool '${call.name}' in this environment${near ? ` (did you mean '${near}'?)` : ""}; tools: ${[...tools.keys()].join(", ")}`,
        );
        return;
      }
      const v = validatorFor(call.name, params);
      if (!v.ok) return; // a custom tool's broken parameters are reported on the manifest
      for (const issue of v.check(call.arguments))
        onTask(["solution", "tool_calls", j, "arguments", ...issue.path], `${call.name}: ${issue.message}`);
    });
  }

  if (s?.commands && s.commands.length > 0 && !tools.has("bash")) {
    onTask(
      ["solution", "commands"],
      "the oracle runs these shell commands straight in the sandbox, but the agent has no bash tool to do the same: add bash to tools, or give the solution as files or tool_calls",
      "warning",
    );
  }
}

/**
 * Mistakes that otherwise show only at a rollout, positioned like the loader's problems:
 * a custom tool whose `parameters` is not a usable JSON Schema; a `fields` verifier field
 * that no task's target holds (every rollout scores 0 on it); a reference answer that
 * `target.schema` (the report schema submit_report enforces) rejects; a reference tool
 * call naming no tool or with arguments the tool's parameters reject; reference shell
 * commands in an environment whose agent has no `bash` tool to do the same.
 */
export async function authoringProblems(env: Environment): Promise<Problem[]> {
  const problems: Problem[] = gradingProblems(env);
  const atManifest = manifestLocator(env);
  const onManifest: OnManifest = (path, message, severity = "error", atKey = false) =>
    problems.push({ file: env.manifestPath, ...atManifest(path, atKey), path: formatPath(path), message, severity });
  customToolProblems(env, onManifest);
  missingGoldProblems(env, onManifest, problems);

  const tools = await toolParameters(env);
  const validators = new Map<string, Validator>();
  const validatorFor = (name: string, schema: Record<string, unknown>) => {
    if (!validators.has(name)) validators.set(name, validatorOf(schema));
    return validators.get(name)!;
  };
  for (const task of env.tasks) {
    const prefix = `tasks[${task.source.index}]`;
    let at: Locate | undefined;
    const onTask: OnTask = (path, message, severity = "error") => {
      at ??= taskLocator(task);
      problems.push({ file: task.source.file, ...at(path), path: formatPath(path, prefix), message, severity });
    };
    referenceReportProblems(env, task, onTask);
    if (tools) referenceCallProblems(task, tools, validatorFor, onTask);
  }
  problems.push(...visibleTestProblems(env));
  return problems;
}
