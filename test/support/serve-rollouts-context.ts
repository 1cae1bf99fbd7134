import { mkdirSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import type { Environment } from "../../src/core/model/environment";
import type { SandboxProvider } from "../../src/core/model/sandbox";
import { rewardHash } from "../../src/core/reward/reward-hash";
import type { ProtocolMount, ServeContext, ServedEnvironment } from "../../src/core/serve/serve-context";
import { ServeError } from "../../src/core/serve/session-types";

/**
 * A server for one protocol mount over the serve contracts, for tests written before the serve
 * foundation (serve-server.ts) is merged: the environments and the trajectory folder are the
 * real ones; sessions are not served here. Replace with startServeServer once it is in main.
 */
export async function startMountServer(
  env: Environment,
  provider: SandboxProvider,
  runDir: string,
  mount: (ctx: ServeContext) => ProtocolMount,
): Promise<{ baseURL: string; ctx: ServeContext; served: ServedEnvironment; errors: string[]; close(): Promise<void> }> {
  const served: ServedEnvironment = {
    name: env.manifest.name,
    dir: env.dir,
    env,
    tasks: env.tasks,
    provider,
    tools: [],
    rewardHash: rewardHash(env),
  };
  const shutdown = new AbortController();
  const errors: string[] = [];
  mkdirSync(path.join(runDir, "rollouts"), { recursive: true });
  const ctx: ServeContext = {
    environments: {
      list: [served],
      get: (name) => {
        if (name === undefined || name === served.name) return served;
        throw new ServeError("not_found", `environment: no environment '${name}'`, "environment");
      },
      pickTask: (s, id) => s.tasks.find((t) => t.id === id) ?? (s.tasks[0] as never),
    },
    sessions: {
      open: () => {
        throw new ServeError("invalid", "no sessions in this test server");
      },
      get: () => undefined,
      touch: () => {},
      close: async () => {},
      active: 0,
      max: 0,
    },
    metrics: {
      sessionOpened: () => {},
      sessionClosed: () => {},
      step: () => {},
      error: (_p, kind) => {
        errors.push(kind);
      },
      text: async () => "",
    },
    runDir,
    signal: shutdown.signal,
    trajectoryFile: (id) => path.join(runDir, "rollouts", `${id}.jsonl`),
  };
  const m = mount(ctx);
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://localhost");
    const route = m.http.find((r) => r.method === req.method && r.path === url.pathname);
    if (!route) {
      res.writeHead(404).end();
      return;
    }
    route.handle(req, res, url).catch((e: Error) => {
      if (!res.headersSent) res.writeHead(500).end(e.message);
      else res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  return {
    baseURL: `http://127.0.0.1:${port}`,
    ctx,
    served,
    errors,
    close: async () => {
      shutdown.abort(new Error("test server closing"));
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
