import type { VerifyContext } from "../../model/domain";
import { sandboxFiles } from "../../model/file-content";
import { tail } from "../exec-in-sandbox";
import { type BuiltinVerifier, NO_GRADED_FIELDS } from "../verifier-entry";
import type { Sandbox } from "../../model/sandbox";
import { packFiles } from "../../sandbox/docker/tar";
import type { VerifierConfig } from "../../schema/verifier";
import { failedTests, harborCause, solveFailure } from "./failure-cause";
import { SHIM_DIR, shimFiles } from "./offline-shim";
import { parseRewards } from "./rewards";

type HarborVerifierConfig = Extract<VerifierConfig, { type: "harbor" }>;

/**
 * Unpacks the tests (to /tests) and the offline shim, each folder emptied first (the agent may
 * have put files there: a `python3` in the shim's folder would come first on PATH); empties
 * /logs/verifier.
 */
const STAGE = `set -e
rm -rf /tests /logs/verifier ${SHIM_DIR}
mkdir -p /tests /logs/verifier /logs/agent /logs/artifacts
tar -x -o -C / -f -
chmod -R a+rX /tests
chmod +x /tests/test.sh ${SHIM_DIR}/*`;

async function exec(
  sb: Sandbox,
  ctx: VerifyContext,
  script: string,
  opts: { stdin?: Buffer; timeoutMs: number; env?: Record<string, string> },
) {
  const r = await sb.exec(["bash", "-c", script], {
    timeoutMs: opts.timeoutMs,
    signal: ctx.signal,
    ...(opts.stdin ? { stdin: opts.stdin } : {}),
    ...(opts.env ? { env: opts.env } : {}),
  });
  if (r.status === "error") throw new Error(`the sandbox failed under the verifier: ${r.reason ?? r.stderr.slice(0, 300)}`);
  return r;
}

/**
 * Harbor's verifier: after the agent is done, the task's tests/ go to /tests, `/tests/test.sh`
 * runs in the workdir with `[verifier].env` and the verifier timeout (stdout and stderr to
 * /logs/verifier/test-stdout.txt), and the reward is read as Harbor reads it: reward.json
 * first (every numeric key), else reward.txt (one number, key "reward"). Each key is a reward
 * component. The offline shim (see offline-shim.ts) is first on PATH.
 */
export const harborVerifier: BuiltinVerifier<HarborVerifierConfig> = {
  type: "harbor",
  gradedFields: NO_GRADED_FIELDS,
  // A task's own Harbor tests are written back as imported (export.ts), when they are its only verifier.
  harbor: { kind: "none" },
  async verify(config, ctx) {
    const sb = await ctx.sandbox();
    // The process backend has no image of the task's and a read-only /: /tests and /logs cannot be made there.
    if (sb.backend !== "docker")
      throw new Error(
        `a Harbor task runs on the docker backend only (its image, /tests and /logs are the task's own container's), not ${sb.backend}`,
      );
    const tests = sandboxFiles(ctx.task.tests?.files);
    if (!tests["test.sh"]) throw new Error("the task has no tests/test.sh, which Harbor's verifier runs");
    const files = new Map<string, Buffer>();
    for (const [p, c] of Object.entries(tests)) files.set(`tests/${p}`, Buffer.isBuffer(c) ? c : Buffer.from(c));
    for (const [p, c] of Object.entries(shimFiles())) files.set(`${SHIM_DIR.slice(1)}/${p}`, Buffer.from(c));
    const staged = await exec(sb, ctx, STAGE, { stdin: await packFiles(files, { uid: 0, gid: 0 }, 0o755), timeoutMs: 60_000 });
    if (staged.exitCode !== 0) throw new Error(`copying tests/ to /tests failed: ${tail(staged.stderr, 500)}`);
    // Harbor's own verifier runs with the task's [verifier].env only; PATH puts the shim first, HOME is root's.
    const env = { ...(config.env ?? {}), PATH: `${SHIM_DIR}:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin`, HOME: "/root" };
    const budget = Math.max(1000, ctx.timeoutMs - 5000);
    const run = await exec(sb, ctx, `cd ${JSON.stringify(sb.workdir)} && /tests/test.sh > /logs/verifier/test-stdout.txt 2>&1`, {
      timeoutMs: budget,
      env,
    });
    const read = await exec(
      sb,
      ctx,
      "cd /logs/verifier; for f in reward.json reward.txt; do if [ -f $f ]; then printf '%s\\0' $f; cat $f; printf '\\0'; fi; done; printf 'failed\\0'; grep -a -m 20 -E '^(FAILED|ERROR) ' test-stdout.txt 2>/dev/null; printf '\\0'; tail -c 3000 test-stdout.txt 2>/dev/null",
      { timeoutMs: 30_000 },
    );
    const parts = read.stdout.split("\0");
    const found: Record<string, string> = {};
    let i = 0;
    while (i + 1 < parts.length && (parts[i] === "reward.json" || parts[i] === "reward.txt" || parts[i] === "failed")) {
      found[parts[i] as string] = parts[i + 1] ?? "";
      i += 2;
    }
    const output = parts.slice(i).join("");
    if (run.status === "timeout")
      throw new Error(
        `tests/test.sh timed out after ${Math.round(budget / 1000)} s (the verifier timeout); its output ends:\n${tail(output, 800)}`,
      );
    const rewards = parseRewards(found["reward.json"], found["reward.txt"]);
    // Why it fell short, on the line the verdict shows: the failing tests, and solve.sh's failure when the oracle ran it.
    const cause = harborCause({ failed: failedTests(found.failed ?? ""), exitCode: run.exitCode, solve: solveFailure(ctx.events) });
    if (!rewards.ok)
      throw new Error(
        `${rewards.message}; test.sh exited ${run.exitCode ?? run.reason}${cause ? `; ${cause}` : ""}, its output ends:\n${tail(output, 800)}`,
      );
    const entries = Object.entries(rewards.values);
    const clamp = (x: number) => Math.min(1, Math.max(0, x));
    const outside = entries.filter(([, v]) => v !== clamp(v)).map(([k, v]) => `${k}=${v}`);
    const score = entries.reduce((s, [, v]) => s + clamp(v), 0) / entries.length;
    const passed = entries.every(([, v]) => v >= 1);
    return {
      score,
      passed,
      reason: `${entries.map(([k, v]) => `${k}=${v}`).join(", ")} (from /logs/verifier/${found["reward.json"] !== undefined ? "reward.json" : "reward.txt"})${outside.length > 0 ? `; ${outside.join(", ")} clamped to [0, 1]` : ""}${!passed && cause ? ` — ${cause}` : ""}`,
      details: { rewards: rewards.values, exit_code: run.exitCode, output: tail(output, 2000) },
      ...(entries.length > 1 || entries[0]?.[0] !== "reward" ? { split: entries.map(([name, v]) => ({ name, score: clamp(v) })) } : {}),
    };
  },
};
