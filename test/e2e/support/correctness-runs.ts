import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";

const T0 = 1_700_000_000_000;
const start = (id: string, domain: string) => ({
  type: "start",
  seq: 0,
  t: T0,
  run_id: "correctness",
  rollout_id: id,
  env: { name: "correctness-env", hash: "h", domain },
  task: { id, prompt: "Report ACME's revenue and net income, citing the pages." },
  policy: { kind: "openai", model: "m" },
  sample: 0,
  sandbox: { backend: "process" },
});
const end = (seq: number, reward: number) => ({
  type: "end",
  seq,
  t: T0 + 100_000,
  status: "completed",
  reward,
  turns: 3,
  usage: { prompt_tokens: 10, completion_tokens: 5 },
  timings: { total_ms: 1000, policy_ms: 500, sandbox_ms: 400, verify_ms: 100 },
});
const write = (file: string, events: unknown[]) => writeFileSync(file, `${events.map((e) => JSON.stringify(e)).join("\n")}\n`);

function runDir(dir: string, name: string): string {
  const run = path.join(dir, name);
  mkdirSync(path.join(run, "rollouts"), { recursive: true });
  writeFileSync(path.join(run, "run.json"), "{}");
  return run;
}

export const PAGE3 = "ACME Corp. Total revenue for fiscal 2024 was $4,210 million.";
export const NOT_READ = "Net income was $455 million.";
/** A file name whose right-to-left override would show it as "report.exe" reversed into "exe.txt". */
export const BIDI_NAME = "report\u202Etxt.exe";

/**
 * A document rollout that reads page 3, then searches without naming a document (its
 * snippets hold both pages' words and a file name with a right-to-left override), then
 * cites page 3 and page 9, which it never read; the report is graded field by field.
 */
export function writeSearchCiteRun(dir: string): string {
  const run = runDir(dir, "search-cite");
  const report = {
    revenue: "$4,210 million",
    net_income: "$455 million",
    citations: [
      { document: "acme.pdf", page: 3 },
      { document: "acme.pdf", page: 9 },
    ],
  };
  const searchOut = `[1] acme.pdf p.3 chars 11-60 (score 3.10)\n${PAGE3}\n\n[2] acme.pdf p.9 chars 0-28 (score 2.00)\n${NOT_READ} See ${BIDI_NAME}`;
  const events = [
    start("acme-q", "document"),
    { type: "message", seq: 1, t: T0 + 1, role: "user", content: "Report ACME's revenue and net income." },
    { type: "message", seq: 2, t: T0 + 2, role: "assistant", content: "Reading page 3.", latency_ms: 5, turn: 0 },
    { type: "tool_call", seq: 3, t: T0 + 3, id: "c1", name: "read", arguments: { document: "acme.pdf", page: 3 }, turn: 0 },
    {
      type: "observation",
      seq: 4,
      t: T0 + 4,
      tool_call_id: "c1",
      name: "read",
      output: `acme.pdf p.3 of 9 (chars 0-${PAGE3.length} of ${PAGE3.length})\n${PAGE3}`,
      status: "ok",
      duration_ms: 2,
      turn: 0,
    },
    { type: "message", seq: 5, t: T0 + 5, role: "assistant", content: "Searching everything.", latency_ms: 5, turn: 1 },
    { type: "tool_call", seq: 6, t: T0 + 6, id: "c2", name: "search", arguments: { query: "net income revenue" }, turn: 1 },
    {
      type: "observation",
      seq: 7,
      t: T0 + 7,
      tool_call_id: "c2",
      name: "search",
      output: searchOut,
      status: "ok",
      duration_ms: 2,
      turn: 1,
    },
    { type: "message", seq: 8, t: T0 + 8, role: "assistant", content: "Submitting.", latency_ms: 5, turn: 2 },
    { type: "tool_call", seq: 9, t: T0 + 9, id: "c3", name: "submit_report", arguments: report, turn: 2 },
    {
      type: "observation",
      seq: 10,
      t: T0 + 10,
      tool_call_id: "c3",
      name: "submit_report",
      output: "report received",
      status: "ok",
      duration_ms: 1,
      turn: 2,
      artifacts: {
        citations: [
          { document: "acme.pdf", page: 3, start: 0, end: PAGE3.length, text: "$4,210 million" },
          { document: "acme.pdf", page: 9, start: 0, end: NOT_READ.length, text: NOT_READ },
        ],
      },
    },
    {
      type: "reward",
      seq: 11,
      t: T0 + 11,
      total: 0.5,
      components: [
        {
          name: "report-fields",
          type: "fields",
          weight: 1,
          score: 0.5,
          reason: "1/2 fields correct",
          details: {
            fields: [
              { field: "revenue", comparator: "money", score: 1, passed: true, reason: "same amount", expected: "$4.21 billion" },
              {
                field: "net_income",
                comparator: "money",
                score: 0,
                passed: false,
                reason: "off by 2.1%: a long explanation of why the amounts differ that should wrap as text, not a word per line",
                expected: "$464.7 million attributable to shareholders of the parent company",
              },
            ],
          },
        },
      ],
    },
    end(12, 0.5),
  ];
  const file = path.join(run, "rollouts", "acme-q.s0.jsonl");
  write(file, events);
  return file;
}

/** A rollout whose second line (the system message) is 600 KB, past the viewer's first read, ending in a marker. */
export function writeBigSecondLine(dir: string): string {
  const run = runDir(dir, "big-second");
  const system = `${"Policy text. ".repeat(46_000)}END-OF-SYSTEM-MESSAGE`;
  const file = path.join(run, "rollouts", "big.s0.jsonl");
  write(file, [
    start("big", "code"),
    { type: "message", seq: 1, t: T0 + 1, role: "system", content: system },
    { type: "message", seq: 2, t: T0 + 2, role: "assistant", content: "ok", latency_ms: 1, turn: 0 },
    end(3, 1),
  ]);
  return file;
}

/** A rollout still being written (no end event): the viewer follows it live. */
export function writeLiveRollout(dir: string): string {
  const run = runDir(dir, "live");
  const file = path.join(run, "rollouts", "live.s0.jsonl");
  write(file, [
    start("live", "code"),
    { type: "message", seq: 1, t: T0 + 1, role: "assistant", content: "working", latency_ms: 1, turn: 0 },
  ]);
  return file;
}
