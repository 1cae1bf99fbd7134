import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import type { Environment } from "../../../../src/core/model/environment";
import type { SandboxProvider } from "../../../../src/core/model/sandbox";
import { buildToolset } from "../../../../src/core/rollout/toolset";
import type {
  ProtocolMount,
  ServeContext,
  ServedEnvironment,
  ServeMetrics,
  SessionRegistry,
} from "../../../../src/core/serve/serve-context";
import { ServeError, type SessionHandle } from "../../../../src/core/serve/session-types";

/**
 * A ServeContext made by hand for the mount's unit tests (the served session itself is a test
 * double here; the conformance suite runs the real server), and a bare node:http router that
 * hands a request to the mount's route of the same path, as the serve server does.
 */

export function servedOf(env: Environment, provider: SandboxProvider, dir: string, runDir: string): ServedEnvironment {
  const toolset = buildToolset(env, null);
  let samples = 0;
  return {
    name: env.manifest.name,
    dir,
    env,
    tasks: env.tasks,
    provider,
    domain: null,
    toolset,
    tools: toolset.specs,
    rewardHash: "sha256:test",
    runDir,
    runId: path.basename(runDir),
    nextRollout(task) {
      const sample = samples++;
      return { rolloutId: `${task.id}-${sample}`, sample, file: path.join(runDir, "rollouts", `${task.id}-${sample}.jsonl`) };
    },
  };
}

export function makeContext(
  served: ServedEnvironment,
  open: () => SessionHandle,
  max = 4,
): ServeContext & { errors: string[]; sessions: SessionRegistry & { map: Map<string, SessionHandle> } } {
  const map = new Map<string, SessionHandle>();
  const errors: string[] = [];
  const metrics: ServeMetrics = {
    sessionOpened() {},
    sessionClosed() {},
    step() {},
    error(_p, kind) {
      errors.push(kind);
    },
    text: async () => "",
  };
  const sessions = {
    map,
    open() {
      if (map.size >= max) throw new ServeError("capacity", "at capacity", undefined, { active: map.size, max });
      const h = open();
      map.set(h.id, h);
      return h;
    },
    get: (id: string) => map.get(id),
    touch() {},
    async close(id: string) {
      await map.get(id)?.close();
      map.delete(id);
    },
    get active() {
      return map.size;
    },
    max,
  };
  let n = 0;
  return {
    environments: {
      list: [served],
      get(name?: string) {
        if (name !== undefined && name !== served.name) throw new ServeError("not_found", `no environment '${name}'`);
        return served;
      },
      pickTask(s, taskId, seed) {
        if (taskId !== undefined) {
          const t = s.tasks.find((x) => x.id === taskId);
          if (!t) throw new ServeError("not_found", `no task '${taskId}'`);
          return t;
        }
        return s.tasks[(seed ?? n++) % s.tasks.length]!;
      },
    },
    sessions,
    metrics,
    errors,
    runsDir: path.dirname(served.runDir),
    signal: new AbortController().signal,
  };
}

/** A node:http server routing to the mount's exact paths; FastAPI's 404 otherwise. */
export async function serveMount(mount: ProtocolMount): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    const route = mount.http.find((r) => r.method === req.method && r.path === url.pathname);
    if (!route) {
      res.writeHead(404, { "content-type": "application/json" }).end('{"detail":"Not Found"}');
      return;
    }
    void route.handle(req, res, url);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** A POST with JSON and an optional Cookie; the reply's status, JSON and Set-Cookie. */
export async function post(
  url: string,
  body: unknown,
  cookie?: string,
): Promise<{ status: number; json: Record<string, unknown>; setCookie: string | null }> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...(cookie ? { cookie } : {}) },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : {}, setCookie: res.headers.get("set-cookie") };
}

/** The name=value part of a Set-Cookie, as a client's jar sends it back. */
export const jar = (setCookie: string | null): string | undefined => (setCookie ? setCookie.split(";")[0] : undefined);
