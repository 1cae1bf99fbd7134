import { runMocha } from "./runner";

/** The trusted-workspace session: every feature. */
export function run(): Promise<void> {
  return runMocha(async () => {
    await import("./activation.suite");
    await import("./views.suite");
    await import("./diagnostics.suite");
    await import("./harbor.suite");
    await import("./commands.suite");
    await import("./testing.suite");
    await import("./audit.suite");
    await import("./failure-reason.suite");
    await import("./rollout.suite");
    await import("./viewer.suite");
    await import("./runners.suite");
    await import("./debug.suite");
    await import("./human.suite");
  });
}
