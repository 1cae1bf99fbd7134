import { z } from "zod";

/**
 * The rules of Harbor's task.toml that go beyond one field's type: values Harbor normalises on
 * input (`os = "Linux"`) or reads under another name (`transport = "http"`), and the checks
 * that tie one field to another (its pydantic validators in models/task/config.py). Each rule is a zod refinement that puts
 * its problem on the field it is about, so the loader and the editor's diagnostics place it at
 * that field's line; beside it is the same rule in JSON Schema (draft 7), for the schema
 * published to TOML editors, where JSON Schema can say it.
 */

/**
 * Metadata key: the JSON Schema of what a field accepts as written, where that is wider than the
 * value it yields (zod writes the latter). schema/json-schema.ts puts it in place of the derived one.
 */
export const ACCEPTS = "x-rlenv-accepts";

/** `word` in any case, as a JSON Schema pattern (ECMA regexes in JSON Schema have no `i` flag). */
const anyCase = (word: string) => [...word].map((c) => (/[a-z]/i.test(c) ? `[${c.toLowerCase()}${c.toUpperCase()}]` : c)).join("");

/**
 * One of the values in any case (Harbor lower-cases `os` before it checks it), with its default;
 * the field yields it lower-cased. zod leaves a default out of the input's JSON Schema when the
 * value is transformed, so what it accepts carries the default itself.
 */
export function lowerCasedEnum<const T extends readonly [string, ...string[]]>(values: T, dflt: T[number]) {
  return z
    .preprocess((v) => (typeof v === "string" ? v.toLowerCase() : v), z.enum(values))
    .meta({
      [ACCEPTS]: {
        type: "string",
        anyOf: [{ enum: [...values] }, { pattern: `^(?:${values.map(anyCase).join("|")})$` }],
        default: dflt,
      },
    })
    .default(dflt as z.output<z.ZodEnum<{ [K in T[number]]: K }>>);
}

export const MCP_TRANSPORTS = ["sse", "streamable-http", "stdio"] as const;
/**
 * An MCP server's transport, "sse" unless set. Harbor reads "http" as "streamable-http"; the
 * table keeps the word the file wrote, so a message about the server can quote it (readTransport
 * gives the transport Harbor uses). The editor offers the three names, the first of the union.
 */
export const McpTransport = z
  .union([z.enum(MCP_TRANSPORTS), z.literal("http")])
  .meta({ [ACCEPTS]: { type: "string", enum: [...MCP_TRANSPORTS, "http"], default: "sse" } })
  .default("sse");

/** The transport Harbor uses for the one written: "http" is its other name for "streamable-http". */
export function readTransport(written: z.output<typeof McpTransport>): (typeof MCP_TRANSPORTS)[number] {
  return written === "http" ? "streamable-http" : written;
}

const HOST_LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const LABEL = "[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?";

/** What is wrong with an allowed_hosts entry as Harbor reads it (trimmed, lower-cased, a trailing dot taken off), or undefined. */
export function hostProblem(entry: string): string | undefined {
  const host = entry.trim().toLowerCase().replace(/\.+$/, "");
  if (host === "") return "an allowed host must not be empty";
  if (host.includes("://") || host.includes("/") || host.includes(":"))
    return `${JSON.stringify(entry)} is not a host name: a URL, port or path is not allowed`;
  if (host.includes("*") && !/^\*\.[^*]+$/.test(host)) return `${JSON.stringify(entry)}: a wildcard is a leading "*." before a host name`;
  const labels = host.replace(/^\*\./, "").split(".");
  if (!labels.every((l) => HOST_LABEL.test(l)))
    return `${JSON.stringify(entry)} is not a host name (letters, digits, "-" and ".", or "*." before one)`;
  return undefined;
}

/** allowed_hosts: host names, or a leading-wildcard pattern ("*.example.com"), as Harbor checks them. */
export const AllowedHosts = z.array(
  z
    .string()
    .superRefine((s, ctx) => {
      const problem = hostProblem(s);
      if (problem) ctx.addIssue({ code: "custom", message: problem, input: s });
    })
    .meta({ pattern: `^\\s*(?:\\*\\.)?${LABEL}(?:\\.${LABEL})*\\.*\\s*$` }),
);

/** A rule tying fields of one table together. */
export interface TableRule<T> {
  /** The fields it reads: it is not checked while one of them is in error (that error says more). */
  reads: readonly string[];
  /** Reports each problem at the field it is about. */
  check: (value: T, report: (field: string, message: string) => void) => void;
  /** The rule in JSON Schema (draft 7), when JSON Schema can say it and Harbor has the rule: each part goes in the table's allOf. */
  json?: Array<Record<string, unknown>>;
}

type Issue = { path?: readonly PropertyKey[]; code?: string };

/** The table with its rules: each a refinement, each JSON form in the table's `allOf`. */
export function withRules<S extends z.ZodType<Record<string, unknown>>>(table: S, rules: ReadonlyArray<TableRule<z.output<S>>>): S {
  let out = table;
  for (const rule of rules) {
    // An issue at the table itself (not a table) or at a field the rule reads: the rule would read a wrong value.
    const blocked = (i: Issue) => {
      const first = i.path?.[0];
      return first === undefined ? i.code !== "unrecognized_keys" : rule.reads.includes(String(first));
    };
    out = out.superRefine(
      (value, ctx) => rule.check(value, (field, message) => ctx.addIssue({ code: "custom", path: [field], message, input: value[field] })),
      { when: (payload) => !(payload.issues as Issue[]).some(blocked) },
    );
  }
  const json = rules.flatMap((r) => r.json ?? []);
  return json.length > 0 ? out.meta({ allOf: json }) : out;
}

/** JSON Schema's if/then(/else) (a literal `then:` key reads as a thenable to the linter). */
function ifThen(cond: object, then: object, otherwise?: object): Record<string, unknown> {
  return { if: cond, then, ...(otherwise ? { else: otherwise } : {}) };
}

const present = (name: string) => ({ required: [name] });
const nonEmpty = (name: string) => ({ required: [name], properties: { [name]: { minItems: 1 } } });
const ALLOWLIST = '"allowlist"';

type Network = { network_mode?: string | undefined; allowed_hosts?: readonly string[] | undefined };

/**
 * [environment] (and [verifier.environment]): hosts are only allowed through an allowlist. Its
 * network_mode defaults to "public", so an empty list without one asks for nothing.
 */
export const baselineNetworkRule: TableRule<Network> = {
  reads: ["network_mode", "allowed_hosts"],
  check: (t, report) => {
    if (!t.allowed_hosts?.length || t.network_mode === "allowlist") return;
    const mode = t.network_mode ? `not "${t.network_mode}"` : `here it is unset, so "public", Harbor's default`;
    report("allowed_hosts", `is only valid with network_mode = ${ALLOWLIST} (${mode}); Harbor refuses the task`);
  },
  json: [ifThen(nonEmpty("allowed_hosts"), { required: ["network_mode"], properties: { network_mode: { const: "allowlist" } } })],
};

/**
 * [agent], [verifier] and a step's: a phase sets no policy of its own unless it names a
 * network_mode, so allowed_hosts there without one (even an empty list) is refused, as Harbor does.
 */
export const phaseNetworkRule: TableRule<Network> = {
  reads: ["network_mode", "allowed_hosts"],
  check: (t, report) => {
    if (t.allowed_hosts === undefined || t.network_mode === "allowlist") return;
    if (t.network_mode === undefined)
      report(
        "allowed_hosts",
        `is only valid with network_mode = ${ALLOWLIST} in the same table (a phase without network_mode follows [environment]); Harbor refuses the task`,
      );
    else if (t.allowed_hosts.length > 0)
      report("allowed_hosts", `is only valid with network_mode = ${ALLOWLIST} (not "${t.network_mode}"); Harbor refuses the task`);
  },
  json: [
    ifThen(present("allowed_hosts"), present("network_mode")),
    ifThen(nonEmpty("allowed_hosts"), { properties: { network_mode: { const: "allowlist" } } }),
  ],
};

/** [verifier]: a shared verifier runs in the agent's sandbox, so it cannot also have an image of its own. */
export const sharedVerifierRule: TableRule<{ environment_mode?: string | undefined; environment?: unknown }> = {
  reads: ["environment_mode", "environment"],
  check: (t, report) => {
    if (t.environment_mode === "shared" && t.environment !== undefined)
      report(
        "environment_mode",
        'is "shared", but [verifier.environment] gives the verifier an image of its own: set environment_mode = "separate" or take the table out (Harbor refuses both together)',
      );
  },
  json: [
    ifThen({ required: ["environment_mode"], properties: { environment_mode: { const: "shared" } } }, { not: present("environment") }),
  ],
};

/** An MCP server: stdio starts a command; sse and streamable-http reach a URL (Harbor's MCPServerConfig). */
export const mcpTransportRule: TableRule<{
  transport: z.output<typeof McpTransport>;
  url?: string | undefined;
  command?: string | undefined;
}> = {
  reads: ["transport", "url", "command"],
  check: (s, report) => {
    const [field, what] =
      s.transport === "stdio" ? (["command", "the command that starts the server"] as const) : (["url", "the server's URL"] as const);
    const value = s[field];
    // The word the file wrote, and what Harbor reads it as when that is another name.
    const read = readTransport(s.transport);
    const why = `transport "${s.transport}" (${read === s.transport ? "" : `read as ${read}; `}${what})`;
    if (value === undefined) report(field, `is required for ${why}`);
    else if (value === "") report(field, `must not be empty for ${why}`);
  },
  json: [
    ifThen(
      { required: ["transport"], properties: { transport: { const: "stdio" } } },
      { required: ["command"], properties: { command: { minLength: 1 } } },
      { required: ["url"], properties: { url: { minLength: 1 } } },
    ),
  ],
};

/** The top-level [environment]: a Windows container cannot run here (the sandboxes are Linux). Harbor accepts it, so JSON Schema does not refuse it. */
export const linuxOnlyRule: TableRule<{ os: string }> = {
  reads: ["os"],
  check: (t, report) => {
    if (t.os === "windows") report("os", "Windows containers are not supported: the task cannot run here");
  },
};
