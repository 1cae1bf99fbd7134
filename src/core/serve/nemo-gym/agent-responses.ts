import type { IncomingMessage, ServerResponse } from "node:http";
import type { ResponsesItem } from "../../policy/openai-responses";
import { PolicyInfraError, PolicyRequestError, type ChatMessage, type PolicyReply } from "../../policy/types";
import type { ChatToolCall, Usage } from "../../schema/trajectory";
import { policyFor } from "./agent-policy";
import { invalidBody, isObject, NemoHttpError, readJsonBody, sendJson } from "./http-errors";
import { type CreateParams, parseRunRequest } from "./request-bodies";
import { functionCallOutput, modelCallItems, nemoResponse } from "./response-build";
import type { ResourcesServer } from "./resources-server";
import { type PolicyTarget, samplingOf } from "./row-fields";

/**
 * NeMo Gym's agent `POST /v1/responses`: the model ↔ tools loop of SimpleAgent._create_episode on
 * a session a `/seed_session` opened (its cookie sent along), without /verify, which the caller
 * makes next, as SimpleAgent.run does. The model is the server's configured policy (the body's
 * `model` names the model); the conversation is the seeded task's, played through the session,
 * so the episode's trajectory holds every turn. A policy server that fails is a 502 and ends
 * the episode unscored (cancelled), never a reward.
 */
export async function agentResponses(
  resources: ResourcesServer,
  configured: PolicyTarget | undefined,
  signal: AbortSignal,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const body = await readJsonBody(req);
  if (!isObject(body))
    throw invalidBody([{ type: "model_attributes_type", path: [], msg: "Input should be a valid dictionary", input: body }]);
  // The body is a NeMoGymResponseCreateParamsNonStreaming: checked as a row's create params are.
  const params = parseRunRequest({ responses_create_params: body }).responses_create_params;
  const { id, seeded } = resources.session(req);
  if (!configured)
    throw new NemoHttpError(
      400,
      "this server has no policy configured (rlenv serve --policy-url): /v1/responses has no model server to call",
    );
  const policy = policyFor(configured, samplingOf(params, configured));
  const messages: ChatMessage[] = seeded.messages;
  const output: ResponsesItem[] = [];
  const usage: Usage = { prompt_tokens: 0, completion_tokens: 0 };
  let incomplete = false;
  for (let turn = 0; ; turn++) {
    let reply: PolicyReply;
    try {
      reply = await policy.next({ messages, tools: seeded.tools, turn, signal });
    } catch (e) {
      if (e instanceof PolicyInfraError || e instanceof PolicyRequestError) {
        await resources.close(id);
        throw new NemoHttpError(502, `the policy server failed; episode ${seeded.episode_id} ended unscored: ${e.message}`, "infra");
      }
      throw e;
    }
    usage.prompt_tokens += reply.usage?.prompt_tokens ?? 0;
    usage.completion_tokens += reply.usage?.completion_tokens ?? 0;
    incomplete = reply.tokens?.finishReason === "length";
    const calls: ChatToolCall[] = reply.tool_calls.map((c, i) => ({ ...c, id: c.id || `call_${turn}_${i}` }));
    output.push(...modelCallItems(reply.content, calls, reply.tokens));
    messages.push({ role: "assistant", content: reply.content, ...(calls.length > 0 ? { tool_calls: calls } : {}) });
    if (calls.length === 0 || incomplete) break;
    const t0 = performance.now();
    const obs = await seeded.handle.step(
      calls.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments })),
      reply.content,
    );
    resources.countStep(performance.now() - t0);
    for (const r of obs.tool_results) {
      output.push(functionCallOutput(r.tool_call_id, r.content));
      messages.push({ role: "tool", tool_call_id: r.tool_call_id, content: r.content });
    }
    messages.push(...obs.messages);
    if (obs.score) seeded.score = obs.score;
    if (obs.done) break;
  }
  sendJson(
    res,
    200,
    nemoResponse({ params: params as CreateParams, model: policy.model ?? "", output, tools: seeded.tools, usage, incomplete }),
    {
      "set-cookie": resources.cookie.header(id),
    },
  );
}
