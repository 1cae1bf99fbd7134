import { request } from "node:http";

/** Whether a Docker engine answers `GET /_ping` on its Unix socket within the timeout. */
export function dockerAnswers(
  socketPath = process.env.DOCKER_HOST?.startsWith("unix://") ? process.env.DOCKER_HOST.slice(7) : "/var/run/docker.sock",
  timeoutMs = 1500,
): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request({ socketPath, path: "/_ping", method: "GET", timeout: timeoutMs }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on("timeout", () => {
      req.destroy();
      resolve(false);
    });
    req.on("error", () => resolve(false));
    req.end();
  });
}
