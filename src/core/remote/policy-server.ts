import { type ChildProcess, spawn } from "node:child_process";

export interface StartedPolicyServer {
  baseUrl: string;
  stop(): Promise<void>;
}

/**
 * Starts a job's policy server (e.g. `vllm serve M --port $PORT`) in its own process
 * group and waits until `GET /v1/models` answers 2xx; fails if it exits or the
 * timeout passes first.
 */
export async function startPolicyServer(
  command: string,
  port: number,
  readyTimeoutS: number,
  signal: AbortSignal,
  log: (line: string) => void,
): Promise<StartedPolicyServer> {
  const child: ChildProcess = spawn("sh", ["-c", command], {
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, PORT: String(port) },
  });
  child.stdout?.on("data", (d: Buffer) => log(`[policy server] ${d.toString().trimEnd()}`));
  child.stderr?.on("data", (d: Buffer) => log(`[policy server] ${d.toString().trimEnd()}`));
  let exited: string | undefined;
  child.on("exit", (code, sig) => {
    exited = `exited with ${code ?? sig}`;
  });
  const stop = async () => {
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
        return { baseUrl, stop };
      }
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  await stop();
  throw new Error(`policy server did not answer ${baseUrl}/models within ${readyTimeoutS} s`);
}
