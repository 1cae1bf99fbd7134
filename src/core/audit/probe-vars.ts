import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { shq } from "../util/shell-quote";
import type { Environment } from "../model/environment";
import type { LoadedTask } from "../model/environment";
import { StdioCase } from "../schema/verifier";
import { textFiles } from "../model/file-content";

/**
 * The values a probe file may name as {{var}}, derived from the task. A variable the task
 * cannot give (no visible examples to hard-code, no report path) is absent, and a probe
 * that needs it does not apply to the task.
 */
export type ProbeVars = Record<string, string>;

/** Workdir files a patch touches (its `+++ b/...` lines). */
export function patchedFiles(patch: string | undefined): string[] {
  if (!patch) return [];
  return [...patch.matchAll(/^\+\+\+ (?:b\/)?(\S+)/gm)].map((m) => m[1] ?? "").filter((p) => p !== "" && p !== "/dev/null");
}

/** The Python files an agent is meant to write: the seed files, the solution's files and what its patch changes. */
export function editablePythonFiles(task: LoadedTask): string[] {
  const names = new Set<string>();
  for (const n of Object.keys(task.files ?? {})) names.add(n);
  for (const n of Object.keys(task.solution?.files ?? {})) names.add(n);
  for (const n of patchedFiles(task.solution?.patch)) names.add(n);
  const hidden = new Set(Object.keys(task.tests?.files ?? {}));
  const visible = new Set(Object.keys(task.visible_tests ?? {}));
  return [...names]
    .filter((n) => n.endsWith(".py") && !hidden.has(n) && !visible.has(n) && !/(^|\/)(test_[^/]*|[^/]*_test|conftest)\.py$/.test(n))
    .sort();
}

/** A Python program that prints the expected stdout of each visible stdin example and nothing else. */
function hardcodeStdio(task: LoadedTask): string | undefined {
  const cases: StdioCase[] = [];
  for (const [name, text] of Object.entries(textFiles(task.visible_tests))) {
    if (!name.endsWith(".json")) continue;
    try {
      const parsed = StdioCase.array().safeParse(JSON.parse(text));
      if (parsed.success) cases.push(...parsed.data);
    } catch {}
  }
  if (cases.length === 0) return undefined;
  return [
    "import json, sys",
    `CASES = json.loads(${JSON.stringify(JSON.stringify(cases))})`,
    "data = sys.stdin.read()",
    "for c in CASES:",
    "    if c['stdin'].strip() == data.strip():",
    "        sys.stdout.write(c['stdout'])",
    "        break",
    "",
  ].join("\n");
}

/**
 * The doctest examples of the stub's functions (`>>> f(args)` then the expected value),
 * answered from a table: it passes the docstring examples and knows nothing else.
 */
function hardcodeDoctest(stub: string): string | undefined {
  const examples: Array<{ fn: string; call: string; want: string }> = [];
  const lines = stub.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const m = /^\s*>>>\s*([A-Za-z_]\w*)\((.*)\)\s*$/.exec(lines[i] ?? "");
    const want = lines[i + 1]?.trim();
    if (!m || !want || want.startsWith(">>>")) continue;
    examples.push({ fn: m[1] ?? "", call: `(${m[2] ?? ""})`, want });
  }
  const fns = [...new Set(examples.map((e) => e.fn))].filter((f) => new RegExp(`^def ${f}\\(`, "m").test(stub));
  if (fns.length === 0) return undefined;
  const out = ["# Answers the docstring examples from a table and nothing else.", "def _rlenv_args(*a, **k):", "    return (a, k)", ""];
  for (const fn of fns) {
    const table = examples
      .filter((e) => e.fn === fn)
      .map((e) => `    (${JSON.stringify(`_rlenv_args${e.call}`)}, ${JSON.stringify(e.want)}),`);
    out.push(
      `_EXAMPLES_${fn} = [`,
      ...table,
      "]",
      "",
      `def ${fn}(*args, **kwargs):`,
      `    for call, want in _EXAMPLES_${fn}:`,
      "        try:",
      "            if eval(call) == (args, kwargs):",
      "                return eval(want)",
      "        except Exception:",
      "            pass",
      "    return None",
      "",
    );
  }
  return out.join("\n");
}

/** Money, percent and plain figures printed in a text (tags stripped), each once, in order. */
export function figuresIn(text: string, limit = 400): string[] {
  const plain = text.replace(/<[^>]+>/g, " ");
  const seen = new Set<string>();
  for (const m of plain.matchAll(/\(?-?\$?\s?\d[\d,]*(?:\.\d+)?\)?\s*(?:%|percent|million|billion|thousand)?/gi)) {
    const f = m[0].trim();
    if (!/\d/.test(f) || seen.has(f)) continue;
    seen.add(f);
    if (seen.size >= limit) break;
  }
  return [...seen];
}

/** The documents a task is about: those its evidence names, else those its prompt names. */
function taskDocuments(env: Environment, task: LoadedTask): string[] {
  const root = env.paths.documents;
  if (!root) return [];
  const target = task.target as { evidence?: Array<{ document?: unknown }> } | undefined;
  const named = (target?.evidence ?? []).map((e) => e.document).filter((d): d is string => typeof d === "string");
  const fromPrompt = [...task.prompt.matchAll(/[\w./-]+\.(?:txt|html?|md|csv)/g)].map((m) => m[0]);
  return [...new Set([...named, ...fromPrompt])].map((d) => path.join(root, d)).filter((p) => p.startsWith(root) && existsSync(p));
}

/** The text of the documents a task is about, one after the other ("" when it names none). */
export function taskDocumentText(env: Environment, task: LoadedTask): string {
  return taskDocuments(env, task)
    .map((d) => readFileSync(d, "utf8"))
    .join("\n\n");
}

export function probeVars(env: Environment, task: LoadedTask): ProbeVars {
  const vars: ProbeVars = { "task.prompt": task.prompt, "task.id": task.id };
  const py = editablePythonFiles(task);
  if (py.length > 0) {
    vars.python_files = py.map(shq).join(" ");
    vars.solution_file = py.includes("solution.py") ? "solution.py" : (py[0] ?? "");
  }
  const hidden = Object.keys(task.tests?.files ?? {});
  if (hidden.length > 0) vars.hidden_test_files = hidden.map(shq).join(" ");
  const visible = Object.keys(task.visible_tests ?? {});
  vars.visible_test_files = visible.map(shq).join(" ");
  vars.test_dirs = [...new Set([...hidden, ...visible].map((f) => path.posix.dirname(f)).filter((d) => d !== "."))].map(shq).join(" ");
  // Repeats of the huge-output probe's 72-byte block that make twice the sandbox's output limit: past truncation,
  // without the cost of a fixed 20 MB on every task of an environment with a small limit.
  vars.flood_repeats = String(Math.ceil((2 * env.manifest.sandbox.limits.output) / 72));
  const reports = env.manifest.reward.flatMap((v) => (v.type === "tests" && v.report ? [v.report] : []));
  vars.report_paths = reports.map(shq).join(" ");
  const tests = env.manifest.reward.find((v) => v.type === "tests");
  const stub = vars.solution_file ? textFiles(task.files)[vars.solution_file] : undefined;
  const hard = tests?.type === "tests" && tests.format === "stdio" ? hardcodeStdio(task) : stub ? hardcodeDoctest(stub) : undefined;
  if (hard) vars.hardcoded_visible = hard;
  const docs = taskDocuments(env, task);
  if (docs.length > 0) {
    const figures = docs.flatMap((d) => figuresIn(readFileSync(d, "utf8")));
    if (figures.length > 0) vars.candidate_figures = figures.join("; ");
  }
  return vars;
}
