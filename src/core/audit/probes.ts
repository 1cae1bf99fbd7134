import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { parse as parseYaml } from "yaml";
import type { Environment } from "../model/environment";
import type { LoadedTask } from "../model/environment";
import type { PlannedTurn } from "../policy/scripted";
import { PlannedPolicy } from "../policy/scripted";
import { submitArguments } from "../policy/submit-name";
import { ProbeFile } from "../schema/audit";
import { auditAssetPath } from "./shipped-asset";
import type { ProbeVars } from "./probe-vars";

export interface LoadedProbe extends ProbeFile {
  file: string;
}

/** The probe library shipped with rlenv: src/core/audit/probes (dist/audit/probes in a bundle). */
export function builtinProbesDir(): string {
  return auditAssetPath("probes", "the audit's probe library");
}

/** Every probe file (.yaml, .yml, .json) in these folders; a later folder's probe replaces an earlier one of the same name. */
export function loadProbes(dirs: string[]): { probes: LoadedProbe[]; problems: string[] } {
  const byName = new Map<string, LoadedProbe>();
  const problems: string[] = [];
  for (const dir of dirs) {
    if (!existsSync(dir)) continue;
    for (const name of readdirSync(dir).sort()) {
      if (!/\.(ya?ml|json)$/.test(name)) continue;
      const file = path.join(dir, name);
      try {
        const text = readFileSync(file, "utf8");
        const parsed = ProbeFile.safeParse(name.endsWith(".json") ? JSON.parse(text) : parseYaml(text));
        if (!parsed.success) {
          problems.push(`${file}: ${parsed.error.issues.map((i) => `${i.path.join(".") || "(top)"}: ${i.message}`).join("; ")}`);
          continue;
        }
        byName.set(parsed.data.name, { ...parsed.data, file });
      } catch (e) {
        problems.push(`${file}: ${(e as Error).message}`);
      }
    }
  }
  return { probes: [...byName.values()], problems };
}

const VAR = /\{\{\s*([\w.]+)\s*\}\}/g;

/** The variables a value names that vars does not have. */
function missingVars(value: unknown, vars: ProbeVars): string[] {
  const text = JSON.stringify(value) ?? "";
  return [...text.matchAll(VAR)].map((m) => m[1] ?? "").filter((v) => !(v in vars));
}

function render(value: unknown, vars: ProbeVars): unknown {
  if (typeof value === "string") return value.replace(VAR, (_, v: string) => vars[v] ?? "");
  if (Array.isArray(value)) return value.map((v) => render(v, vars));
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, render(v, vars)]));
  return value;
}

/** An answer with the same fields as the gold one, each set to `text` (a list where the gold has one). */
function eachField(gold: unknown, text: string): unknown {
  if (gold && typeof gold === "object" && !Array.isArray(gold)) {
    return Object.fromEntries(
      Object.entries(gold).map(([k, v]) => [k, k === "citations" ? v : Array.isArray(v) ? text.split("; ") : text]),
    );
  }
  return text;
}

/**
 * The policy a probe plays on a task, or why it does not apply: a domain it is not for, a
 * tool the environment does not offer, a variable the task cannot give.
 */
export function probePolicy(
  probe: LoadedProbe,
  env: Environment,
  task: LoadedTask,
  vars: ProbeVars,
  tools: readonly string[],
): { policy: () => PlannedPolicy; turns: PlannedTurn[] } | { skip: string } {
  if (!probe.domains.includes(env.manifest.domain)) return { skip: `not for the ${env.manifest.domain} domain` };
  const missing = [...missingVars(probe.turns, vars), ...missingVars(probe.answer, vars)];
  if (missing.length > 0) return { skip: `the task gives no ${[...new Set(missing)].join(", ")}` };
  const turns: PlannedTurn[] = [];
  for (const t of probe.turns) {
    if (Array.isArray(t)) {
      const unknown = t.map((c) => c.name).filter((n) => !tools.includes(n));
      if (unknown.length > 0) return { skip: `the environment has no ${unknown.join(", ")} tool` };
      turns.push({ content: null, calls: t.map((c) => ({ name: c.name, arguments: JSON.stringify(render(c.arguments, vars)) })) });
    } else {
      const calls = task.solution?.tool_calls ?? [];
      if (calls.length === 0) return { skip: "the reference solution makes no tool calls" };
      // Replayed unchanged it would be the oracle, and its reward no finding.
      const changes = Object.keys(t.from_solution.set).length > 0;
      if (changes && !calls.some((c) => "position" in c.arguments || c.name === "add_object"))
        return { skip: "the reference solution sets nothing this probe changes (a script builds the scene)" };
      turns.push({
        content: null,
        calls: calls.map((c) => ({
          name: c.name,
          arguments: JSON.stringify(
            "position" in c.arguments || c.name === "add_object" ? { ...c.arguments, ...t.from_solution.set } : c.arguments,
          ),
        })),
      });
    }
  }
  const submit = tools.includes("submit_report") ? "submit_report" : "submit";
  let answer: unknown;
  if (probe.answer && "each_field" in probe.answer)
    answer = eachField(task.solution?.answer, String(render(probe.answer.each_field, vars)));
  else if (probe.answer) answer = render(probe.answer.value, vars);
  turns.push({ content: null, calls: [{ name: submit, arguments: JSON.stringify(submitArguments(submit, answer)) }] });
  return {
    turns,
    policy: () =>
      new PlannedPolicy(
        `probe:${probe.name}`,
        turns.map((t) => ({ ...t, calls: [...t.calls] })),
      ),
  };
}
