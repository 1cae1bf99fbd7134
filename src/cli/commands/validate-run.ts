/** Oracle/nop rollouts for `rlenv validate --run`; provided by the rollout engine. */
export async function validateByRollouts(
  _dirs: string[],
  _opts: { sandbox: string; concurrency?: number; tasks?: string[]; unsafeNoSandbox?: boolean },
): Promise<{ ok: boolean; report: unknown }> {
  throw new Error("validate --run needs the rollout engine, which is not built yet");
}
