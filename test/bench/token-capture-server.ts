/**
 * The token-capture bench's scripted server, in a process of its own so the bench's CPU figures hold
 * the engine's work only. Told its replies over IPC ({ plain, capture, tokens }: one body per turn);
 * a rollout's base URL is /MODE/ROLLOUT/v1, and its n-th request gets that mode's n-th reply.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

process.once("message", (replies: Record<string, string[]>) => {
  const served = new Map<string, number>();
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const [, mode = "", rollout = ""] = (req.url ?? "").split("/");
      const key = `${mode}/${rollout}`;
      const turn = served.get(key) ?? 0;
      served.set(key, turn + 1);
      const body = replies[mode]?.[turn];
      if (body === undefined) res.writeHead(404).end();
      else res.writeHead(200, { "content-type": "application/json" }).end(body);
    });
  });
  server.listen(0, "127.0.0.1", () => process.send?.((server.address() as AddressInfo).port));
  process.on("disconnect", () => process.exit(0));
});
