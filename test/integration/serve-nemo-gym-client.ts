import type { ChatMessage, Policy, ToolSpec } from "../../src/core/policy/types";

/**
 * A NeMo Gym client written from NeMo Gym's source, for the conformance suite: an HTTP client
 * with a cookie jar (aiohttp's, as NeMo Gym's ServerClient carries `response.cookies` from call
 * to call), and SimpleAgent's loop (responses_api_agents/simple_agent/app.py): `/seed_session`
 * with the row, then model → each function call POSTed to `/{name}` with its parsed arguments
 * (the raw body becomes the `function_call_output`; arguments that are no JSON become an error
 * output, never a request), until the model answers without a function call or max_steps; then
 * `/verify` with the row and the response. The "model" is any rlenv Policy, played client-side
 * (the oracle: its tool calls travel over the protocol like a model's).
 */

export class CookieJar {
  private readonly cookies = new Map<string, string>();
  take(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const pair = line.split(";")[0] ?? "";
      const eq = pair.indexOf("=");
      if (eq > 0) this.cookies.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
    }
  }
  header(): string | undefined {
    return this.cookies.size ? [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ") : undefined;
  }
}

export interface Reply {
  status: number;
  text: string;
  json: Record<string, unknown>;
}

export class NemoGymHttp {
  readonly jar = new CookieJar();
  constructor(
    readonly baseUrl: string,
    private readonly token?: string,
  ) {}

  async post(path: string, body: unknown): Promise<Reply> {
    const cookie = this.jar.header();
    const res = await fetch(`${this.baseUrl}${path}`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        ...(cookie ? { cookie } : {}),
        ...(this.token ? { authorization: `Bearer ${this.token}` } : {}),
      },
      body: typeof body === "string" ? body : JSON.stringify(body),
    });
    this.jar.take(res);
    const text = await res.text();
    let json: Record<string, unknown> = {};
    try {
      json = text ? (JSON.parse(text) as Record<string, unknown>) : {};
    } catch {
      // a non-JSON body stays in `text`
    }
    return { status: res.status, text, json };
  }
}

/** The Responses tools a seed_session answered, as rlenv ToolSpecs. */
const toolSpecs = (tools: Array<{ name: string; description?: string; parameters?: Record<string, unknown> }>): ToolSpec[] =>
  tools.map((t) => ({ name: t.name, description: t.description ?? "", parameters: t.parameters ?? {} }));

/** The prompt items a seed_session answered, as chat messages. */
const promptMessages = (items: Array<{ role: string; content: unknown }>): ChatMessage[] =>
  items.map((i) =>
    i.role === "system"
      ? { role: "system", content: String(i.content) }
      : { role: "user", content: typeof i.content === "string" ? i.content : JSON.stringify(i.content) },
  );

/** Raised by the client-side sandbox: a policy that must touch the sandbox directly cannot be played over the wire. */
export class NoSandboxOverTheWire extends Error {}

export interface AgentRun {
  seed: Reply;
  output: Array<Record<string, unknown>>;
  toolReplies: Reply[];
  verify: Reply;
}

/** SimpleAgent's run, client-side: seed_session → model ↔ tools → verify, cookies carried. */
export async function playSimpleAgent(http: NemoGymHttp, row: Record<string, unknown>, policy: Policy, maxSteps = 50): Promise<AgentRun> {
  const seed = await http.post("/seed_session", row);
  if (seed.status !== 200) throw new Error(`seed_session answered ${seed.status}: ${seed.text}`);
  const rl = seed.json.rlenv as { input: Array<{ role: string; content: unknown }>; tools: Array<{ name: string }> };
  const tools = toolSpecs(rl.tools);
  const messages = promptMessages(rl.input);
  const signal = new AbortController().signal;
  await policy.prepare?.({
    tools,
    signal,
    timeoutMs: 60_000,
    sandbox: () => Promise.reject(new NoSandboxOverTheWire("this policy writes to the sandbox directly: not playable over NeMo Gym")),
  });
  const output: Array<Record<string, unknown>> = [];
  const toolReplies: Reply[] = [];
  for (let step = 1; ; step++) {
    const reply = await policy.next({ messages, tools, turn: step - 1, signal });
    const calls = reply.tool_calls.map((c, i) => ({ ...c, id: c.id || `call_${step}_${i}` }));
    if (reply.content || calls.length === 0)
      output.push({
        type: "message",
        role: "assistant",
        id: `msg_${step}`,
        status: "completed",
        content: [{ type: "output_text", text: reply.content ?? "", annotations: [] }],
      });
    for (const c of calls)
      output.push({ type: "function_call", call_id: c.id, id: c.id, name: c.name, arguments: c.arguments, status: "completed" });
    messages.push({ role: "assistant", content: reply.content, ...(calls.length ? { tool_calls: calls } : {}) });
    if (calls.length === 0) break;
    for (const c of calls) {
      let out: string;
      let parsed: unknown;
      try {
        parsed = JSON.parse(c.arguments);
        const r = await http.post(`/${c.name}`, parsed);
        toolReplies.push(r);
        out = r.text;
      } catch (e) {
        if (!(e instanceof SyntaxError)) throw e;
        out = JSON.stringify({ error: `Invalid tool call arguments: ${e.message}` });
      }
      output.push({ type: "function_call_output", call_id: c.id, output: out });
      messages.push({ role: "tool", tool_call_id: c.id, content: out });
    }
    if (step >= maxSteps) break;
  }
  const response = {
    id: "resp_client",
    created_at: Math.floor(Date.now() / 1000),
    model: "oracle",
    object: "response",
    output,
    parallel_tool_calls: true,
    tool_choice: "auto",
    tools: [],
  };
  const verify = await http.post("/verify", { ...row, response });
  return { seed, output, toolReplies, verify };
}
