import { FromHost, INIT_ELEMENT_ID, type InitContext, type Preloaded, requestKey } from "../../../src/core/view/protocol/envelope";
import type { METHODS, MethodName, Params, Result } from "../../../src/core/view/protocol/methods";

/**
 * What an app needs from its host, with two backends: the VS Code webview
 * (postMessage) and the `rlenv view` HTTP server (fetch with the page's token).
 * Results are parsed with the method's schema here as well as on the host.
 */
export interface HostApi {
  readonly backend: "webview" | "http";
  init(): Promise<{ context: InitContext; snapshot: Record<string, unknown> | null }>;
  request<M extends MethodName>(method: M, params: Params<M>): Promise<Result<M>>;
  /**
   * The reply as the host sent it, its envelope checked and its result not parsed yet: for a reply
   * whose parse would block the page for long (the dashboard of a run of many tasks), which the
   * caller parses in slices (parse-slices.ts) with the method's schemas.
   */
  requestUnparsed<M extends MethodName>(method: M, params: Params<M>): Promise<unknown>;
  /** Saves the app's state so a reload starts from it (a full snapshot, never a delta). */
  saveState(state: Record<string, unknown>): void;
  open(app: "trajectory" | "dashboard", target: string, compare?: string, more?: string[], row?: number): void;
  /** The host says the file changed (live panel); the HTTP backend has no push, the app polls. */
  onChanged(cb: () => void): void;
}

/**
 * The methods an app asks for, with their schemas: each app passes its own, so its bundle
 * holds only the schemas it parses (the trajectory viewer's and the dashboard's are built with
 * zod/mini: classic zod, which the audit report's need, stays out of their bundles).
 */
export type MethodTable = { readonly [M in MethodName]?: (typeof METHODS)[M] };

function parseResult<M extends MethodName>(table: MethodTable, method: M, value: unknown): Result<M> {
  const schema = table[method]?.result;
  if (!schema) throw new Error(`${method}: not a method of this app`);
  const r = schema.safeParse(value);
  if (!r.success) throw new Error(`${method}: unexpected reply: ${r.error.issues[0]?.path.join(".")}: ${r.error.issues[0]?.message}`);
  return r.data as Result<M>;
}

/** Replies the host sent with `init`, each given once to the first request that matches it. */
class PreloadedReplies {
  /** Each request's replies in the order sent: a page asks some twice (a rollout compared with itself), and each ask takes one. */
  private readonly byKey = new Map<string, unknown[]>();

  constructor(private readonly methods: MethodTable) {}

  add(list: Preloaded[] | undefined): void {
    for (const p of list ?? []) {
      const key = requestKey(p.method, p.params);
      const queued = this.byKey.get(key);
      if (queued) queued.push(p.result);
      else this.byKey.set(key, [p.result]);
    }
  }

  /** The reply to this request if the host sent it ahead, parsed like any reply; undefined otherwise. */
  take<M extends MethodName>(method: M, params: Params<M>): { result: Result<M> } | undefined {
    const ahead = this.takeUnparsed(method, params);
    return ahead && { result: parseResult(this.methods, method, ahead.value) };
  }

  /** The reply to this request if the host sent it ahead, as sent; undefined otherwise. */
  takeUnparsed<M extends MethodName>(method: M, params: Params<M>): { value: unknown } | undefined {
    if (!this.byKey.size) return undefined;
    const key = requestKey(method, params as Record<string, unknown>);
    const queued = this.byKey.get(key);
    if (!queued?.length) return undefined;
    const value = queued.shift();
    if (!queued.length) this.byKey.delete(key);
    return { value };
  }
}

interface VsCodeApi {
  postMessage(msg: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

class WebviewApi implements HostApi {
  readonly backend = "webview" as const;
  private readonly vscode = acquireVsCodeApi();
  private nextId = 1;
  private readonly pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  private initWaiter: ((m: { context: InitContext; snapshot: Record<string, unknown> | null }) => void) | null = null;
  private readonly changed: Array<() => void> = [];
  private context: InitContext | null = null;
  private readonly preloaded: PreloadedReplies;

  constructor(private readonly methods: MethodTable) {
    this.preloaded = new PreloadedReplies(methods);
    window.addEventListener("message", (ev: MessageEvent<unknown>) => {
      // Messages the page posts to itself are not the host's: Monaco schedules its work with
      // `window.postMessage({ vscodeScheduleAsyncWork })`.
      if (ev.source === window) return;
      const parsed = FromHost.safeParse(ev.data);
      if (!parsed.success) return console.warn("ignored a malformed host message", parsed.error.issues[0]);
      const m = parsed.data;
      if (m.kind === "init") {
        const saved = this.vscode.getState();
        const snapshot = m.snapshot ?? (saved && typeof saved === "object" ? (saved as Record<string, unknown>) : null);
        this.context = m.context;
        this.preloaded.add(m.preload);
        this.initWaiter?.({ context: m.context, snapshot });
      } else if (m.kind === "response") {
        const p = this.pending.get(m.id);
        this.pending.delete(m.id);
        if (m.ok) p?.resolve(m.result);
        else p?.reject(new Error(m.error ?? "request failed"));
      } else if (m.kind === "changed") for (const cb of this.changed) cb();
    });
  }

  init(): Promise<{ context: InitContext; snapshot: Record<string, unknown> | null }> {
    return new Promise((resolve) => {
      this.initWaiter = resolve;
      this.vscode.postMessage({ kind: "ready" });
    });
  }

  request<M extends MethodName>(method: M, params: Params<M>): Promise<Result<M>> {
    const ahead = this.preloaded.take(method, params);
    if (ahead) return Promise.resolve(ahead.result);
    return this.send(method, params).then((v) => parseResult(this.methods, method, v));
  }

  requestUnparsed<M extends MethodName>(method: M, params: Params<M>): Promise<unknown> {
    const ahead = this.preloaded.takeUnparsed(method, params);
    return ahead ? Promise.resolve(ahead.value) : this.send(method, params);
  }

  private send<M extends MethodName>(method: M, params: Params<M>): Promise<unknown> {
    const id = this.nextId++;
    return new Promise<unknown>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.vscode.postMessage({ kind: "request", id, method, params });
    });
  }

  saveState(state: Record<string, unknown>): void {
    // The context rides along so VS Code can restore the panel after a reload (its serializer reads it).
    this.vscode.setState({ ...state, __context: this.context });
    this.vscode.postMessage({ kind: "snapshot", state });
  }

  open(app: "trajectory" | "dashboard", target: string, compare?: string, more?: string[], row?: number): void {
    this.vscode.postMessage({
      kind: "open",
      app,
      target,
      ...(compare ? { compare } : {}),
      ...(more?.length ? { more } : {}),
      ...(row !== undefined ? { row } : {}),
    });
  }

  onChanged(cb: () => void): void {
    this.changed.push(cb);
  }
}

class HttpApi implements HostApi {
  readonly backend = "http" as const;
  private readonly token = new URLSearchParams(location.search).get("token") ?? "";
  private nextId = 1;
  private readonly stateKey = `rlenv:${location.search}`;
  private readonly preloaded: PreloadedReplies;

  constructor(private readonly methods: MethodTable) {
    this.preloaded = new PreloadedReplies(methods);
  }

  private headers(): Record<string, string> {
    return { authorization: `Bearer ${this.token}`, "content-type": "application/json" };
  }

  /** The init reply the server sent inside the page (read once), else asked for. */
  private async initMessage(): Promise<unknown> {
    // The bundle may run (async) before the rest of the page has arrived: the block follows its tag.
    if (document.readyState === "loading") {
      await new Promise<void>((resolve) => document.addEventListener("DOMContentLoaded", () => resolve(), { once: true }));
    }
    const sent = document.getElementById(INIT_ELEMENT_ID);
    if (sent) {
      sent.remove();
      return JSON.parse(sent.textContent ?? "");
    }
    const q = new URLSearchParams(location.search);
    q.delete("token");
    const res = await fetch(`/api/init?${q}`, { headers: this.headers() });
    if (!res.ok) throw new Error(`init: ${res.status} ${await res.text()}`);
    return res.json();
  }

  async init(): Promise<{ context: InitContext; snapshot: Record<string, unknown> | null }> {
    const m = FromHost.parse(await this.initMessage());
    if (m.kind !== "init") throw new Error("init: unexpected reply");
    this.preloaded.add(m.preload);
    let snapshot: Record<string, unknown> | null = null;
    try {
      const saved = sessionStorage.getItem(this.stateKey);
      snapshot = saved ? (JSON.parse(saved) as Record<string, unknown>) : null;
    } catch {
      snapshot = null;
    }
    return { context: m.context, snapshot };
  }

  async request<M extends MethodName>(method: M, params: Params<M>): Promise<Result<M>> {
    const ahead = this.preloaded.take(method, params);
    if (ahead) return ahead.result;
    return parseResult(this.methods, method, await this.send(method, params));
  }

  async requestUnparsed<M extends MethodName>(method: M, params: Params<M>): Promise<unknown> {
    const ahead = this.preloaded.takeUnparsed(method, params);
    return ahead ? ahead.value : this.send(method, params);
  }

  private async send<M extends MethodName>(method: M, params: Params<M>): Promise<unknown> {
    const res = await fetch("/api/request", {
      method: "POST",
      headers: this.headers(),
      body: JSON.stringify({ kind: "request", id: this.nextId++, method, params }),
    });
    if (!res.ok) throw new Error(`${method}: ${res.status} ${await res.text()}`);
    const m = FromHost.parse(await res.json());
    if (m.kind !== "response") throw new Error(`${method}: unexpected reply`);
    if (!m.ok) throw new Error(m.error ?? `${method} failed`);
    return m.result;
  }

  saveState(state: Record<string, unknown>): void {
    try {
      sessionStorage.setItem(this.stateKey, JSON.stringify(state));
    } catch {
      // Storage full or disabled: the view still works, it just starts fresh on reload.
    }
  }

  open(app: "trajectory" | "dashboard", target: string, compare?: string, more?: string[], row?: number): void {
    const q = new URLSearchParams({ token: this.token, app, file: target });
    if (row !== undefined) q.set("row", String(row));
    if (compare) q.set("compare", compare);
    for (const m of more ?? []) q.append("compare", m);
    location.assign(`/?${q}`);
  }

  onChanged(_cb: () => void): void {}
}

/** The host API for this page's backend; `methods`: the schemas the app parses its first screen's replies with (others load on use). */
export function createApi(methods: MethodTable = {}): HostApi {
  return document.body.dataset.backend === "webview" ? new WebviewApi(methods) : new HttpApi(methods);
}
