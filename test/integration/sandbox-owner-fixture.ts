// Helper process for the orphan test: makes two sandboxes with a running command, says
// "ready", then waits to be SIGKILLed by the test (so nothing of it gets to clean up).
import { createSandboxProvider } from "../../src/core/sandbox/create-provider";
import { request } from "./sandbox-contract";

async function main(): Promise<void> {
  const [backend, image] = process.argv.slice(2) as ["docker" | "process", string];
  const provider = await createSandboxProvider({ backend, warm: 0 });
  const boxes = await Promise.all([provider.acquire(request({}, image || undefined)), provider.acquire(request({}, image || undefined))]);
  for (const s of boxes) void s.exec("sleep 600");
  await new Promise((r) => setTimeout(r, 500));
  process.stdout.write("ready\n");
  await new Promise((r) => setTimeout(r, 600_000));
}
void main();
