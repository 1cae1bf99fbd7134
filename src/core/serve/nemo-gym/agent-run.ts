import { servedRollout } from "../served-rollout";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { ResponsesItem } from "../../policy/openai-responses";
import { runRollout } from "../../rollout/run-rollout";
import type { TrajectoryEvent } from "../../schema/trajectory";
import type { LoadedTask } from "../../model/environment";
import type { ServeContext, ServedEnvironment } from "../serve-context";
import { ServeError } from "../session-types";
import { policyFor, RecordingPolicy } from "./agent-policy";
import { NemoHttpError, readJsonBody, sendJson } from "./http-errors";
import { parseRunRequest } from "./request-bodies";
import { functionCallOutput, modelCallItems, nemoResponse, rewardComponents } from "./response-build";
import { type PolicyTarget, policyTargetOfRow, resetOfRow, samplingOf } from "./row-fields";
import { PROTOCOL } from "./resources-server";

/**
 * NeMo Gym's agent server `POST /run` on one dataset row: the whole rollout, seed → model ↔
 * tools → verify, as SimpleAgent plays it, but on the engine itself: runRollout with the
 * row's policy (chat completions or the Responses API) writes the trajectory and scores it, so
 * a /run scores what `rlenv run` scores. The answer is SimpleAgent's: the row, the `response`
 * (output items with each model call's tokens), `reward` and `reward_components`. A policy
 * server or sandbox that failed is an error status (and an infra error in the trajectory).
 */
export class AgentRun {
  /** /run rollouts in flight: they hold sandboxes, so they count against --max-sessions with the sessions. */
  private inFlight = 0;

  constructor(
    private readonly ctx: ServeContext,
    private readonly configured: PolicyTarget | undefined,
  ) {}

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const row = parseRunRequest(await readJsonBody(req));
    const target = policyTargetOfRow(row, this.configured);
    const sampling = samplingOf(row.responses_create_params, target);
    const reset = resetOfRow(row);
    const served = this.ctx.environments.get(reset.environment);
    const task = this.ctx.environments.pickTask(served, reset.task_id, reset.seed);
    const { active, max } = this.ctx.sessions;
    if (active + this.inFlight >= max)
      throw new NemoHttpError(
        503,
        `no room for another episode: --max-sessions reached (${active + this.inFlight} of ${max} sessions open)`,
        "capacity",
      );
    const policy = new RecordingPolicy(policyFor(target, sampling));
    const { result, events, rolloutId, file } = await this.roll(served, task, policy, sampling.seed, res);
    if (this.ctx.signal.aborted) throw new ServeError("closed", `the server shut down during rollout ${rolloutId} (trajectory ${file})`);
    if (result.infra)
      throw new NemoHttpError(
        502,
        `rollout ${rolloutId} failed on the infrastructure, not scored: ${result.reason ?? result.status} (trajectory ${file})`,
        "infra",
      );
    if (result.reward === null)
      throw new NemoHttpError(
        500,
        `rollout ${rolloutId} was not scored (${result.status}): ${result.reason ?? "no reason given"} (trajectory ${file})`,
      );
    const lastTokens = policy.replies.get(result.turns - 1)?.tokens;
    const response = nemoResponse({
      params: row.responses_create_params,
      model: sampling.model,
      output: outputOf(events, policy),
      tools: served.tools,
      usage: result.usage,
      incomplete: lastTokens?.finishReason === "length",
    });
    sendJson(res, 200, {
      ...row,
      response,
      reward: result.reward,
      reward_components: rewardComponents(result.components ?? []),
      rlenv: {
        rollout_id: rolloutId,
        environment: served.name,
        task_id: task.id,
        status: result.status,
        ...(result.reason ? { reason: result.reason } : {}),
        turns: result.turns,
        trajectory: file,
        reward_hash: served.rewardHash,
      },
    });
  }

  /** The rollout itself, on the engine: stopped by the client going away or the server's shutdown. */
  private async roll(served: ServedEnvironment, task: LoadedTask, policy: RecordingPolicy, seed: number | undefined, res: ServerResponse) {
    // A client that goes away stops its rollout (cancelled in the trajectory); so does the server's shutdown.
    const abort = new AbortController();
    const stop = () => abort.abort(new Error("the server is shutting down"));
    this.ctx.signal.addEventListener("abort", stop, { once: true });
    res.on("close", () => {
      if (!res.writableEnded) abort.abort(new Error("the client closed the /run request"));
    });
    const events: TrajectoryEvent[] = [];
    const options = servedRollout(served, task, {
      policy,
      ...(seed !== undefined ? { seed } : {}),
      signal: abort.signal,
      hooks: {
        onEvent: (e) => {
          events.push(e);
          if (e.type === "observation") this.ctx.metrics.step(PROTOCOL, e.duration_ms);
        },
      },
    });
    this.inFlight++;
    try {
      const result = await runRollout(options);
      return { result, events, rolloutId: options.rolloutId, file: options.file };
    } finally {
      this.inFlight--;
      this.ctx.signal.removeEventListener("abort", stop);
    }
  }
}

/** The rollout's output items, in the order the engine wrote them: each model call's items, then its tool results. */
export function outputOf(events: readonly TrajectoryEvent[], policy: RecordingPolicy): ResponsesItem[] {
  const out: ResponsesItem[] = [];
  for (const e of events) {
    if (e.type === "message" && e.role === "assistant") {
      const content =
        typeof e.content === "string" || e.content === null ? e.content : e.content.map((p) => (p.type === "text" ? p.text : "")).join("");
      out.push(...modelCallItems(content, e.tool_calls ?? [], e.turn !== undefined ? policy.replies.get(e.turn)?.tokens : undefined));
    } else if (e.type === "observation") out.push(functionCallOutput(e.tool_call_id, e.output));
  }
  return out;
}

export { PROTOCOL };
