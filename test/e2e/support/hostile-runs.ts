import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import zlib from "node:zlib";

/** JSON as Python's json.dumps writes it by default: a space after every comma and colon. */
export function pythonDumps(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(pythonDumps).join(", ")}]`;
  if (v && typeof v === "object")
    return `{${Object.entries(v)
      .map(([k, x]) => `${JSON.stringify(k)}: ${pythonDumps(x)}`)
      .join(", ")}}`;
  return JSON.stringify(v);
}

/** A real 8×8 PNG (a red square), for the image that must be shown. */
export function tinyPng(): string {
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(zlib.crc32(body) >>> 0);
    return Buffer.concat([len, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(8, 0);
  ihdr.writeUInt32BE(8, 4);
  ihdr[8] = 8;
  ihdr[9] = 2;
  const raw = Buffer.alloc((8 * 3 + 1) * 8);
  for (let y = 0; y < 8; y++) for (let x = 0; x < 8; x++) raw[y * 25 + 1 + x * 3] = 255;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    chunk("IDAT", zlib.deflateSync(raw)),
    chunk("IEND", Buffer.alloc(0)),
  ]).toString("base64");
}

const start = (id: string, domain: string, prompt: string) => ({
  type: "start",
  seq: 0,
  t: 1_700_000_000_000,
  run_id: "hostile",
  rollout_id: id,
  env: { name: "hostile-env", hash: "h", domain },
  task: { id, prompt },
  policy: { kind: "openai", model: "m" },
  sample: 0,
  sandbox: { backend: "docker" },
});
const end = (seq: number, reward: number) => ({
  type: "end",
  seq,
  t: 1_700_000_100_000,
  status: "completed",
  reward,
  turns: 2,
  usage: { prompt_tokens: 10, completion_tokens: 5 },
  timings: { total_ms: 1000, policy_ms: 500, sandbox_ms: 400, verify_ms: 100 },
});

/**
 * A run folder of hostile trajectories: Python names in Markdown, images that are not
 * what they say, file names with bidirectional controls, a report whose fields are named
 * like object properties or are missing, written with a BOM, spaced JSON and no final newline.
 */
export function writeHostileRun(dir: string): { run: string; file: string } {
  const run = path.join(dir, "hostile-run");
  mkdirSync(path.join(run, "rollouts"), { recursive: true });
  writeFileSync(path.join(run, "run.json"), "{}");
  const png = tinyPng();
  const report = JSON.parse(
    '{"valueOf": "$12 million", "constructor": null, "__proto__": {"polluted": true}, "toString": "x", "revenue": "$4,210 million", "citations": [{"document": "acme.pdf", "page": 3}]}',
  ) as unknown;
  const page = "ACME Corp. Total revenue for fiscal 2024 was $4,210 million. Net income was $455 million.";
  const events: unknown[] = [
    start("hostile-task", "document", "Fix self.__dict__, obj.__init__ and foo.__name__ == '__main__'; keep snake_case_names."),
    {
      type: "message",
      seq: 1,
      t: 1_700_000_000_010,
      role: "user",
      content: [
        { type: "text", text: "Here are the pictures:" },
        { type: "image_url", image_url: { url: `data:image/png;base64,${png}` } },
        { type: "image_url", image_url: { url: "data:image/png;base64,<script>alert(1)</script>" } },
        { type: "image_url", image_url: { url: "data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+" } },
      ],
    },
    {
      type: "message",
      seq: 2,
      t: 1_700_000_000_020,
      role: "assistant",
      content: "Looking at `__init__` and self.__dict__ now.",
      tool_calls: [{ id: "c1", name: "read", arguments: '{"document":"acme.pdf","page":3}' }],
      latency_ms: 10,
      turn: 0,
    },
    { type: "tool_call", seq: 3, t: 1_700_000_000_030, id: "c1", name: "read", arguments: { document: "acme.pdf", page: 3 }, turn: 0 },
    {
      type: "observation",
      seq: 4,
      t: 1_700_000_000_040,
      tool_call_id: "c1",
      name: "read",
      output: `acme.pdf p.3 of 9 (chars 0-${page.length} of ${page.length})\n${page}`,
      status: "ok",
      duration_ms: 3,
      turn: 0,
      artifacts: {
        images: [
          { mime: "image/png", data: "bm90IGFuIGltYWdl" },
          { mime: "image/png", data: png },
        ],
        diff: [{ path: "P\u202Egnp.701", status: "added", before: null, after: "x" }],
      },
    },
    {
      type: "message",
      seq: 5,
      t: 1_700_000_000_050,
      role: "assistant",
      content: "Submitting.",
      tool_calls: [{ id: "c2", name: "submit_report", arguments: JSON.stringify(report) }],
      latency_ms: 10,
      turn: 1,
    },
    { type: "tool_call", seq: 6, t: 1_700_000_000_060, id: "c2", name: "submit_report", arguments: report, turn: 1 },
    {
      type: "observation",
      seq: 7,
      t: 1_700_000_000_070,
      tool_call_id: "c2",
      name: "submit_report",
      output: "report received",
      status: "ok",
      duration_ms: 1,
      turn: 1,
      artifacts: { citations: [{ document: "acme.pdf", page: 3, start: 0, end: page.length }] },
    },
    {
      type: "reward",
      seq: 8,
      t: 1_700_000_000_080,
      total: 0.25,
      components: [
        {
          name: "fields",
          type: "fields",
          weight: 1,
          score: 0.25,
          details: JSON.parse(
            '{"fields": [{"field": "valueOf", "passed": false, "expected": "$455 million"}, {"field": "constructor", "passed": false}, {"field": "__proto__", "passed": true}, {"field": "hasOwnProperty", "passed": false}, {"field": "revenue", "passed": true, "expected": "$4,210 million"}]}',
          ),
        },
      ],
    },
    end(9, 0.25),
  ];
  const file = path.join(run, "rollouts", "hostile.jsonl");
  // A BOM first, Python's spacing, and no newline after the last line.
  writeFileSync(file, `\ufeff${events.map(pythonDumps).join("\n")}`);
  return { run, file };
}

/**
 * A 200,000-event rollout: one step of 50,001 events (an assistant message and 50,000
 * observations), then 50,000 ordinary turns. And a 66,668-turn rollout to compare it with.
 */
export function writeHugeRun(dir: string): { run: string; big: string; other: string } {
  const run = path.join(dir, "huge-run");
  mkdirSync(path.join(run, "rollouts"), { recursive: true });
  writeFileSync(path.join(run, "run.json"), "{}");
  const write = (name: string, turns: number, bigStep: number) => {
    const lines: string[] = [JSON.stringify(start(name, "code", "A huge task."))];
    let seq = 1;
    let t = 1_700_000_000_000;
    const tick = () => {
      t += 1;
      return t;
    };
    lines.push(
      JSON.stringify({ type: "message", seq: seq++, t: tick(), role: "assistant", content: "Calling many tools.", latency_ms: 5, turn: 0 }),
    );
    for (let i = 0; i < bigStep; i++)
      lines.push(
        JSON.stringify({
          type: "observation",
          seq: seq++,
          t: tick(),
          tool_call_id: `c${i}`,
          name: "poll",
          output: `poll ${i}`,
          status: "ok",
          duration_ms: 1,
        }),
      );
    for (let n = 1; n <= turns; n++) {
      lines.push(
        JSON.stringify({ type: "message", seq: seq++, t: tick(), role: "assistant", content: `Turn ${n}`, latency_ms: 5, turn: n }),
      );
      lines.push(
        JSON.stringify({ type: "tool_call", seq: seq++, t: tick(), id: `t${n}`, name: n % 2 ? "run" : "read", arguments: { n }, turn: n }),
      );
      lines.push(
        JSON.stringify({
          type: "observation",
          seq: seq++,
          t: tick(),
          tool_call_id: `t${n}`,
          name: n % 2 ? "run" : "read",
          output: `ok ${n}`,
          status: "ok",
          duration_ms: 1,
          turn: n,
        }),
      );
    }
    lines.push(JSON.stringify(end(seq, 1)));
    const file = path.join(run, "rollouts", `${name}.jsonl`);
    writeFileSync(file, `${lines.join("\n")}\n`);
    return { file, events: lines.length };
  };
  const big = write("big", 50_000, 50_000);
  const other = write("other", 66_665, 0);
  if (big.events < 200_000) throw new Error(`big rollout has ${big.events} events`);
  return { run, big: big.file, other: other.file };
}
