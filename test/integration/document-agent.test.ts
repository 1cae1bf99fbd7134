import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { loadEnvironment } from "../../src/core/environment/load-environment";
import { OpenAIPolicy } from "../../src/core/policy/openai";
import { OraclePolicy } from "../../src/core/policy/oracle";
import { runRollout } from "../../src/core/rollout/run-rollout";
import type { SandboxProvider } from "../../src/core/model/sandbox";
import { type RecordedRequest, type ScriptedServer, startScriptedServer } from "../support/scripted-openai-server";

const root = path.join(__dirname, "..", "..");
const noSandbox = {
  backend: "none",
  acquire: () => Promise.reject(new Error("the document domain must not start a sandbox")),
} as unknown as SandboxProvider;
let work: string;

before(() => {
  work = mkdtempSync(path.join(tmpdir(), "rlenv-doc-agent-"));
  process.env.RLENV_CACHE_DIR = path.join(work, "cache");
});
after(() => rmSync(work, { recursive: true, force: true }));

function financebench() {
  const { env } = loadEnvironment(path.join(root, "environments", "document-financebench"));
  assert.ok(env);
  return env;
}

type Event = Record<string, unknown> & {
  type: string;
  name?: string;
  artifacts?: { citations?: Array<{ document: string; page?: number }> };
};

describe("an agent on FinanceBench through the OpenAI-compatible API", () => {
  let server: ScriptedServer;
  after(() => server?.close());

  test("searches, reads the cited page, submits a figure in another form, and scores 1", async () => {
    const env = financebench();
    const task = env.tasks.find((t) => t.id === "fb-08286")!; // Amazon FY2019 net income, $11,588 million
    // The scripted model: search, read the income statement page, submit a malformed report, then a good one
    // (the figure in billions, the document cited without its extension).
    server = await startScriptedServer((_req: RecordedRequest, i: number) => {
      if (i === 0)
        return { reply: { tool_calls: [{ name: "search", arguments: { query: "net income", document: "AMAZON_2019_10K.txt", k: 3 } }] } };
      if (i === 1) return { reply: { tool_calls: [{ name: "read", arguments: { document: "AMAZON_2019_10K.txt", page: 38 } }] } };
      if (i === 2) return { reply: { tool_calls: [{ name: "submit_report", arguments: { answer: 17 } }] } };
      return {
        reply: {
          tool_calls: [
            { name: "submit_report", arguments: { answer: "$11.588 billion", citations: [{ document: "AMAZON_2019_10K", page: 38 }] } },
          ],
        },
      };
    });
    const file = path.join(work, "agent.jsonl");
    const r = await runRollout({
      env,
      task,
      policy: new OpenAIPolicy({ baseURL: server.baseURL, model: "scripted" }),
      sandboxProvider: noSandbox,
      file,
      runId: "agent",
      rolloutId: "a1",
    });
    const events = readFileSync(file, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Event);
    assert.equal(r.reward, 1, JSON.stringify(events.filter((e) => e.type === "reward")));
    const observations = events.filter((e) => e.type === "observation");
    assert.deepEqual(
      observations.map((o) => o.name),
      ["search", "read", "submit_report", "submit_report"],
    );
    // Search and read record where they looked; the first, malformed report is refused and the agent resubmits.
    assert.ok((observations[0]!.artifacts?.citations ?? []).every((c) => c.document === "AMAZON_2019_10K.txt"));
    assert.deepEqual(observations[1]!.artifacts?.citations?.[0]?.page, 38);
    assert.match(String(observations[2]!.error), /does not match the schema/);
    // The search result shown to the model names pages and spans.
    const shown = server.requests[1]!.messages.find((m) => m.role === "tool");
    assert.match(String(shown?.content), /AMAZON_2019_10K\.txt p\.\d+ chars \d+-\d+/);
  });
});

describe("the judge for free-text FinanceBench answers", () => {
  let judge: ScriptedServer;
  const saved = { ...process.env };
  after(async () => {
    await judge?.close();
    process.env = saved;
  });

  test("grades with the task's rubric through an OpenAI-compatible endpoint, recording the judge's reasons", async () => {
    judge = await startScriptedServer([
      {
        reply: {
          content: JSON.stringify({
            items: [
              { index: 1, passed: true, reason: "same conclusion" },
              { index: 2, passed: true, reason: "36.8% and 34.6% match" },
            ],
          }),
        },
      },
    ]);
    process.env.RLENV_JUDGE_BASE_URL = judge.baseURL;
    process.env.RLENV_JUDGE_MODEL = "judge-model";
    const env = financebench();
    const task = env.tasks.find((t) => t.id === "fb-00438")!; // Adobe operating margin: free text
    const file = path.join(work, "judge.jsonl");
    const r = await runRollout({
      env,
      task,
      policy: new OraclePolicy(task.solution),
      sandboxProvider: noSandbox,
      file,
      runId: "judge",
      rolloutId: "j1",
    });
    assert.equal(r.reward, 1);
    const prompt = JSON.stringify(judge.requests[0]!.messages);
    assert.match(prompt, /reaches the same conclusion as the reference answer: No the operating margins of Adobe/);
    const reward = readFileSync(file, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Event)
      .find((e) => e.type === "reward") as unknown as {
      components: Array<{ details: { fields: Array<{ reason: string; details: { comparator: string } }> } }>;
    };
    const field = reward.components[0]!.details.fields[0]!;
    assert.equal(field.details.comparator, "judge");
    assert.match(field.reason, /36\.8% and 34\.6% match/);
  });
});
