import { type ChildProcess, spawn } from "node:child_process";
import { closeSync, existsSync, openSync } from "node:fs";
import path from "node:path";
import type { RunConfig } from "../../schema/run";
import type { JobSpec } from "../api";

/** The policy server's output, in the job folder. */
export const POLICY_SERVER_LOG = "policy-server.log";

/**
 * A token-in/token-out job reads the model's tokenizer from a folder on the runner host: a
 * job that names none, or one without tokenizer.json there, fails before anything starts,
 * naming the field, rather than in every unit.
 */
export function checkTokenizerFolder(policy: RunConfig["policy"]): void {
  if (!policy.tokens) return;
  if (!policy.tokenizer)
    throw new Error("config.policy.tokenizer: token-in/token-out (tokens: true) needs the model's tokenizer folder on the runner host");
  for (const f of ["tokenizer.json", "tokenizer_config.json"])
    if (!existsSync(path.join(policy.tokenizer, f)))
      throw new Error(`config.policy.tokenizer: ${policy.tokenizer} has no ${f} on this runner host`);
}

export interface StartedPolicyServer {
  baseUrl: string;
  stop(): Promise<void>;
  /** Settles with how the server ended when it exits on its own (never after stop()). */
  exited: Promise<string>;
}

/**
 * Starts a job's policy server (e.g. `vllm serve M --port $PORT`) in its own process
 * group and waits until `GET /v1/models` answers 2xx; fails if it exits or the
 * timeout passes first. With `logFile`, the server's own output goes to that file
 * (appended, written by the server process itself, so a chatty server costs the runner
 * nothing); without, each chunk becomes a job log line.
 */
export async function startPolicyServer(
  command: string,
  port: number,
  readyTimeoutS: number,
  signal: AbortSignal,
  log: (line: string) => void,
  logFile?: string,
): Promise<StartedPolicyServer> {
  const out = logFile ? openSync(logFile, "a") : "pipe";
  const child: ChildProcess = spawn("sh", ["-c", command], {
    detached: true,
    stdio: ["ignore", out, out],
    env: { ...process.env, PORT: String(port) },
  });
  // The child holds its own copy of the log file's descriptor.
  if (typeof out === "number") closeSync(out);
  child.stdout?.on("data", (d: Buffer) => log(`[policy server] ${d.toString().trimEnd()}`));
  child.stderr?.on("data", (d: Buffer) => log(`[policy server] ${d.toString().trimEnd()}`));
  let exited: string | undefined;
  let stopping = false;
  let onExit: (how: string) => void = () => {};
  const exitedPromise = new Promise<string>((resolve) => {
    onExit = resolve;
  });
  child.on("exit", (code, sig) => {
    exited = `exited with ${code ?? sig}`;
    if (!stopping) onExit(exited);
  });
  child.on("error", (e) => {
    exited = `could not start: ${e.message}`;
    if (!stopping) onExit(exited);
  });
  const stop = async () => {
    stopping = true;
    if (exited || !child.pid) return;
    try {
      process.kill(-child.pid, "SIGTERM");
    } catch {
      return;
    }
    await new Promise((r) => setTimeout(r, 200));
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {
      // gone after SIGTERM
    }
  };
  const baseUrl = `http://127.0.0.1:${port}/v1`;
  const deadline = Date.now() + readyTimeoutS * 1000;
  while (Date.now() < deadline) {
    if (signal.aborted) {
      await stop();
      throw new Error("cancelled while waiting for the policy server");
    }
    if (exited) throw new Error(`policy server ${exited} before answering on ${baseUrl}/models`);
    try {
      const r = await fetch(`${baseUrl}/models`, { signal: AbortSignal.timeout(2000) });
      if (r.ok) {
        log(`policy server ready on ${baseUrl}`);
        return { baseUrl, stop, exited: exitedPromise };
      }
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  await stop();
  throw new Error(`policy server did not answer ${baseUrl}/models within ${readyTimeoutS} s`);
}

/**
 * The policy server a job names: its URL as given, or (local executor) one started for the job,
 * its output in the job folder. `onGone`: it exited mid-job (the job's units are to stop).
 */
export async function jobPolicyServer(
  ps: JobSpec["policy_server"],
  local: boolean,
  jobDir: string,
  signal: AbortSignal,
  log: (line: string) => void,
  onGone: (how: string) => void,
): Promise<{ server?: StartedPolicyServer; baseUrl?: string }> {
  if (ps && "url" in ps) return { baseUrl: ps.url };
  if (!ps || !local) return {};
  log(`starting the policy server (its output: ${POLICY_SERVER_LOG} in the job folder)`);
  const started = await startPolicyServer(ps.command, ps.port, ps.ready_timeout_s, signal, log, path.join(jobDir, POLICY_SERVER_LOG));
  void started.exited.then((how) => {
    log(`policy server ${how} during the job: stopping its units (infrastructure failure)`);
    onGone(how);
  });
  return { server: started, baseUrl: started.baseUrl };
}
