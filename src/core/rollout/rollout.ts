import type { Episode } from "./episode";
import { StagedEpisode } from "./staged-episode";
import type { Preparer, RolloutMeter, RunRolloutOptions } from "./rollout-types";

const directPolicy: RolloutMeter = { policyCall: (fn) => fn() };

/**
 * The policy loop over one Episode: the episode reset with the policy's preparation, then
 * turns (one policy reply, then each tool call it makes, played by the episode) until one ends
 * it, max_turns or a throw; a multi-stage task's stages are played in turn (playStages). The
 * scoring and the close are the episode's own (runRollout calls them). A failure on the way
 * is recorded by the episode, never thrown.
 */
export class Rollout {
  private readonly meter: RolloutMeter;
  private readonly prepare: Preparer | undefined;

  constructor(
    private readonly o: RunRolloutOptions,
    private readonly episode: Episode,
  ) {
    this.meter = o.meter ?? directPolicy;
    const policy = o.policy;
    this.prepare = policy.prepare ? (ctx) => policy.prepare?.(ctx) ?? Promise.resolve() : undefined;
  }

  /** Resets and plays turns until one ends the episode; a failure on the way is recorded, never thrown. */
  async play(): Promise<void> {
    const { episode } = this;
    try {
      await episode.reset(this.prepare);
      const maxTurns = episode.maxTurns;
      if (episode instanceof StagedEpisode) {
        await this.playStages(episode, maxTurns);
        return;
      }
      let ended = false;
      for (let turn = this.o.resume?.turn ?? 0; turn < maxTurns && !ended; turn++) ended = await this.turn(turn);
      if (!ended) episode.finish("truncated", `max_turns (${maxTurns}) reached without submit`);
    } catch (caught) {
      await episode.fail(caught);
    }
  }

  /**
   * A multi-stage task (see StagedEpisode): each stage begun, its turns until the agent ends it
   * (max turns count over all stages), then ended by its own verifier and gate. A stage's own
   * agent timeout ends its turns only: its tests still run, and the next stage may follow.
   */
  private async playStages(staged: StagedEpisode, maxTurns: number): Promise<void> {
    let turn = 0;
    for (let index = 0; index < staged.stages.list.length; index++) {
      if (!(await staged.beginStage(index, this.prepare))) return;
      let ended = false;
      try {
        while (turn < maxTurns && !ended) ended = await this.turn(turn++);
        if (!ended) staged.finish("truncated", `max_turns (${maxTurns}) reached without submit in step ${staged.current?.name}`);
      } catch (e) {
        if (!staged.timedOut()) throw e;
        ended = true;
      } finally {
        staged.stopClock();
      }
      if (!(await staged.endStage(ended, turn < maxTurns))) return;
    }
  }

  /** One policy reply and the tool calls it makes; true when the episode is over (submitted, or no tool call). */
  async turn(turn: number): Promise<boolean> {
    const { o, episode } = this;
    const messages = episode.messages;
    await o.hooks?.beforePolicyCall?.({ turn, messages, sandbox: episode.scope.sandbox });
    const signal = episode.signal;
    signal.throwIfAborted();
    const p0 = performance.now();
    const reply = await this.meter.policyCall(() => o.policy.next({ messages, tools: episode.tools, turn, signal }), signal);
    const { calls, done } = episode.assistant(reply, turn, performance.now() - p0);
    if (done) return true;
    let submitted = false;
    for (const call of calls) submitted = (await episode.step(call, turn)).done;
    return submitted;
  }
}
