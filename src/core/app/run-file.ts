import { readFileSync } from "node:fs";
import path from "node:path";
import { PositionIndex } from "../environment/positions";
import { validateValue } from "../environment/validate-value";
import { type Problem, START_OF_FILE } from "../model/problem";
import { RUN_FILE_PATHS, RunFile } from "../schema/run-file";

/**
 * A run config file (`rlenv run -c FILE`), YAML or JSON (JSON is read as YAML's flow form,
 * so both carry positions): checked against the RunFile schema, every problem naming the
 * file, line and field. Paths in it come back absolute, resolved against the file's folder
 * (an s3:// `runs` and a `replay:` policy's file likewise).
 */
export function readRunFile(file: string): { data?: RunFile; problems: Problem[] } {
  const at = (message: string, span = START_OF_FILE): Problem => ({ file, ...span, path: "", message, severity: "error" });
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    return { problems: [at(`cannot read the run config file: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`)] };
  }
  const pos = new PositionIndex(text);
  const syntax = pos.errors();
  if (syntax.length > 0) return { problems: syntax.map((e) => at(e.message, e.span)) };
  const js = pos.value();
  if (!js.ok) return { problems: [at(js.message, js.span)] };
  // An empty file is a config that sets nothing.
  const raw = js.value ?? {};
  if (typeof raw !== "object" || Array.isArray(raw))
    return { problems: [at("a run config file is a mapping of run options (policy, model, samples, …)", pos.spanOf([]))] };
  const res = validateValue(RunFile, raw, file, pos);
  if (!res.data) return { problems: res.problems };
  return { data: resolvePaths(res.data, path.dirname(path.resolve(file))), problems: [] };
}

function resolvePaths(data: RunFile, base: string): RunFile {
  const out: RunFile = { ...data };
  for (const key of RUN_FILE_PATHS) {
    const v = out[key];
    if (v === undefined || (key === "runs" && /^s3:\/\//.test(v))) continue;
    out[key] = path.resolve(base, v);
  }
  if (out.policy?.startsWith("replay:")) out.policy = `replay:${path.resolve(base, out.policy.slice("replay:".length))}`;
  return out;
}
