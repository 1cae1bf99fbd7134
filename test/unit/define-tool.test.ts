import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { CODE_TOOLS } from "../../src/core/domains/code";
import { documentDomain } from "../../src/core/domains/document";
import { scene3dDomain } from "../../src/core/domains/scene3d";
import type { ToolContext, ToolDefinition } from "../../src/core/model/domain";
import { loadEnvironment } from "../../src/core/environment/load-environment";
import type { Environment } from "../../src/core/model/environment";
import { makeEnvDir } from "../support/tmp-env";

// Every domain's tools are built by one defineTool from a zod schema. Two guards against
// the model seeing anything new: the JSON Schema each tool shows equals the hand-written
// one it replaced, and a matrix of bad arguments gives byte for byte the result the
// hand-written argument checks gave. Both were recorded from the hand-written tools
// (RECORD_TOOL_GOLDEN=1 writes them again; only do that on purpose).
const GOLDEN = path.join(import.meta.dirname, "..", "fixtures", "tool-golden.json");
const RECORD = process.env.RECORD_TOOL_GOLDEN === "1";

/** Bad (and a few good) arguments per tool; each case is run alone on a fresh rollout state. */
const CASES: Record<string, Record<string, unknown>[]> = {
  bash: [
    {},
    { command: null },
    { command: 3 },
    { command: "" },
    { command: "ls", timeout: "x" },
    { command: "ls", timeout: 0 },
    { command: "ls", timeout: -2 },
    { command: "ls", timeout: "1.5" },
    { command: "ls", extra: 1 },
  ],
  read_file: [
    {},
    { path: "" },
    { path: ["a"] },
    { path: "a", start_line: 0 },
    { path: "a", start_line: 1.5 },
    { path: "a", start_line: "2" },
    { path: "a", start_line: "x" },
    { path: "a", end_line: -1 },
    { path: "a", start_line: null },
    { path: 1, start_line: 0 },
  ],
  write_file: [{}, { path: "a" }, { path: "a", content: 1 }, { path: "", content: "" }, { content: "x" }],
  edit_file: [
    {},
    { path: "a" },
    { path: "a", old_string: "" },
    { path: "a", old_string: "x" },
    { path: "a", old_string: "x", new_string: 2 },
    { path: "a", old_string: "x", new_string: "", replace_all: "yes" },
    { path: "a", old_string: "x", new_string: "y", replace_all: true },
  ],
  list_files: [{ path: 3 }, { path: "" }, { depth: 0 }, { depth: "2" }, { depth: 2.5 }, { depth: true }, { depth: 50 }],
  run_tests: [{ anything: 1 }],
  submit: [{}, { summary: "done" }, { answer: 42 }, { answer: "a", summary: "b" }, { message: "m" }],
  list_documents: [{ x: 1 }],
  search: [
    {},
    { query: "" },
    { query: "   " },
    { query: 5 },
    { query: "revenue", k: 0 },
    { query: "revenue", k: 21 },
    { query: "revenue", k: "3" },
    { query: "revenue", k: 2.5 },
    { query: "revenue", document: "" },
    { query: "revenue", document: null },
    { query: "revenue", document: 7 },
    { query: "revenue", document: "nope.md" },
    { query: "revenue", k: null },
  ],
  read: [
    {},
    { document: "" },
    { document: "nope.md" },
    { document: "notes.md", page: 0 },
    { document: "notes.md", page: 9 },
    { document: "notes.md", page: "1" },
    { document: "notes.md", start: -1 },
    { document: "notes.md", start: 1.5 },
    { document: "notes.md", end: 0 },
    { document: "notes.md", start: 5, end: 5 },
    { document: "notes.md", page: 1, start: 999 },
    { document: "notes.md", start: 99999 },
    { document: "notes.md", page: null, start: null },
  ],
  find: [
    {},
    { pattern: "" },
    { pattern: 1 },
    { pattern: "x".repeat(301) },
    { pattern: "(a+)+" },
    { pattern: "(" },
    { pattern: "board", max_matches: 0 },
    { pattern: "board", max_matches: 101 },
    { pattern: "board", max_matches: "2" },
    { pattern: "board", document: "" },
    { pattern: "board", document: null },
    { pattern: "board", ignore_case: "no" },
    { pattern: "BOARD", ignore_case: false },
    { pattern: "board", document: "nope" },
  ],
  submit_report: [{}, { answer: 3 }, { answer: "x", citations: "no" }],
  add_object: [
    {},
    { name: "" },
    { name: "a", kind: "blob" },
    { name: "a b!", kind: "box" },
    { name: "a", kind: "box", position: [1, 2] },
    { name: "a", kind: "box", color: "nocolour" },
    { name: "a", kind: "box", extra: 1 },
    { name: "a", kind: "box", dimensions: [-1, 1, 1] },
    { name: "a", kind: "asset" },
  ],
  update_object: [{}, { name: "ghost" }, { name: "table", parent: null }, { name: "table", material: { roughness: 2 } }],
  remove_object: [{}, { name: "ghost" }],
  group: [{ name: "g", objects: [] }, { name: "g", objects: ["ghost"] }, { name: "g" }],
  query_scene: [{ name: 1 }, { name: "ghost" }, {}],
  render_view: [{ width: 10 }, { width: 64.5 }, {}],
  run_bpy: [{}, { code: "" }],
};

interface Golden {
  parameters: Record<string, unknown>;
  results: Record<string, unknown[]>;
}

/** A tool call's result as the engine records it, or the message it threw. */
async function outcome(tool: ToolDefinition, args: Record<string, unknown>, ctx: ToolContext): Promise<unknown> {
  try {
    const r = await tool.run(structuredClone(args), ctx);
    const { artifacts, ...rest } = r;
    // The scene snapshot is large and checked elsewhere; which artifacts ride along is what counts here.
    return { ...rest, ...(artifacts ? { artifactKeys: Object.keys(artifacts).sort() } : {}) };
  } catch (e) {
    return { threw: (e as Error).message };
  }
}

function context(env: Environment): ToolContext {
  return {
    env,
    task: env.tasks[0]!,
    sandbox: () => Promise.reject(new Error("no sandbox in this test")),
    state: new Map(),
    signal: new AbortController().signal,
    timeoutMs: 10_000,
  };
}

const dirs: { cleanup: () => void }[] = [];
let cache: string;
const envs = new Map<string, Environment>();
const toolsOf = new Map<string, { tool: ToolDefinition; env: Environment | null }>();

before(async () => {
  cache = mkdtempSync(path.join(tmpdir(), "rlenv-tool-cache-"));
  process.env.RLENV_CACHE_DIR = cache;
  const doc = makeEnvDir({
    "environment.yaml": `name: d\ndomain: document\ntasks: tasks.jsonl\ndocuments: { path: docs }\nreward:\n  - type: fields\n    fields:\n      answer: { comparator: auto }\n`,
    "tasks.jsonl": `${JSON.stringify({ id: "t1", prompt: "q", target: { answer: "1" } })}\n`,
    "docs/notes.md": "# Notes\n\nThe board met on 2022-07-01. Revenue was $5 million.\fSecond page: revenue fell.",
  });
  const scene = makeEnvDir({
    "environment.yaml": "name: s\ndomain: scene3d\ntasks: tasks.jsonl\nreward:\n  - type: scene\n",
    "tasks.jsonl": `${JSON.stringify({ id: "t1", prompt: "p", target: { initial: [{ name: "table", kind: "box" }], checks: [] } })}\n`,
  });
  const blender = makeEnvDir({
    "environment.yaml": "name: b\ndomain: scene3d\nscene:\n  backend: blender\ntasks: tasks.jsonl\nreward:\n  - type: scene\n",
    "tasks.jsonl": `${JSON.stringify({ id: "t1", prompt: "p", target: { checks: [] } })}\n`,
  });
  dirs.push(doc, scene, blender);
  for (const [name, d] of [
    ["document", doc],
    ["scene3d", scene],
    ["blender", blender],
  ] as const) {
    const r = await loadEnvironment(d.dir);
    assert.ok(r.env, JSON.stringify(r.problems));
    envs.set(name, r.env);
  }
  for (const t of CODE_TOOLS) toolsOf.set(t.name, { tool: t, env: null });
  for (const t of documentDomain.tools(envs.get("document")!)) toolsOf.set(t.name, { tool: t, env: envs.get("document")! });
  for (const t of scene3dDomain.tools(envs.get("scene3d")!)) toolsOf.set(`scene3d:${t.name}`, { tool: t, env: envs.get("scene3d")! });
  for (const t of scene3dDomain.tools(envs.get("blender")!))
    if (!toolsOf.has(`scene3d:${t.name}`)) toolsOf.set(`scene3d:${t.name}`, { tool: t, env: envs.get("blender")! });
});

after(() => {
  for (const d of dirs) d.cleanup();
  rmSync(cache, { recursive: true, force: true });
});

async function current(): Promise<Golden> {
  const parameters: Record<string, unknown> = {};
  const results: Record<string, unknown[]> = {};
  for (const [key, { tool, env }] of toolsOf) {
    parameters[key] = tool.parameters;
    const name = key.replace(/^scene3d:/, "");
    const cases = key === "scene3d:submit" ? CASES.submit! : (CASES[name] ?? []);
    const out: unknown[] = [];
    for (const args of cases) out.push(await outcome(tool, args, context(env ?? envs.get("document")!)));
    results[key] = out;
  }
  return { parameters, results };
}

describe("defineTool keeps what the model sees", () => {
  test("every tool of every domain is covered by the cases", () => {
    for (const key of toolsOf.keys()) assert.ok(CASES[key.replace(/^scene3d:/, "")], `no argument cases for ${key}`);
  });

  test("generated JSON Schemas equal the hand-written ones, and bad arguments give the same results", async () => {
    // Through JSON, as the golden file was: a field set to undefined is a field left out.
    const now = JSON.parse(JSON.stringify(await current())) as Golden;
    if (RECORD) {
      writeFileSync(GOLDEN, `${JSON.stringify(now, null, 2)}\n`);
      return;
    }
    assert.ok(existsSync(GOLDEN), `${GOLDEN} is missing`);
    const golden = JSON.parse(readFileSync(GOLDEN, "utf8")) as Golden;
    assert.deepEqual(Object.keys(now.parameters).sort(), Object.keys(golden.parameters).sort());
    for (const key of Object.keys(golden.parameters)) assert.deepEqual(now.parameters[key], golden.parameters[key], `parameters of ${key}`);
    for (const key of Object.keys(golden.results)) {
      const cases = CASES[key.replace(/^scene3d:/, "")] ?? CASES.submit!;
      golden.results[key]!.forEach((want, i) => {
        assert.deepEqual(now.results[key]![i], want, `${key} ${JSON.stringify(cases[i])}`);
      });
    }
  });
});
