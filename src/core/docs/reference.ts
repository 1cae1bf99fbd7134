import { z } from "zod";
import { calibrationSection } from "./calibration-section";
import { runFileSection } from "./run-file-section";
import { visibleTestsSection } from "./visible-tests-section";
import { loadDomain } from "../domains/registry";
import { DEFAULT_REPORT_SCHEMA, DocumentTarget } from "../domains/document/target";
import { CHECK_SCHEMAS } from "../domains/scene3d/checks/check-spec";
import type { Environment } from "../model/environment";
import "../reward/comparators/basic";
import "../reward/comparators/document";
import { findComparator, registeredComparators } from "../reward/comparators/registry";
import { SCRIPT_INPUT_FILE, scriptEnvironment, scriptInput } from "../reward/script-input";
import { submitTool } from "../rollout/submit-tool";
import type { Domain } from "../schema/common";
import { Manifest } from "../schema/manifest";
import { COMPARATOR_NAMES } from "../schema/comparators";
import { FieldSpec } from "../schema/verifier";
import { readingRulesSection } from "./reading-rules";

/**
 * The generated reference (docs/reference.md): every built-in tool per domain, comparator,
 * scene check, the report schema, a script verifier's inputs, the replay format and the
 * folder form of tasks, written from the code itself so it cannot drift from it.
 * `scripts/write-docs.ts --check` fails the test command when the file is stale.
 */

/** What each comparator is for; the examples under it are computed. A registered comparator missing here fails the generator. */
const COMPARATOR_TEXT: Record<(typeof COMPARATOR_NAMES)[number], string> = {
  exact: "The value's text equals the gold's exactly (after trimming).",
  text: "Text equal after normalising case, whitespace and punctuation.",
  number:
    "A number within rel_tol / abs_tol of the gold (default: exact); numbers inside text are read. A gold with a physical unit ('148.5 MW') is compared as `quantity` compares it.",
  json: "Deep equality of JSON values (a JSON string is parsed first).",
  money:
    "Amounts of money: currency symbols and codes, thousands separators, scale words (million, bn), brackets as negatives; currencies must agree.",
  percent: "Percentages: '30.8%', '30.8 percent' and 0.308 compare equal to a gold of 30.8% within rounding.",
  date: "Dates in any common spelling (2023-01-31, January 31, 2023, 31 Jan 2023) compare by the day.",
  entities: "Sets of names (parties, companies): F1 between the sets after normalising legal suffixes; passed at `threshold` (default 1).",
  quantity:
    "Figures with physical units, SI prefixes and scale words ('148,500 kW' = '0.1485 GW' = '148.5 MW'; '1.2 million tonnes'), converted by js-quantities before comparing; a unit of another dimension or no unit at all scores 0. A gold without a unit is compared as `number` compares figures. `auto` picks it for a gold with a unit, and `number` compares such a gold the same way.",
  "legal-text": "Text equal after normalising case, punctuation and a leading article ('the Licensee' is 'Licensee').",
  judge:
    "A rubric graded by an OpenAI-compatible judge model (judge base_url/model on the verifier); skipped, never passed, without an endpoint.",
  auto: "The task picks: target.grading.<field>.comparator, else the gold value's form (a number, money, a percentage, a date, a list of names, text).",
};

/** Pairs each comparator is shown on: [answer, gold, field options]. */
const COMPARATOR_EXAMPLES: Record<string, Array<[unknown, unknown, Record<string, unknown>?]>> = {
  exact: [
    [" Paris ", "Paris"],
    ["paris", "Paris"],
  ],
  text: [
    ["PARIS!", "Paris"],
    ["Lyon", "Paris"],
  ],
  number: [
    ["148,500 kW", "148.5 MW"],
    ["12.0", 12],
    [12.5, 12],
    [12.5, 12, { rel_tol: 0.05 }],
  ],
  json: [
    ['{"a": [1, 2]}', { a: [1, 2] }],
    [{ a: [2, 1] }, { a: [1, 2] }],
  ],
  money: [
    ["$1,577 million", "$1.577 billion"],
    ["($1,577 million)", "$1,577 million"],
    ["€1,577 million", "$1,577 million"],
  ],
  percent: [
    ["30.8%", "30.8%"],
    ["0.308", "30.8%"],
    ["31%", "30.8%"],
  ],
  date: [
    ["January 31, 2023", "2023-01-31"],
    ["2023-02-01", "2023-01-31"],
  ],
  entities: [
    [
      ["Acme Corp.", "Beta LLC"],
      ["ACME Corporation", "Beta, LLC"],
    ],
    [["Acme Corp."], ["Acme Corp.", "Beta LLC"], { threshold: 0.6 }],
  ],
  quantity: [
    ["1.2 million", 1200000],
    ["1.3 million", 1200000],
    ["148,500 kW", "148.5 MW"],
    ["0.1485 GW", "148.5 MW"],
    ["148.5 GW", "148.5 MW"],
    ["148.5 MWh", "148.5 MW"],
    ["148.5", "148.5 MW"],
    ["1.2 million tonnes", "1,200,000 t"],
    ["293.15 K", "20 °C"],
  ],
  "legal-text": [
    ["the Licensee", "Licensee"],
    ["Acme Corp., Inc.", "ACME CORP INC"],
    ["Licensor", "Licensee"],
  ],
  auto: [
    ["$1.6 billion", "$1,577 million"],
    ["2023-01-31", "January 31, 2023"],
  ],
};

const code = (v: unknown) => `\`${(typeof v === "string" ? JSON.stringify(v) : JSON.stringify(v)).replace(/`/g, "'")}\``;
const cell = (s: string) => s.replace(/\|/g, "\\|").replace(/\n/g, " ");

/** A JSON Schema's properties as table rows: name, type, required, description. */
function paramRows(schema: Record<string, unknown>): string[] {
  const props = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  return Object.entries(props).map(([name, p]) => {
    const type = Array.isArray(p.enum)
      ? (p.enum as unknown[]).map((e) => JSON.stringify(e)).join(" \\| ")
      : String(p.type ?? (p.anyOf ? "any of several" : "any"));
    const items =
      p.type === "array" && p.items && typeof p.items === "object"
        ? ` of ${String((p.items as Record<string, unknown>).type ?? "objects")}`
        : "";
    const dflt = p.default !== undefined ? ` (default ${JSON.stringify(p.default)})` : "";
    return `| \`${name}\` | ${cell(type + items)} | ${required.has(name) ? "yes" : ""} | ${cell(String(p.description ?? "") + dflt)} |`;
  });
}

/** A stand-in environment for reading each domain's tool definitions (no files are touched). */
function stubEnvironment(domain: Domain): Environment {
  const manifest = Manifest.parse({
    name: "reference",
    domain,
    tasks: "tasks.jsonl",
    reward: [{ type: "exact" }],
    ...(domain === "document" ? { documents: { path: "documents" } } : {}),
    ...(domain === "scene3d" ? { scene: {} } : {}),
  });
  return {
    dir: "/nonexistent",
    manifestPath: "/nonexistent/environment.yaml",
    manifest,
    tasks: [],
    prompts: { system: "", user: "{{task.prompt}}" },
    builtinTools: [],
    customTools: [],
    hash: "",
    paths: { tasks: "/nonexistent/tasks.jsonl" },
  };
}

async function toolsSection(): Promise<string[]> {
  const out = [
    "## Built-in tools",
    "",
    "An environment lists the built-ins it offers under `tools:` by name (all of its domain's when it lists none); `submit` is added when no submit tool is listed. A custom tool is `{name, description, parameters, command}`: the command runs in the sandbox workdir with the arguments as JSON on stdin.",
    "",
  ];
  for (const domain of ["code", "scene3d", "document", "custom"] as const) {
    const plugin = await loadDomain(domain);
    const tools = plugin.tools(stubEnvironment(domain));
    if (!tools.some((t) => t.name === "submit" || t.name === "submit_report")) tools.push(submitTool);
    out.push(`### ${domain}`, "");
    for (const t of tools) {
      out.push(`#### \`${t.name}\``, "", t.description, "");
      const rows = paramRows(t.parameters);
      if (rows.length > 0) out.push("| parameter | type | required | description |", "|---|---|---|---|", ...rows, "");
      else out.push("No parameters.", "");
    }
  }
  return out;
}

async function comparatorsSection(): Promise<string[]> {
  const out = [
    "## Field comparators",
    "",
    "A `fields` verifier grades each field of the submitted answer with a comparator (`fields: { revenue: { comparator: money } }`); the gold value is `target.<field>` or `target.fields.<field>`. Options per field:",
    "",
  ];
  const spec = FieldSpec.shape;
  out.push("| option | description |", "|---|---|");
  for (const [k, v] of Object.entries(spec)) out.push(`| \`${k}\` | ${cell((v as z.ZodType).description ?? "")} |`);
  out.push("", ...readingRulesSection());
  const ctx = {
    field: "value",
    answer: {},
    env: stubEnvironment("document"),
    task: { id: "t", prompt: "p", source: { file: "", line: 1, index: 0 } },
    events: [],
    signal: new AbortController().signal,
    timeoutMs: 1000,
  };
  // The schema's table, not the registry, lists them: a name the schema refuses is never documented.
  const unlisted = registeredComparators().filter((n) => !(COMPARATOR_NAMES as readonly string[]).includes(n));
  if (unlisted.length) throw new Error(`comparators registered but not in COMPARATOR_NAMES: ${unlisted.join(", ")}`);
  for (const name of COMPARATOR_NAMES) {
    const text = COMPARATOR_TEXT[name];
    if (!text) throw new Error(`comparator '${name}' has no description in src/core/docs/reference.ts`);
    if (!findComparator(name)) throw new Error(`comparator '${name}' is in COMPARATOR_NAMES but not registered`);
    out.push(`### \`${name}\``, "", text, "");
    const examples = COMPARATOR_EXAMPLES[name] ?? [];
    if (examples.length === 0) continue;
    out.push("| answer | gold | options | score | passed | reason |", "|---|---|---|---|---|---|");
    for (const [actual, gold, opts] of examples) {
      const r = await findComparator(name)!(actual, gold, FieldSpec.parse({ comparator: name, ...opts }), {
        ...ctx,
        answer: { value: actual },
      } as never);
      out.push(
        `| ${code(actual)} | ${code(gold)} | ${opts ? code(opts) : ""} | ${r.score.toFixed(2)} | ${(r.passed ?? r.score >= 1) ? "✓" : "✗"} | ${cell(r.reason ?? "")} |`,
      );
    }
    out.push("");
  }
  return out;
}

function checksSection(): string[] {
  const out = [
    "## Scene checks",
    "",
    "A scene task's `target.checks` (and a `scene` verifier's `checks`). Lengths are in scene units (metres by convention), angles in degrees, Z is up; every check also takes `label` and `weight`.",
    "",
  ];
  for (const [name, schema] of Object.entries(CHECK_SCHEMAS)) {
    const js = z.toJSONSchema(schema as z.ZodType, { io: "input", unrepresentable: "any" }) as Record<string, unknown>;
    out.push(`### \`${name}\``, "", "| parameter | type | required | description |", "|---|---|---|---|");
    out.push(...paramRows(js).filter((r) => !r.startsWith("| `check`") && !r.startsWith("| `label`") && !r.startsWith("| `weight`")), "");
  }
  return out;
}

function reportSection(): string[] {
  const fields = Object.entries(DocumentTarget.shape).map(([k, v]) => `| \`${k}\` | ${cell((v as z.ZodType).description ?? "")} |`);
  return [
    "## Document targets and `target.schema`",
    "",
    "A document task's hidden `target` holds the gold value of each report field (`target.<field>`, or `target.fields.<field>`) and these keys:",
    "",
    "| key | description |",
    "|---|---|",
    ...fields,
    "",
    "`submit_report` checks the report against `target.schema` and tells the agent what to fix; `rlenv validate` checks the reference `solution.answer` against it. Without one, the report is:",
    "",
    "```json",
    JSON.stringify(DEFAULT_REPORT_SCHEMA, null, 2),
    "```",
    "",
  ];
}

function scriptSection(): string[] {
  const env = stubEnvironment("document");
  const example = scriptInput(
    {
      env,
      task: {
        id: "q1",
        prompt: "What was revenue in 2023?",
        metadata: { company: "Acme" },
        target: { revenue: "$12 million" },
        source: { file: "", line: 1, index: 0 },
      },
      answer: { revenue: "$12.0 million" },
    },
    { name: "grader", weight: 1 },
  );
  const vars = scriptEnvironment(example);
  return [
    "## What a `script` verifier receives",
    "",
    '`{type: script, command: …}` runs the command in the rollout\'s sandbox, in the workdir as the agent left it, after the agent submitted. It prints its score on its last line of stdout: a number in [0, 1], or `{"score": x, "reason": "…", "passed": true}`; a crash is recorded with its error line and scores 0.',
    "",
    `On stdin (and in the file \`${SCRIPT_INPUT_FILE}\`, named by \`$RLENV_INPUT\`) it gets one JSON object, for example:`,
    "",
    "```json",
    JSON.stringify(example, null, 2),
    "```",
    "",
    "`trajectory` is a JSONL file inside the sandbox with every event so far (the trajectory format below). The same values as environment variables (JSON-encoded where structured; one over 64 KiB is left out, read it from stdin):",
    "",
    "| variable | example |",
    "|---|---|",
    ...Object.entries(vars).map(([k, v]) => `| \`${k}\` | \`${v.replace(/`/g, "'")}\` |`),
    "",
    "A task may carry its own `reward` list: a component named like one of the manifest's (its `name`, else its `type`) replaces it for that task, any other is added.",
    "",
  ];
}

function replaySection(): string[] {
  return [
    "## `replay:` files",
    "",
    "`--policy replay:PATH` plays recorded actions again: PATH is a trajectory file (`runs/<run>/rollouts/<rollout>.jsonl`) or a run folder, where each task replays its own rollout (the same sample, else the first). A trajectory is JSONL, one event a line: `start` (run, rollout, environment, task, policy, tools), `message` (role, content, `tool_calls: [{id, name, arguments}]` with `arguments` the raw JSON text), `tool_call`, `observation`, `reward`, `error`, `end`. The replay takes each `message` with `role: assistant` in order as one turn: its text and its tool calls; everything else is ignored, so a hand-written file needs only a `start` line and those messages:",
    "",
    "```jsonl",
    JSON.stringify({
      type: "start",
      seq: 0,
      t: 0,
      run_id: "hand",
      rollout_id: "add.s0",
      env: { name: "py-functions", hash: "", domain: "code" },
      task: { id: "add", prompt: "" },
      policy: { kind: "hand" },
      sample: 0,
      sandbox: { backend: "process" },
    }),
    JSON.stringify({
      type: "message",
      seq: 1,
      t: 0,
      role: "assistant",
      content: null,
      tool_calls: [
        { id: "c1", name: "write_file", arguments: JSON.stringify({ path: "solution.py", content: "def add(a, b):\n    return a + b\n" }) },
      ],
    }),
    JSON.stringify({
      type: "message",
      seq: 2,
      t: 0,
      role: "assistant",
      content: null,
      tool_calls: [{ id: "c2", name: "submit", arguments: "{}" }],
    }),
    "```",
    "",
    "A missing PATH fails the run before any rollout starts.",
    "",
  ];
}

function folderSection(): string[] {
  return [
    "## Task folders",
    "",
    "`tasks:` names a JSONL file (one task a line) or a folder with one folder per task:",
    "",
    "```",
    "tasks/",
    "  add/",
    "    task.yaml          # the task's fields (id defaults to the folder name): prompt, target, solution.answer, metadata, reward…",
    "    files/             # seed files → files (written into the workdir at reset)",
    "    visible_tests/     # → visible_tests (the agent may run them with run_tests)",
    "    tests/             # hidden tests → tests.files (copied in only after submit)",
    "    solution/          # the oracle's files → solution.files",
    "```",
    "",
    "Each folder's files are merged into the field named beside it, keyed by their path inside the folder; an entry that task.yaml gives itself wins over a file of the same path. Binary files are kept byte for byte (`{ base64: … }` in JSONL), and a file with any x bit on disk stays executable (`executable: true` in JSONL; mode 755 in the sandbox). Links that leave the environment folder are refused.",
    "",
  ];
}

export async function renderReference(): Promise<string> {
  const parts = [
    "# RL Env Studio reference",
    "",
    "<!-- Generated by scripts/write-docs.ts from the code: do not edit by hand (npm test checks it is fresh). -->",
    "",
    "Contents: [built-in tools](#built-in-tools) · [field comparators](#field-comparators) · [scene checks](#scene-checks) · [document targets and target.schema](#document-targets-and-targetschema) · [script verifiers](#what-a-script-verifier-receives) · [replay files](#replay-files) · [task folders](#task-folders) · [visible tests](#visible-tests-run_tests) · [calibration labels](#calibration-labels-rlenv-calibrate) · [run config files](#run-config-files-rlenv-run--c-file)",
    "",
    ...(await toolsSection()),
    ...(await comparatorsSection()),
    ...checksSection(),
    ...reportSection(),
    ...scriptSection(),
    ...replaySection(),
    ...folderSection(),
    ...visibleTestsSection(),
    ...calibrationSection(),
    ...runFileSection(),
  ];
  return `${parts
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trimEnd()}\n`;
}
