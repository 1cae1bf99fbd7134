import assert from "node:assert/strict";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";
import { createPolicy, policyFactoryWith } from "../../src/core/app/create-policy";
import type { LoadedTask } from "../../src/core/model/environment";
import type { PolicyRequest } from "../../src/core/policy/types";
import { startScriptedServer } from "../support/scripted-openai-server";

const task = { id: "t", prompt: "p" } as unknown as LoadedTask;
const request = (): PolicyRequest => ({
  messages: [{ role: "user", content: "hi" }],
  tools: [],
  turn: 0,
  signal: new AbortController().signal,
});

// A loopback server that answers one fixed completion and keeps the headers it was sent.
const seen: IncomingHttpHeaders[] = [];
const server = createServer((req, res) => {
  seen.push(req.headers);
  req.resume();
  req.on("end", () => {
    res.writeHead(200, { "content-type": "application/json" }).end(
      JSON.stringify({
        id: "c",
        object: "chat.completion",
        created: 0,
        model: "m",
        choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: "ok" } }],
        usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
      }),
    );
  });
});
let baseUrl = "";
before(async () => {
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
after(() => new Promise<void>((r) => server.close(() => r())));

test("the editor's key (SecretStorage) reaches the server; without one the environment's does", async () => {
  const withKey = createPolicy({ config: { kind: "openai", model: "m", base_url: baseUrl }, task, sample: 0, apiKey: "from-secret" });
  await withKey.next(request());
  assert.equal(seen.at(-1)?.authorization, "Bearer from-secret");
  const saved = process.env.RLENV_API_KEY;
  process.env.RLENV_API_KEY = "from-env";
  try {
    await createPolicy({ config: { kind: "openai", model: "m", base_url: baseUrl }, task, sample: 0 }).next(request());
    assert.equal(seen.at(-1)?.authorization, "Bearer from-env");
  } finally {
    if (saved === undefined) delete process.env.RLENV_API_KEY;
    else process.env.RLENV_API_KEY = saved;
  }
});

test("a run's factory with the key keeps the config's stream and seed (the editor's own copy dropped stream)", async () => {
  const s = await startScriptedServer([{ reply: { content: "streamed" } }]);
  try {
    const factory = policyFactoryWith({ apiKey: "k" });
    assert.ok(factory);
    const config = { policy: { kind: "openai" as const, model: "m", base_url: s.baseURL, stream: true, seed: 10, timeout_ms: 5000 } };
    const policy = factory({ env: {} as never, task, sample: 2, config: config as never });
    const reply = await policy.next(request());
    assert.equal(reply.content, "streamed");
    assert.equal(s.requests[0]?.stream, true);
    assert.equal(s.requests[0]?.seed, 12);
  } finally {
    await s.close();
  }
  assert.equal(policyFactoryWith({}), undefined);
});
