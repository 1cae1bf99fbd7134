// The rules of Harbor's task.toml that tie fields together (src/core/schema/harbor-task-rules.ts,
// from Harbor's models/task/config.py): os in any case, allowed_hosts only with an allowlist, a
// shared verifier without [verifier.environment], an MCP server's url or command by transport.
// Each is checked in the three views of the one schema: the loader's problems (which the editor
// shows as its diagnostics, src/extension/diagnostics/collection.ts), the editor's completion and
// hover, and the JSON Schema published for TOML editors, evaluated on the same documents.
import assert from "node:assert/strict";
import { test } from "node:test";
import { parse } from "smol-toml";
import { parseTaskConfig } from "../../src/core/harbor/task-config";
import { taskTomlCompletions, taskTomlHover } from "../../src/core/harbor/task-toml-schema";
import { renderJsonSchemas } from "../../src/core/schema/json-schema";

type Json = Record<string, unknown>;
const SCHEMA = JSON.parse(renderJsonSchemas()["harbor-task.schema.json"] ?? "{}") as Json;

/**
 * A draft-7 evaluator for the keywords the published schema uses. A keyword it does not know is a
 * failure of the test, not a pass, so a rule written with another keyword cannot slip by.
 */
function valid(schema: unknown, v: unknown): boolean {
  if (schema === true || schema === undefined) return true;
  if (schema === false) return false;
  const s = schema as Json;
  const isObject = v !== null && typeof v === "object" && !Array.isArray(v);
  const typeOk = (t: unknown): boolean =>
    Array.isArray(t)
      ? t.some(typeOk)
      : t === "object"
        ? isObject
        : t === "array"
          ? Array.isArray(v)
          : t === "integer"
            ? Number.isInteger(v)
            : t === "null"
              ? v === null
              : typeof v === t;
  for (const [k, x] of Object.entries(s)) {
    const ok = (() => {
      switch (k) {
        case "$schema":
        case "title":
        case "description":
        case "default":
        case "examples":
        case "deprecated":
        case "x-rlenv-unsupported":
        case "then":
        case "else":
          return true;
        case "type":
          return typeOk(x);
        case "enum":
          return (x as unknown[]).includes(v);
        case "const":
          return v === x;
        case "pattern":
          return typeof v !== "string" || new RegExp(x as string).test(v);
        case "minLength":
          return typeof v !== "string" || v.length >= (x as number);
        case "minItems":
          return !Array.isArray(v) || v.length >= (x as number);
        case "minimum":
          return typeof v !== "number" || v >= (x as number);
        case "exclusiveMinimum":
          return typeof v !== "number" || v > (x as number);
        case "maximum":
          return typeof v !== "number" || v <= (x as number);
        case "required":
          return !isObject || (x as string[]).every((r) => r in (v as object));
        case "properties":
          return !isObject || Object.entries(x as Json).every(([p, ps]) => !(p in (v as object)) || valid(ps, (v as Json)[p]));
        case "additionalProperties":
          return true; // the published schema lets unknown fields through (Harbor ignores them)
        case "propertyNames":
          return !isObject || Object.keys(v as object).every((p) => valid(x, p));
        case "items":
          return !Array.isArray(v) || v.every((e) => valid(x, e));
        case "anyOf":
          return (x as unknown[]).some((b) => valid(b, v));
        case "allOf":
          return (x as unknown[]).every((b) => valid(b, v));
        case "not":
          return !valid(x, v);
        case "if":
          return valid(x, v) ? valid(s.then, v) : valid(s.else, v);
        default:
          throw new Error(`the test's evaluator does not know the JSON Schema keyword '${k}'`);
      }
    })();
    if (!ok) return false;
  }
  return true;
}

const load = (text: string) => parseTaskConfig("/t/task.toml", text).problems;

interface Case {
  what: string;
  toml: string;
  /** The one error it gives: [line, column, endColumn, path, message], or null when it loads without one. */
  error: [number, number, number, string, RegExp] | null;
  /** Whether Harbor accepts it, and so the JSON Schema too (false for an rlenv limit such as Windows). */
  harbor: boolean;
}

const CASES: Case[] = [
  // 1. os: Harbor lower-cases it before it checks it.
  { what: 'os = "Linux"', toml: '[environment]\nos = "Linux"\n', error: null, harbor: true },
  { what: 'os = "LINUX" in [verifier.environment]', toml: '[verifier.environment]\nos = "LINUX"\n', error: null, harbor: true },
  {
    what: 'os = "Windows" (Harbor runs it, not here)',
    toml: '[environment]\nos = "Windows"\n',
    error: [2, 1, 3, "environment.os", /^Windows containers are not supported: the task cannot run here$/],
    harbor: true,
  },
  {
    what: 'os = "macos"',
    toml: '[environment]\ncpus = 1\n  os = "macos"\n',
    error: [3, 3, 5, "environment.os", /^must be "linux" or "windows", got "macos"$/],
    harbor: false,
  },
  // 2. allowed_hosts: only with network_mode = "allowlist".
  {
    what: "[environment] allowed_hosts without network_mode (public by default)",
    toml: '[environment]\ncpus = 1\nallowed_hosts = ["pypi.org"]\n',
    error: [3, 1, 14, "environment.allowed_hosts", /^is only valid with network_mode = "allowlist" \(here it is unset, so "public"/],
    harbor: false,
  },
  {
    what: '[environment] allowed_hosts with network_mode = "no-network"',
    toml: '[environment]\nnetwork_mode = "no-network"\nallowed_hosts = ["pypi.org"]\n',
    error: [3, 1, 14, "environment.allowed_hosts", /^is only valid with network_mode = "allowlist" \(not "no-network"\)/],
    harbor: false,
  },
  { what: "[environment] allowed_hosts = [] (asks for nothing)", toml: "[environment]\nallowed_hosts = []\n", error: null, harbor: true },
  {
    what: "[environment] an allowlist",
    toml: '[environment]\nnetwork_mode = "allowlist"\nallowed_hosts = ["pypi.org", "*.github.com"]\n',
    error: null,
    harbor: true,
  },
  {
    what: "[environment] a URL in allowed_hosts",
    toml: '[environment]\nnetwork_mode = "allowlist"\nallowed_hosts = ["https://pypi.org"]\n',
    error: [3, 1, 14, "environment.allowed_hosts", /^"https:\/\/pypi.org" is not a host name: a URL, port or path is not allowed$/],
    harbor: false,
  },
  {
    what: "[agent] allowed_hosts = [] without network_mode",
    toml: "[agent]\nallowed_hosts = []\n",
    error: [2, 1, 14, "agent.allowed_hosts", /^is only valid with network_mode = "allowlist" in the same table/],
    harbor: false,
  },
  {
    what: '[verifier] allowed_hosts with network_mode = "public"',
    toml: '[verifier]\nnetwork_mode = "public"\n\tallowed_hosts = ["a.org"]\n',
    error: [3, 2, 15, "verifier.allowed_hosts", /^is only valid with network_mode = "allowlist" \(not "public"\)/],
    harbor: false,
  },
  {
    what: "a step's [steps.agent] allowed_hosts with no-network",
    toml: '[[steps]]\nname = "one"\n[steps.agent]\nnetwork_mode = "no-network"\nallowed_hosts = ["a.org"]\n',
    error: [5, 1, 14, "steps.agent.allowed_hosts", /^step 'one': allowed_hosts is only valid with network_mode = "allowlist"/],
    harbor: false,
  },
  // 3. A shared verifier runs in the agent's sandbox: no image of its own.
  {
    what: 'environment_mode = "shared" with [verifier.environment]',
    toml: '[verifier]\ntimeout_sec = 60\nenvironment_mode = "shared"\n\n[verifier.environment]\ncpus = 2\n',
    error: [3, 1, 17, "verifier.environment_mode", /^is "shared", but \[verifier.environment\] gives the verifier an image of its own/],
    harbor: false,
  },
  {
    what: "a step's shared verifier with an inline environment",
    toml: '[[steps]]\nname = "one"\n[steps.verifier]\nenvironment_mode = "shared"\nenvironment = { cpus = 2 }\n',
    error: [4, 1, 17, "steps.verifier.environment_mode", /^step 'one': environment_mode is "shared", but/],
    harbor: false,
  },
  {
    what: 'environment_mode = "separate" with [verifier.environment]',
    toml: '[verifier]\nenvironment_mode = "separate"\n[verifier.environment]\ncpus = 2\n',
    error: null,
    harbor: true,
  },
  { what: 'environment_mode = "shared" alone', toml: '[verifier]\nenvironment_mode = "shared"\n', error: null, harbor: true },
  // 4. An MCP server: sse and streamable-http need a url, stdio a command.
  {
    what: "an sse server (the default transport) without url",
    toml: '[environment]\ncpus = 1\n\n[[environment.mcp_servers]]\nname = "docs"\n',
    error: [4, 1, 28, "environment.mcp_servers.url", /^is required for transport "sse" \(the server's URL\)$/],
    harbor: false,
  },
  {
    what: "the second server, stdio, without command (inline tables)",
    toml: '[environment]\nmcp_servers = [\n  { name = "a", url = "http://a" },\n  { name = "b", transport = "stdio", url = "http://b" },\n]\n',
    error: [2, 1, 12, "environment.mcp_servers.command", /^is required for transport "stdio" \(the command that starts the server\)$/],
    harbor: false,
  },
  {
    what: 'transport = "http" (streamable-http) with an empty url: the message names "http", as the file wrote it',
    toml: '[[environment.mcp_servers]]\nname = "a"\ntransport = "http"\nurl = ""\n',
    error: [
      4,
      1,
      4,
      "environment.mcp_servers.url",
      /^must not be empty for transport "http" \(read as streamable-http; the server's URL\)$/,
    ],
    harbor: false,
  },
  {
    what: 'transport = "http" without url',
    toml: '[[environment.mcp_servers]]\nname = "a"\ntransport = "http"\n',
    error: [1, 1, 28, "environment.mcp_servers.url", /^is required for transport "http" \(read as streamable-http; the server's URL\)$/],
    harbor: false,
  },
  {
    what: 'transport = "streamable-http" with an empty url: its own name, nothing read differently',
    toml: '[[environment.mcp_servers]]\nname = "a"\ntransport = "streamable-http"\nurl = ""\n',
    error: [4, 1, 4, "environment.mcp_servers.url", /^must not be empty for transport "streamable-http" \(the server's URL\)$/],
    harbor: false,
  },
  {
    what: "a stdio server with its command, an http one with its url",
    toml: '[[environment.mcp_servers]]\nname = "a"\ntransport = "stdio"\ncommand = "srv"\n[[environment.mcp_servers]]\nname = "b"\ntransport = "http"\nurl = "http://b"\n',
    error: null,
    harbor: true,
  },
];

for (const c of CASES) {
  test(`${c.what}: ${c.error ? `an error at line ${c.error[0]}, column ${c.error[1]}` : "no error"} in the loader and the editor; ${c.harbor ? "valid" : "invalid"} in the JSON Schema`, () => {
    const errors = load(c.toml).filter((p) => p.severity === "error");
    if (!c.error) assert.deepEqual(errors, []);
    else {
      assert.equal(errors.length, 1, JSON.stringify(errors));
      const [line, column, endColumn, path, message] = c.error;
      const e = errors[0];
      assert.deepEqual(
        [e?.file, e?.line, e?.column, e?.endLine, e?.endColumn, e?.path],
        ["/t/task.toml", line, column, line, endColumn, path],
      );
      assert.match(e?.message ?? "", message);
    }
    assert.equal(valid(SCHEMA, parse(c.toml)), c.harbor, "the JSON Schema's verdict");
  });
}

test("a rule is not checked on a field already in error: only the field's own error is reported", () => {
  const problems = load('[agent]\nnetwork_mode = "allowlst"\nallowed_hosts = ["a.org"]\n').filter((p) => p.severity === "error");
  assert.deepEqual(
    problems.map((p) => [p.line, p.path]),
    [[2, "agent.network_mode"]],
  );
  // An unknown field beside them is a warning, and does not keep the rule from being checked.
  const beside = load('[verifier]\nenvironment_mode = "shared"\nzz = 1\n[verifier.environment]\ncpus = 2\n');
  assert.deepEqual(
    beside.filter((p) => p.severity === "error").map((p) => [p.line, p.path]),
    [[2, "verifier.environment_mode"]],
  );
});

test("what a run reads: os in any case is linux, a table in error is read without the offending field", () => {
  assert.deepEqual(parseTaskConfig("/t/task.toml", '[environment]\nos = "Linux"\ncpus = 2\n').config?.cpus, 2);
  const shared = parseTaskConfig(
    "/t/task.toml",
    '[verifier]\ntimeout_sec = 30\nenvironment_mode = "shared"\n[verifier.environment]\ncpus = 2\n',
  );
  assert.equal(shared.config?.verifierTimeoutSec, 30, "the rest of [verifier] still counts");
  const hosts = parseTaskConfig("/t/task.toml", '[environment]\nnetwork_mode = "no-network"\nallowed_hosts = ["a.org"]\n');
  assert.equal(hosts.config?.networkMode, "no-network");
});

test("the editor offers os's and transport's values, and its hover says what each rule asks", () => {
  const values = (text: string, line: number, column: number) => taskTomlCompletions(text, line, column).map((c) => c.label);
  assert.deepEqual(values('[environment]\nos = "', 1, 6), ["linux", "windows"]);
  assert.deepEqual(values('[[environment.mcp_servers]]\ntransport = "', 1, 13), ["sse", "streamable-http", "stdio"]);
  const hover = (text: string, line: number) => taskTomlHover(text, line)?.doc ?? "";
  assert.match(hover('[environment]\nos = "Linux"', 1), /in any case/);
  assert.match(hover('[environment]\nos = "Linux"', 1), /Default: "linux"/);
  assert.match(hover('[agent]\nallowed_hosts = ["a"]', 1), /network_mode = "allowlist"/);
  assert.match(hover('[[environment.mcp_servers]]\nurl = "x"', 1), /required for sse and streamable-http/);
  assert.match(hover('[[environment.mcp_servers]]\ncommand = "x"', 1), /required for stdio/);
  assert.match(hover('[[environment.mcp_servers]]\ntransport = "http"', 1), /Default: "sse"/);
});

test("the published JSON Schema carries each rule where JSON Schema can say it", () => {
  const props = SCHEMA.properties as Record<string, Json>;
  const env = props.environment as Json;
  const envProps = env.properties as Record<string, Json>;
  // os: the two values, in any case, linux by default.
  const os = envProps.os as Json;
  assert.equal(os.default, "linux");
  for (const ok of ["linux", "Linux", "WINDOWS"]) assert.ok(valid(os, ok), ok);
  for (const bad of ["mac", "linux2", ""]) assert.ok(!valid(os, bad), bad);
  // allowed_hosts entries are host names or a leading wildcard.
  const host = (envProps.allowed_hosts as Json).items as Json;
  for (const ok of ["pypi.org", "*.github.com", "Files.PythonHosted.org."]) assert.ok(valid(host, ok), ok);
  for (const bad of ["https://x.org", "x.org:443", "a*.b.org", ""]) assert.ok(!valid(host, bad), bad);
  // The rules between fields are if/then in each table's allOf.
  assert.ok(Array.isArray(env.allOf) && (env.allOf as Json[]).some((r) => "if" in r && "then" in r), "[environment]'s allowlist rule");
  for (const table of ["agent", "verifier"]) assert.ok(Array.isArray((props[table] as Json).allOf), `[${table}]'s rules`);
  const server = ((envProps.mcp_servers as Json).items as Json).allOf as Json[];
  assert.ok(
    server.some((r) => "if" in r && "then" in r && "else" in r),
    "an MCP server's transport rule",
  );
  assert.deepEqual(((envProps.mcp_servers as Json).items as Json).properties, {
    ...(((envProps.mcp_servers as Json).items as Json).properties as Json),
    transport: {
      description: 'How the agent reaches it ("http" is read as streamable-http).',
      type: "string",
      enum: ["sse", "streamable-http", "stdio", "http"],
      default: "sse",
    },
  });
  assert.ok(!/x-rlenv-accepts/.test(renderJsonSchemas()["harbor-task.schema.json"] ?? ""), "the marker is replaced, not published");
});
