import type { IncomingMessage, ServerResponse } from "node:http";
import type { ChatMessage, ToolSpec } from "../../policy/types";
import type { ServeContext } from "../serve-context";
import type { ServedScore, SessionHandle } from "../session-types";
import { aggregateMetrics } from "./aggregate-metrics";
import { invalidBody, NemoHttpError, readJsonBody, requireObjectBody, sendJson } from "./http-errors";
import { parseAggregateRequest, parseVerifyRequest } from "./request-bodies";
import { finalText, promptItems, rewardComponents } from "./response-build";
import { resetOfRow } from "./row-fields";
import type { SessionCookie } from "./session-cookie";
import { toResponsesTools } from "../../policy/openai-responses";

/**
 * NeMo Gym's resources server over served sessions. `/seed_session` opens a session (or takes
 * the one the cookie names) and resets its episode on the row's task; the cookie then names it
 * on every tool call and on `/verify`, which ends the turn loop with the agent's final word,
 * scores the episode (the engine's own scoring) and closes the session. A session ended by
 * the machinery (sandbox lost, judge down) answers /verify with an error status, never a reward.
 */

/** What the agent server's /v1/responses needs of a seeded session: the conversation so far. */
export interface SeededSession {
  handle: SessionHandle;
  environment: string;
  task_id: string;
  episode_id: string;
  messages: ChatMessage[];
  tools: readonly ToolSpec[];
  trajectory: string;
  /** Set once a step ended the episode: its score. */
  score?: ServedScore;
}

export const PROTOCOL = "nemo-gym";

export class ResourcesServer {
  /** Seeded sessions by session id (the cookie's). */
  readonly seeded = new Map<string, SeededSession>();

  constructor(
    private readonly ctx: ServeContext,
    readonly cookie: SessionCookie,
  ) {}

  /** The seeded session a request's cookie names; 400 as NeMo Gym's servers answer a call before seeding. */
  session(req: IncomingMessage): { id: string; seeded: SeededSession } {
    const id = this.cookie.read(req);
    const seeded = id !== undefined ? this.seeded.get(id) : undefined;
    if (id === undefined || !seeded || !this.ctx.sessions.get(id)) {
      if (id !== undefined) this.seeded.delete(id);
      throw new NemoHttpError(400, "Session not initialized. Call /seed_session first (and send its session cookie).", "no_episode");
    }
    this.ctx.sessions.touch(id);
    return { id, seeded };
  }

  async seedSession(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = requireObjectBody(await readJsonBody(req, true));
    for (const [k, kind] of [
      ["environment", "string"],
      ["task_id", "string"],
      ["seed", "number"],
    ] as const)
      if (body[k] !== undefined && body[k] !== null && typeof body[k] !== kind)
        throw invalidBody([
          {
            type: kind === "string" ? "string_type" : "int_type",
            path: [k],
            msg: `Input should be a valid ${kind === "string" ? "string" : "integer"}`,
            input: body[k],
          },
        ]);
    // Sessions the idle reaper (or a shutdown) closed since: their records go too.
    for (const id of this.seeded.keys()) if (!this.ctx.sessions.get(id)) this.seeded.delete(id);
    const known = this.cookie.read(req);
    let handle = known !== undefined ? this.ctx.sessions.get(known) : undefined;
    handle ??= this.ctx.sessions.open({ protocol: PROTOCOL });
    let obs: Awaited<ReturnType<SessionHandle["reset"]>>;
    try {
      obs = await handle.reset(resetOfRow(body));
    } catch (e) {
      // A session this request opened and could not seed is of no use to anyone: its capacity goes back.
      if (handle.id !== known) await this.close(handle.id);
      throw e;
    }
    this.seeded.set(handle.id, {
      handle,
      environment: obs.environment,
      task_id: obs.task_id,
      episode_id: obs.episode_id,
      messages: [...obs.messages],
      tools: obs.tools,
      trajectory: obs.trajectory,
    });
    // BaseSeedSessionResponse is empty; what rlenv adds sits under one key a NeMo Gym agent ignores.
    sendJson(
      res,
      200,
      {
        rlenv: {
          episode_id: obs.episode_id,
          environment: obs.environment,
          task_id: obs.task_id,
          input: promptItems(obs.messages),
          tools: toResponsesTools(obs.tools),
          max_turns: obs.max_turns,
          trajectory: obs.trajectory,
        },
      },
      { "set-cookie": this.cookie.header(handle.id) },
    );
  }

  /** POST /{tool}: the body is the tool's arguments; the answer is a JSON object, as NeMo Gym's tool endpoints answer. */
  async tool(name: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readJsonBody(req, true);
    const { id, seeded } = this.session(req);
    const body = requireObjectBody(raw);
    const t0 = performance.now();
    const obs = await seeded.handle.step([{ name, arguments: body }]);
    this.countStep(performance.now() - t0);
    const result = obs.tool_results[0];
    if (!result) throw new NemoHttpError(500, `the episode answered the call to ${name} with no tool result`);
    seeded.messages.push(...obs.messages);
    if (obs.score) seeded.score = obs.score;
    sendJson(res, 200, { output: result.content, is_error: result.is_error, done: obs.done }, { "set-cookie": this.cookie.header(id) });
  }

  async verify(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = parseVerifyRequest(await readJsonBody(req));
    const { id, seeded } = this.session(req);
    let score: ServedScore | undefined;
    try {
      // An episode a tool call ended (a submit, the turn limit) was scored then: /verify reads that score.
      const obs = seeded.score ? { ...seeded, score: seeded.score } : await seeded.handle.finish(finalText(body.response.output));
      score = obs.score;
      if (!score) throw new NemoHttpError(500, `episode ${obs.episode_id} ended without a score (trajectory ${obs.trajectory})`);
      if (score.infra)
        throw new NemoHttpError(
          502,
          `episode ${obs.episode_id} failed on the infrastructure, not scored: ${score.reason ?? score.status} (trajectory ${obs.trajectory})`,
          "infra",
        );
      if (score.reward === null)
        throw new NemoHttpError(
          500,
          `episode ${obs.episode_id} was not scored (${score.status}): ${score.reason ?? "no reason given"} (trajectory ${obs.trajectory})`,
        );
      sendJson(
        res,
        200,
        {
          ...body,
          reward: score.reward,
          reward_components: rewardComponents(score.components),
          rlenv: {
            episode_id: obs.episode_id,
            environment: obs.environment,
            task_id: obs.task_id,
            status: score.status,
            ...(score.reason ? { reason: score.reason } : {}),
            trajectory: obs.trajectory,
          },
        },
        { "set-cookie": this.cookie.header(id) },
      );
    } finally {
      // The episode is over either way: its sandbox goes back now, not at the idle timeout.
      await this.close(id);
    }
  }

  async aggregate(req: IncomingMessage, res: ServerResponse): Promise<void> {
    sendJson(res, 200, aggregateMetrics(parseAggregateRequest(await readJsonBody(req))));
  }

  /** One step for /metrics (its round trip). */
  countStep(ms: number): void {
    this.ctx.metrics.step(PROTOCOL, ms);
  }

  /** Closes a session (the registry counts it) and forgets it. */
  async close(id: string): Promise<void> {
    this.seeded.delete(id);
    if (this.ctx.sessions.get(id)) await this.ctx.sessions.close(id);
  }
}
