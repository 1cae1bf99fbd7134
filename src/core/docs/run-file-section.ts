import { z } from "zod";
import { RunFile } from "../schema/run-file";

const cell = (s: string) => s.replace(/\|/g, "\\|").replace(/\n/g, " ");

/** A JSON Schema property's type, said short: `integer`, `"docker" \| "process"`, `string or list of string`. */
function typeOf(p: Record<string, unknown>): string {
  if (Array.isArray(p.enum)) return (p.enum as unknown[]).map((e) => JSON.stringify(e)).join(" | ");
  if (p.const !== undefined) return JSON.stringify(p.const);
  if (Array.isArray(p.anyOf)) return (p.anyOf as Array<Record<string, unknown>>).map(typeOf).join(" or ");
  if (p.type === "array") return `list of ${typeOf((p.items ?? {}) as Record<string, unknown>)}`;
  if (p.type === "object") return "mapping";
  return String(p.type ?? "any");
}

/** `rlenv run -c FILE`: its keys, from the RunFile schema (the one source of the table and of the check). */
export function runFileSection(): string[] {
  const js = z.toJSONSchema(RunFile, { io: "input", unrepresentable: "any" }) as { properties: Record<string, Record<string, unknown>> };
  return [
    "## Run config files (`rlenv run -c FILE`)",
    "",
    "A run's options in a YAML or JSON file, as Harbor's `-c` job config. Every key is a `run` flag in",
    "snake_case (`--base-url` is `base_url`, `-k` is `samples`); a flag given on the command line",
    "overrides the file's value. Paths are relative to the file's folder. A key that is not below, a",
    "wrong type or a bad value stops the run before anything starts, naming the file, line, column and",
    "field (exit code 2).",
    "",
    "```yaml",
    "env: ../environments/document-financebench",
    "policy: openai",
    "model: Qwen/Qwen3-8B",
    "base_url: http://127.0.0.1:8000/v1",
    "samples: 4",
    "tasks: [fb-00438, 'fb-06*']",
    "concurrency: auto",
    "runs: runs",
    "```",
    "",
    "| key | type | description |",
    "|---|---|---|",
    ...Object.entries(js.properties).map(([k, p]) => `| \`${k}\` | ${cell(typeOf(p))} | ${cell(String(p.description ?? ""))} |`),
    "",
  ];
}
