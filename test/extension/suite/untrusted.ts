import { runMocha } from "./runner";

/** The restricted-mode session: views and diagnostics work, nothing executes. */
export function run(): Promise<void> {
  return runMocha(async () => {
    await import("./trust.suite");
  });
}
