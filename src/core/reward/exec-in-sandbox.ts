import type { VerifyContext } from "../model/domain";
import type { ExecResult } from "../model/sandbox";

/** Run a verifier's command in the rollout's sandbox; a timeout or a broken sandbox throws, so it is recorded as an error. */
export async function runChecked(
  ctx: VerifyContext,
  command: string,
  opts: { stdin?: string; timeoutMs?: number; env?: Record<string, string> } = {},
): Promise<ExecResult> {
  const sb = await ctx.sandbox();
  const timeoutMs = opts.timeoutMs ?? ctx.timeoutMs;
  const r = await sb.exec(command, {
    timeoutMs,
    signal: ctx.signal,
    ...(opts.stdin !== undefined ? { stdin: opts.stdin } : {}),
    ...(opts.env ? { env: opts.env } : {}),
  });
  if (r.status === "timeout") throw new Error(`'${command}' timed out after ${Math.round(timeoutMs / 100) / 10} s`);
  if (r.status === "error") throw new Error(`sandbox failed running '${command}': ${r.reason ?? r.stderr.slice(0, 300)}`);
  if (r.status === "oom") throw new Error(`'${command}' ran out of memory`);
  return r;
}

/** The last `n` characters, for details. */
export const tail = (s: string, n = 2000): string => (s.length > n ? `…${s.slice(-n)}` : s);
