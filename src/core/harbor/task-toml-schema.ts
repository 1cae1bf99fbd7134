/**
 * Harbor's task.toml fields (schema 1.0–1.3, as FORMAT.md reads them from Harbor's config.py)
 * for the editor: what each table holds, each field's type and meaning, and the values an
 * enumerated field takes. The completion and hover of task.toml read this table, and
 * task-config.ts's set of known fields must agree with it (test/unit/harbor-toml-schema.test.ts).
 */
export interface TomlField {
  key: string;
  type: "string" | "number" | "integer" | "boolean" | "table" | "array" | "array of tables";
  doc: string;
  values?: readonly string[];
  /** What to insert after `key = ` (a snippet). */
  example?: string;
}

const f = (key: string, type: TomlField["type"], doc: string, more: Partial<TomlField> = {}): TomlField => ({ key, type, doc, ...more });
const NETWORK = ["public", "no-network", "allowlist"] as const;

/** Fields by table ("" is the top level; "steps" the entries of `[[steps]]`). */
export const TASK_TOML_FIELDS: Record<string, readonly TomlField[]> = {
  "": [
    f("version", "string", 'Schema version of TB 2.0 tasks ("1.0"); renamed schema_version later.', { example: '"1.0"' }),
    f("schema_version", "string", 'Schema version ("1.1" to "1.3").', { example: '"1.3"' }),
    f("source", "string", "Where the task comes from (a data set or URL)."),
    f("artifacts", "array", "Paths copied out of the sandbox after the run (warned, not copied here)."),
    f(
      "multi_step_reward_strategy",
      "string",
      "How a multi-step task's reward is formed: the per-key mean over the scored steps, or the last step's.",
      {
        values: ["mean", "final"],
      },
    ),
    f("metadata", "table", "Free-form: author_name, difficulty, category, tags, time estimates."),
    f("task", "table", "Name, description, authors and keywords (schema 1.3)."),
    f("verifier", "table", "How tests/test.sh runs: timeout, env, user, network."),
    f("agent", "table", "The agent's timeout, user and network."),
    f("solution", "table", "The oracle's env."),
    f("environment", "table", "The sandbox: build timeout, image, cpus, memory, storage, network, workdir, env."),
    f(
      "steps",
      "array of tables",
      "`[[steps]]`: a multi-step task, each step with steps/<name>/instruction.md, its own tests, solution and gate.",
    ),
  ],
  task: [
    f("name", "string", 'The task\'s name, "org/name".'),
    f("description", "string", "One line about the task."),
    f("authors", "array", 'Authors as [{ name = "…", email = "…" }].'),
    f("keywords", "array", "Search keywords."),
  ],
  verifier: [
    f("timeout_sec", "number", "Seconds tests/test.sh may run (default 600).", { example: "600.0" }),
    // biome-ignore lint/suspicious/noTemplateCurlyInString: Harbor's own ${VAR} syntax, shown as written
    f("env", "table", "Environment of tests/test.sh (${VAR} is read from the host)."),
    f("user", "string", "The user test.sh runs as (warned: root here)."),
    f("network_mode", "string", "The verifier's network (sandboxes here have none).", { values: NETWORK }),
    f("allowed_hosts", "array", "Hosts an allowlist lets through (none here)."),
    f("environment_mode", "string", "Whether the verifier shares the agent's sandbox (shared here).", { values: ["shared", "separate"] }),
    f("environment", "table", "A separate verifier image, built from tests/ (warned, not built here)."),
    f("collect", "array of tables", "Commands collecting files for the verifier (warned)."),
  ],
  agent: [
    f("timeout_sec", "number", "Seconds the agent may work (1.0: default 600; later: no limit).", { example: "600.0" }),
    f("user", "string", "The user the agent runs as (warned: root here)."),
    f("network_mode", "string", "The agent's network (sandboxes here have none).", { values: NETWORK }),
    f("allowed_hosts", "array", "Hosts an allowlist lets through (none here)."),
  ],
  solution: [f("env", "table", "Environment of solution/solve.sh, over [environment].env.")],
  environment: [
    f("build_timeout_sec", "number", "Seconds the image build may take (default 600; $RLENV_BUILD_TIMEOUT_MULTIPLIER scales it).", {
      example: "600.0",
    }),
    f("docker_image", "string", "A prebuilt image Harbor pulls; here environment/Dockerfile is built instead (no registry)."),
    f("cpus", "integer", "CPUs of the sandbox (default 1).", { example: "1" }),
    f("memory", "string", 'Memory of the sandbox, "2G" (deprecated for memory_mb).', { example: '"2G"' }),
    f("memory_mb", "integer", "Memory of the sandbox in MB.", { example: "2048" }),
    f("storage", "string", 'Disk of the sandbox, "10G" (deprecated for storage_mb).', { example: '"10G"' }),
    f("storage_mb", "integer", "Disk of the sandbox in MB.", { example: "10240" }),
    f("os", "string", "The container's OS: linux (windows is not run here).", { values: ["linux", "windows"] }),
    f("gpus", "integer", "GPUs the task needs (sandboxes here have none)."),
    f("gpu_types", "array", "GPU models the task accepts."),
    f("tpu", "table", "TPU type and topology."),
    f("network_mode", "string", "The sandbox's network: sandboxes here have none, so a task that needs it fails saying so.", {
      values: NETWORK,
    }),
    f("allowed_hosts", "array", "Hosts an allowlist lets through (none here)."),
    f("allow_internet", "boolean", "Deprecated: false is network_mode = no-network."),
    // biome-ignore lint/suspicious/noTemplateCurlyInString: Harbor's own ${VAR} syntax, shown as written
    f("env", "table", "The container's environment (${VAR} from the host): here solve.sh's and test.sh's."),
    f("mcp_servers", "array of tables", "MCP servers for the agent (warned, not started)."),
    f("skills_dir", "string", "Skills installed for the agent (warned)."),
    f("workdir", "string", "The working directory, over the Dockerfile's WORKDIR.", { example: '"/app"' }),
    f("healthcheck", "table", "A command that must pass before the agent starts (warned, not run)."),
  ],
  steps: [
    f("name", "string", "The step's folder under steps/: its instruction.md, tests/, solution/ and workdir/."),
    f("min_reward", "number", 'The gate: the rollout stops when the step\'s "reward" is below it; a table { key = n } gates each key.', {
      example: "1.0",
    }),
    f("agent", "table", "The step's agent timeout_sec (and user)."),
    f("verifier", "table", "The step's verifier timeout_sec and env (over the task's)."),
    f("healthcheck", "table", "A check run before the step's agent (warned)."),
    f("artifacts", "array", "Paths copied out after the step (warned)."),
  ],
  "steps.agent": [
    f("timeout_sec", "number", "Seconds the agent may work on this step."),
    f("user", "string", "The step's agent user (warned)."),
  ],
  "steps.verifier": [
    f("timeout_sec", "number", "Seconds this step's test.sh may run."),
    f("env", "table", "This step's test.sh environment, over [verifier].env."),
    f("user", "string", "The step's verifier user (warned)."),
  ],
};

/** The table a line of task.toml is in: the last `[table]` or `[[table]]` header above it ("" before any). */
export function tableAt(lines: readonly string[], line: number): string {
  for (let i = Math.min(line, lines.length) - 1; i >= 0; i--) {
    const h = /^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$/.exec(lines[i] ?? "");
    if (h) return (h[1] ?? "").replace(/\s*\.\s*/g, ".").replace(/"/g, "");
  }
  return "";
}

export interface TomlCompletion {
  label: string;
  /** Text inserted (a snippet with $1 where the cursor lands). */
  insert: string;
  detail: string;
  doc: string;
  kind: "field" | "table" | "value";
}

/**
 * What may be typed at a position of task.toml (0-based line and column): on a `[` header the
 * tables, after `key = ` an enumerated field's values, else the fields of the table the line is
 * in that the table does not set yet.
 */
export function taskTomlCompletions(text: string, line: number, column: number): TomlCompletion[] {
  const lines = text.split("\n");
  const before = (lines[line] ?? "").slice(0, column);
  if (/^\s*\[\[?[\w.]*$/.test(before)) {
    const tables = Object.entries(TASK_TOML_FIELDS)
      .filter(([t]) => t !== "")
      .map(([t]) => t);
    const top = (TASK_TOML_FIELDS[""] ?? []).filter((x) => x.type === "table" || x.type === "array of tables").map((x) => x.key);
    const names = [...new Set([...top, ...tables, "verifier.env", "environment.env", "solution.env", "steps.verifier.env"])];
    const arrays = new Set(["steps"]);
    return names.map((n) => ({
      label: n,
      insert: n,
      detail: arrays.has(n) ? "array of tables" : "table",
      doc: (TASK_TOML_FIELDS[""] ?? []).find((x) => x.key === n)?.doc ?? `[${n}]`,
      kind: "table" as const,
    }));
  }
  const table = tableAt(lines, line);
  const fields = TASK_TOML_FIELDS[table] ?? [];
  const valueAt = /^\s*([\w-]+)\s*=\s*"?[\w-]*$/.exec(before);
  if (valueAt) {
    const field = fields.find((x) => x.key === valueAt[1]);
    return (field?.values ?? []).map((v) => ({
      label: v,
      insert: before.includes('"') ? v : `"${v}"`,
      detail: field?.key ?? "",
      doc: field?.doc ?? "",
      kind: "value" as const,
    }));
  }
  if (!/^\s*[\w-]*$/.test(before)) return [];
  // Keys the table already sets (from its header to the next) are not offered again.
  let start = line;
  while (start > 0 && !/^\s*\[/.test(lines[start] ?? "")) start--;
  let end = line + 1;
  while (end < lines.length && !/^\s*\[/.test(lines[end] ?? "")) end++;
  const set = new Set(
    lines
      .slice(start, end)
      .filter((_, i) => start + i !== line)
      .flatMap((l) => {
        const m = /^\s*([\w-]+)\s*=/.exec(l);
        return m?.[1] ? [m[1]] : [];
      }),
  );
  return fields
    .filter((x) => !set.has(x.key) && x.type !== "table" && x.type !== "array of tables")
    .map((x) => ({
      label: x.key,
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a VS Code snippet's choice placeholder
      insert: `${x.key} = ${x.example ?? (x.values ? `"\${1|${x.values.join(",")}|}"` : x.type === "string" ? '"$1"' : x.type === "array" ? "[$1]" : x.type === "boolean" ? "${1|true,false|}" : "$1")}`,
      detail: x.type,
      doc: x.doc,
      kind: "field" as const,
    }));
}

/** The documentation of the key on a line of task.toml, for a hover; null when the line sets no known key. */
export function taskTomlHover(text: string, line: number): { key: string; table: string; doc: string; type: string } | null {
  const lines = text.split("\n");
  const m = /^\s*([\w-]+)\s*=/.exec(lines[line] ?? "");
  if (!m?.[1]) return null;
  const table = tableAt(lines, line);
  const field = (TASK_TOML_FIELDS[table] ?? []).find((x) => x.key === m[1]);
  return field
    ? { key: field.key, table, doc: field.values ? `${field.doc} One of: ${field.values.join(", ")}.` : field.doc, type: field.type }
    : null;
}
