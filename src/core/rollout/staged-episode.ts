import { aggregate } from "../reward/score";
import { rewardFor } from "../reward/task-reward";
import { writeTaskFiles } from "../sandbox/task-files";
import type { RewardComponent } from "../schema/trajectory";
import { Episode } from "./episode";
import { RolloutTimeoutError } from "./errors";
import type { Judgement } from "./judging";
import type { EpisodeOptions, Preparer } from "./rollout-types";
import type { EpisodeTrajectory } from "./memory-trajectory";
import { gateFailure, type StageResult, stageComponents, stageRewards, type TaskStage, type TaskStages } from "../model/task-stages";

/**
 * A multi-stage task's episode (Harbor's MultiStepTrial, kept apart from the one-stage
 * episode as Harbor keeps it apart from SingleStepTrial): each stage's files and setup, its
 * prompt (the first is the task's own, said at reset), the agent's turns until it ends the
 * stage, then the stage's own verifier and gate. The driver plays the turns between
 * `beginStage` and `endStage`; a stage whose rewards fail its gate, or that could not be
 * scored, ends the play. Max turns and the deadline count over all stages. `score`
 * aggregates the stages, scoring first the stage a timeout, max_turns or a throw cut short.
 */
export class StagedEpisode extends Episode {
  /** The stage under play, and whether its verifier has run. */
  private stage: { index: number; done: boolean } | null = null;
  private readonly results: StageResult[] = [];
  private stoppedBy: string | undefined;
  /** The stage's own agent timeout, while its turns are played. */
  private clock: { controller: AbortController; timer: NodeJS.Timeout } | null = null;

  constructor(
    o: EpisodeOptions,
    trajectory: EpisodeTrajectory,
    readonly stages: TaskStages,
    t0?: number,
  ) {
    super(o, trajectory, t0);
  }

  /**
   * Stage `index` begins: its workdir files and setup command, then (after the first) the
   * player's preparation and the stage's prompt, and its agent clock starts. False when its
   * setup failed: the play is over (a first stage that did not start ends the episode completed).
   */
  async beginStage(index: number, prepare?: Preparer): Promise<boolean> {
    const stage = this.stages.list[index];
    if (!stage) throw new Error(`the task has no step ${index}`);
    this.stage = { index, done: false };
    const setupError = await this.enterStage(stage, index, prepare);
    if (setupError) {
      this.results.push({ stage, rewards: null, components: [], error: setupError });
      this.stage.done = true;
      this.stoppedBy = `step ${stage.name} did not start: ${setupError}`;
      if (index === 0) this.finish("completed", this.stoppedBy);
      return false;
    }
    this.submitted = false;
    this.startClock(stage);
    return true;
  }

  /** The stage under play. */
  get current(): TaskStage | undefined {
    return this.stage ? this.stages.list[this.stage.index] : undefined;
  }

  /**
   * Whether a throw out of the stage's turns is the stage's own agent timeout (not the
   * rollout's, not a cancel): as in Harbor, its tests still run and the next stage may follow.
   * The episode is then timed out, with the clock's reason.
   */
  timedOut(): boolean {
    const clock = this.clock?.controller.signal;
    if (!clock?.aborted || this.scope.signal.aborted) return false;
    this.finish("timeout", (clock.reason as Error).message);
    return true;
  }

  /** The stage's clock stops (its turns are over, however they ended). */
  stopClock(): void {
    if (!this.clock) return;
    clearTimeout(this.clock.timer);
    this.clock = null;
    this.toolCtx.signal = this.scope.signal;
  }

  /**
   * The stage's turns are over (`ended`: the agent ended it or its clock ran out): its verifier
   * runs; true when the next stage follows (its gate held and turns are left).
   */
  async endStage(ended: boolean, turnsLeft: boolean): Promise<boolean> {
    const stage = this.current;
    if (!stage || !this.stage) throw new Error("no step is under play");
    this.stopClock();
    const result = await this.verifyStage(stage);
    this.stage.done = true;
    const gate = result.rewards ? gateFailure(result.rewards, stage.minReward) : "no verifier result";
    if (gate) this.stoppedBy = `step ${stage.name}: ${gate}`;
    return !gate && ended && turnsLeft && this.stage.index + 1 < this.stages.list.length;
  }

  /** A step's own agent timeout: the turns of the step run under a signal its clock aborts. */
  private startClock(stage: TaskStage): void {
    if (stage.agentTimeoutSec === undefined) return;
    const controller = new AbortController();
    const seconds = stage.agentTimeoutSec;
    const timer = setTimeout(
      () => controller.abort(new RolloutTimeoutError(`step ${stage.name}'s agent timeout (${seconds} s) reached`)),
      seconds * 1000,
    );
    controller.signal.addEventListener("abort", () => clearTimeout(timer), { once: true });
    this.clock = { controller, timer };
    this.toolCtx.signal = AbortSignal.any([this.scope.signal, controller.signal]);
  }

  /** A stage's workdir files and setup command, then (after the first) the player's preparation and the stage's prompt; the setup's failure, if any. */
  private async enterStage(stage: TaskStage, index: number, prepare: Preparer | undefined): Promise<string | null> {
    const { scope } = this;
    if (stage.files || stage.setup) {
      const sb = await scope.sandbox();
      if (stage.files) await writeTaskFiles(sb, stage.files);
      if (stage.setup) {
        const r = await sb.exec(["bash", "-c", stage.setup], { timeoutMs: this.stepMs, signal: scope.signal });
        if (r.status !== "ok" || r.exitCode !== 0)
          return `its setup exited ${r.exitCode ?? r.reason ?? r.status}: ${(r.stderr || r.stdout).slice(-500)}`;
      }
    }
    if (index === 0) return null;
    await prepare?.({
      tools: this.tools,
      sandbox: scope.sandbox,
      signal: scope.signal,
      timeoutMs: this.stepMs,
      stage: { index, name: stage.name, ...(stage.solution ? { solution: stage.solution } : {}) },
    });
    this.say("user", stage.prompt);
    return null;
  }

  /** One stage's verifier over what the agent left so far, with the stage's tests and reward list. */
  private async verifyStage(stage: TaskStage): Promise<StageResult> {
    const { o } = this;
    const task = {
      ...o.task,
      prompt: stage.prompt,
      ...(stage.tests ? { tests: stage.tests } : {}),
      ...(stage.reward ? { reward: stage.reward } : {}),
    };
    const score = await this.judge(rewardFor(o.env.manifest.reward, task), task);
    const result: StageResult = { stage, rewards: stageRewards(score.components), components: score.components };
    this.results.push(result);
    return result;
  }

  /** The stages' score: the stage a timeout or max_turns cut short is scored too (as a one-stage task is), then the stages aggregated. Before any stage began, the task's own. */
  protected override async judgeAll(): Promise<{ total: number; components: RewardComponent[] } | Judgement> {
    if (!this.stage) return super.judgeAll();
    const pending = !this.stage.done ? this.stages.list[this.stage.index] : undefined;
    if (pending) {
      const r = await this.verifyStage(pending);
      const gate = r.rewards ? gateFailure(r.rewards, pending.minReward) : "no verifier result";
      this.stoppedBy = `step ${pending.name} ended early (${this.status})${gate ? `; ${gate}` : ""}`;
    }
    const components = stageComponents(this.stages, this.results, this.stoppedBy);
    return { total: aggregate(components), components };
  }
}
