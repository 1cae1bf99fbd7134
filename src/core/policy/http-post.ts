import http from "node:http";
import https from "node:https";

/**
 * Kept-alive connections to the policy server, one pool per protocol for the process. A free socket is
 * closed after 4 s idle, before servers close theirs (uvicorn, which vLLM and SGLang run on, at 5 s),
 * so a request rarely lands on a socket the server is closing.
 */
const agents = {
  "http:": new http.Agent({ keepAlive: true, timeout: 4_000 }),
  "https:": new https.Agent({ keepAlive: true, timeout: 4_000 }),
};

/**
 * POSTs a JSON body and reads the whole reply as text, on node:http. A token-in/token-out turn sends
 * its whole sequence and reads a reply of ids and logprobs: fetch (undici, web streams) took about
 * 1 ms more CPU per request than this for the same bytes. Rejects with the signal's reason when it aborts.
 */
export function postJson(
  url: string,
  body: string,
  headers: Record<string, string>,
  signal: AbortSignal,
): Promise<{ status: number; text: string; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const target = new URL(url);
    const client = target.protocol === "https:" ? https : http;
    const agent = target.protocol === "https:" ? agents["https:"] : agents["http:"];
    const payload = Buffer.from(body, "utf8");
    const onAbort = () => {
      req.destroy();
      reject(signal.reason);
    };
    const req = client.request(
      target,
      { method: "POST", agent, headers: { ...headers, "content-type": "application/json", "content-length": String(payload.length) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("error", fail);
        res.on("end", () => {
          signal.removeEventListener("abort", onAbort);
          if (!res.complete) reject(new Error("the policy server closed the connection inside its reply"));
          else resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8"), headers: res.headers });
        });
      },
    );
    function fail(e: Error) {
      signal.removeEventListener("abort", onAbort);
      reject(e);
    }
    req.on("error", fail);
    signal.addEventListener("abort", onAbort, { once: true });
    req.end(payload);
  });
}
