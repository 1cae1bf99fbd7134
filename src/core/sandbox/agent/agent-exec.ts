import { toBuffer } from "../diff";
import { fileSizeReason } from "../limit-reasons";
import { formatOutput } from "../output";
import type { ExecOptions, ExecResult, SandboxRequest, WorkdirFiles } from "../../model/sandbox";
import type { AgentClient, AgentReply } from "./agent-client";
import { withDeadline } from "../../util/deadline";

/**
 * The exec path both backends share: the request sent to the agent (agent.py) and its reply
 * turned into an ExecResult. Each backend adds only what it alone knows (how its sandbox was
 * lost, where its memory and pids counters live).
 */

/** Extra time the agent gets to report a timeout it enforces itself before we call it broken. */
export const AGENT_GRACE_MS = 5000;

/**
 * How long past a command's deadline the host's backstop waits for the agent's own kill
 * before it kills the command itself (where the backend can: see agentExec's backstop).
 */
export const BACKSTOP_AFTER_MS = 200;

/** An exec that did not run, or whose sandbox was lost: no output, and the reason. */
export function failedExec(started: number, reason: string): ExecResult {
  return { status: "error", exitCode: null, stdout: "", stderr: "", durationMs: performance.now() - started, reason };
}

/** A command line of plain words: no quotes, variables, globs, redirections, assignments or operators. */
const PLAIN_WORDS = /^[\w./:,+@%-]+( [\w./:,+@%-]+)*$/;
/** sh's builtins: a command line starting with one keeps its shell (the program of that name may differ). */
const SH_BUILTINS = new Set(
  ". : [ alias bg break cd chdir command continue echo eval exec exit export false fc fg getopts hash jobs kill local printf pwd read readonly return set shift test times trap true type ulimit umask unalias unset wait".split(
    " ",
  ),
);

/**
 * The argv for a command line: its words when sh would only have split them and run the
 * program they name (sparing the shell's start), else `sh -c`. With words, the agent still
 * hands the line to sh when the program cannot start, so a missing one ends as sh's exit 127.
 */
export function commandArgv(command: string): { argv: string[]; sh_command?: string } {
  const words = command.split(" ");
  if (PLAIN_WORDS.test(command) && !SH_BUILTINS.has(words[0] ?? "")) return { argv: words, sh_command: command };
  return { argv: ["/bin/sh", "-c", command] };
}

/** Files for the agent's put (or an exec's writeFirst): contents as base64, relative paths as given. */
export function putRequest(root: string, w: WorkdirFiles): { root: string; files: Record<string, string>; links: WorkdirFiles["links"] } {
  return {
    root,
    files: Object.fromEntries(Object.entries(w.files).map(([p, content]) => [p, toBuffer(content).toString("base64")])),
    links: w.links,
  };
}

/** What the sandbox's own counters say happened while the command ran (null: ask the agent's). */
export interface LimitHits {
  oom: boolean;
  pidsHit: boolean;
}

export type AgentExecOutcome = { reply: AgentReply } | { lost: Error };

/**
 * Sends one exec to the agent and waits for its reply: a kill request on abort, and a guard
 * that gives up AGENT_GRACE_MS past the command's own timeout (the agent enforces that one).
 * A broken connection or that silence comes back as `lost`; the caller explains it.
 *
 * `backstop`, where given, kills the command from the host BACKSTOP_AFTER_MS past its deadline
 * when the agent has not answered by then (a command hogging the sandbox's CPU quota starves
 * the agent too); the reply that follows is the timeout the deadline called for, however the
 * command ended.
 */
export async function agentExec(
  agent: AgentClient,
  command: string | string[],
  cwd: string,
  opts: ExecOptions,
  req: SandboxRequest,
  workdir: string,
  backstop?: () => void,
): Promise<AgentExecOutcome> {
  const how = typeof command === "string" ? commandArgv(command) : { argv: command };
  let id = -1;
  const maxOutput = opts.maxOutputBytes ?? req.limits.outputBytes;
  const kill = () => {
    if (id >= 0) agent.request({ op: "kill", target: id }).catch(() => {});
  };
  opts.signal?.addEventListener("abort", kill, { once: true });
  let stopper: NodeJS.Timeout | undefined;
  let stopped = false;
  try {
    const reply = agent.request(
      {
        op: "exec",
        ...how,
        ...(opts.writeFirst ? putRequest(workdir, opts.writeFirst) : {}),
        cwd,
        env: opts.env ?? {},
        stdin: opts.stdin === undefined ? "" : toBuffer(opts.stdin).toString("base64"),
        timeout_ms: opts.timeoutMs ?? null,
        max_output: maxOutput,
      },
      (n) => {
        id = n;
      },
      maxOutput,
    );
    const limit = opts.timeoutMs;
    if (limit && backstop) {
      stopper = setTimeout(() => {
        stopped = true;
        backstop();
      }, limit + BACKSTOP_AFTER_MS);
    }
    const answered = limit ? await withDeadline(reply, limit + AGENT_GRACE_MS) : { ok: true as const, value: await reply };
    if (!answered.ok) throw new Error(`the sandbox agent did not answer ${AGENT_GRACE_MS / 1000} s after the timeout`);
    const r = answered.value;
    // Killed from the host at the deadline: a timeout, not the signal the kill left.
    return { reply: stopped && !r.error && r.ending !== "killed" ? { ...r, ending: "timeout" } : r };
  } catch (e) {
    return { lost: e as Error };
  } finally {
    if (stopper) clearTimeout(stopper);
    opts.signal?.removeEventListener("abort", kill);
  }
}

/** The agent's exec reply as an ExecResult; `hits` overrides the agent's own memory/pids counters. */
export function execResultOf(r: AgentReply, opts: ExecOptions, req: SandboxRequest, started: number, hits?: LimitHits): ExecResult {
  const durationMs = performance.now() - started;
  if (r.error) return { status: "error", exitCode: null, stdout: "", stderr: "", durationMs, reason: r.error };
  const out = formatOutput(Buffer.from(r.stdout ?? "", "base64"), Buffer.from(r.stderr ?? "", "base64"), r.total ?? 0);
  const exitCode = r.exit ?? null;
  if (r.ending === "timeout")
    return { status: "timeout", exitCode: null, ...out, durationMs, reason: `killed after ${(opts.timeoutMs ?? 0) / 1000} s timeout` };
  if (r.ending === "killed") return { status: "killed", exitCode: null, ...out, durationMs, reason: "cancelled" };
  const oom = hits ? hits.oom : r.oom;
  const pidsHit = hits ? hits.pidsHit : r.pids_hit;
  // A shell in between turns the SIGKILL into exit status 137.
  if (oom && (r.signal === 9 || r.exit === 137))
    return {
      status: "oom",
      exitCode: null,
      ...out,
      durationMs,
      reason: `out of memory (OOM kill at the ${req.limits.memoryBytes} byte limit)`,
    };
  const code = r.signal ? 128 + r.signal : exitCode;
  const fileLimit = fileSizeReason(req.limits, code);
  return {
    status: "ok",
    exitCode: code,
    ...out,
    durationMs,
    ...(pidsHit ? { reason: `fork refused: pids limit of ${req.limits.pids} reached` } : {}),
    ...(fileLimit ? { reason: fileLimit } : {}),
  };
}
