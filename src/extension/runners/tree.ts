import * as vscode from "vscode";
import type { Health, JobRecord } from "../../core/remote/api";
import { TERMINAL_STATES } from "../../core/remote/api";
import type { MemberHealth } from "../../core/fleet/heartbeat";
import { probePool } from "../../core/fleet/heartbeat";
import { describeMember, describePool } from "../../core/fleet/member-line";
import type { PoolMember } from "../../core/fleet/pool-config";
import type { RunnerRegistry } from "./registry";

export type RunnerNode =
  | { kind: "runner"; runner: string }
  | { kind: "health"; runner: string; health?: Health; error?: string }
  | { kind: "gpu"; runner: string; label: string; detail: string }
  | { kind: "job"; runner: string; job: JobRecord }
  | { kind: "pool"; pool: string }
  | { kind: "member"; pool: string; health: MemberHealth };

interface RunnerState {
  health?: Health;
  error?: string;
  jobs: JobRecord[];
}

/**
 * The Runners view: each runner with its health (Docker, GPUs) and its jobs with live
 * progress. Running jobs are followed over SSE and their rows update as events arrive.
 */
export class RunnersTree implements vscode.TreeDataProvider<RunnerNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<RunnerNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly state = new Map<string, RunnerState>();
  /** Each pool's members as last asked (`/v1/status`, a few seconds' timeout each). */
  private readonly poolHealth = new Map<string, MemberHealth[]>();
  /** One SSE follower per running job, keyed runner/job. */
  private readonly followers = new Map<string, AbortController>();
  private readonly sub: vscode.Disposable;

  constructor(
    private readonly registry: RunnerRegistry,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.sub = registry.onDidChange(() => void this.refresh());
  }

  /** Re-reads health and jobs of every runner. */
  async refresh(): Promise<void> {
    await Promise.all([
      ...this.registry.list().map((r) => this.refreshRunner(r.name)),
      ...this.registry.pools().map((p) => this.refreshPool(p.name)),
    ]);
    this.changed.fire(undefined);
  }

  /** Asks every member of a pool for its status: up with its load, or down with why. */
  async refreshPool(name: string): Promise<MemberHealth[]> {
    const pool = this.registry.pools().find((p) => p.name === name);
    if (!pool) return [];
    const members = await Promise.all(
      pool.members.map(async (m): Promise<PoolMember | MemberHealth> => {
        try {
          const client = await this.registry.client(m);
          return { name: m, url: this.registry.get(m)?.url ?? m, client };
        } catch (e) {
          return { name: m, url: this.registry.get(m)?.url ?? "", state: "down", last_error: (e as Error).message };
        }
      }),
    );
    const asked = await probePool(members.filter((m): m is PoolMember => "client" in m));
    const health = members.map((m) =>
      "client" in m ? (asked.find((a) => a.name === m.name) ?? { name: m.name, url: m.url, state: "down" as const }) : m,
    );
    this.poolHealth.set(name, health);
    this.changed.fire(undefined);
    return health;
  }

  /** A pool's members as last asked (for commands and tests). */
  poolMembers(name: string): readonly MemberHealth[] {
    return this.poolHealth.get(name) ?? [];
  }

  async refreshRunner(name: string): Promise<void> {
    const st: RunnerState = this.state.get(name) ?? { jobs: [] };
    try {
      const client = await this.registry.client(name);
      const [health, jobs] = await Promise.all([client.health(), client.jobs()]);
      st.health = health;
      st.jobs = jobs;
      delete st.error;
      for (const j of jobs) if (!TERMINAL_STATES.includes(j.state)) this.follow(name, j.id);
    } catch (e) {
      st.error = (e as Error).message;
      this.log.warn(`runner ${name}: ${st.error}`);
    }
    this.state.set(name, st);
    this.changed.fire(undefined);
  }

  job(runner: string, id: string): JobRecord | undefined {
    return this.state.get(runner)?.jobs.find((j) => j.id === id);
  }

  /** Follows a job's events, keeping its row's progress and state current. */
  follow(runner: string, jobId: string): void {
    const key = `${runner}/${jobId}`;
    if (this.followers.has(key)) return;
    const abort = new AbortController();
    this.followers.set(key, abort);
    void (async () => {
      try {
        const client = await this.registry.client(runner);
        await client.followEvents(
          jobId,
          (ev) => {
            const job = this.job(runner, jobId);
            if (!job) return;
            if (ev.type === "progress") job.progress = { done: ev.done, total: ev.total, mean_reward: ev.mean_reward };
            else if (ev.type === "state") job.state = ev.state;
            else return;
            this.changed.fire(undefined);
          },
          { signal: abort.signal },
        );
      } catch (e) {
        this.log.warn(`following job ${jobId} on ${runner}: ${(e as Error).message}`);
      } finally {
        this.followers.delete(key);
        if (!abort.signal.aborted) await this.refreshRunner(runner);
      }
    })();
  }

  getTreeItem(node: RunnerNode): vscode.TreeItem {
    switch (node.kind) {
      case "pool": {
        const members = this.poolHealth.get(node.pool) ?? [];
        const item = new vscode.TreeItem(node.pool, vscode.TreeItemCollapsibleState.Expanded);
        item.description = `pool · ${members.length ? describePool(members) : "not asked yet"}`;
        item.iconPath = new vscode.ThemeIcon("server-environment");
        item.contextValue = "pool";
        item.id = `pool/${node.pool}`;
        return item;
      }
      case "member": {
        const { state, detail } = describeMember(node.health);
        const item = new vscode.TreeItem(node.health.name, vscode.TreeItemCollapsibleState.None);
        item.description = `${state} · ${detail}`;
        item.tooltip = `${node.health.url}\n${state}: ${detail}`;
        item.iconPath = new vscode.ThemeIcon(state === "up" ? "pass" : state === "unknown" ? "question" : "error");
        item.id = `pool/${node.pool}/${node.health.name}`;
        return item;
      }
      case "runner": {
        const r = this.registry.get(node.runner);
        const st = this.state.get(node.runner);
        const item = new vscode.TreeItem(node.runner, vscode.TreeItemCollapsibleState.Expanded);
        item.description = st?.error ? "unreachable" : `${r?.url ?? ""}`;
        item.tooltip = st?.error ?? `${r?.url} (${r?.source})`;
        item.iconPath = new vscode.ThemeIcon(st?.error ? "debug-disconnect" : "server");
        item.contextValue = "runner";
        return item;
      }
      case "health": {
        const h = node.health;
        const item = new vscode.TreeItem(
          node.error ? "not reachable" : "health",
          h && h.gpus.length > 0 ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None,
        );
        item.description = node.error
          ? node.error
          : h
            ? `${h.docker.available ? "Docker" : "no Docker"} · ${h.gpus.length} GPU${h.gpus.length === 1 ? "" : "s"} · ${h.capacity.running}/${h.capacity.concurrent_jobs} running · ${h.queue} queued`
            : "";
        item.iconPath = new vscode.ThemeIcon(node.error ? "error" : "pulse");
        return item;
      }
      case "gpu": {
        const item = new vscode.TreeItem(node.label, vscode.TreeItemCollapsibleState.None);
        item.description = node.detail;
        item.iconPath = new vscode.ThemeIcon("circuit-board");
        return item;
      }
      case "job": {
        const j = node.job;
        const item = new vscode.TreeItem(j.name ?? j.env.name, vscode.TreeItemCollapsibleState.None);
        const reward = j.progress.mean_reward === null ? "" : ` · reward ${j.progress.mean_reward.toFixed(2)}`;
        item.description = `${j.state} · ${j.progress.done}/${j.progress.total}${reward} · ${j.spec.executor}`;
        item.tooltip = `${j.id}\n${j.env.name} (${j.env.hash.slice(0, 12)})\ncreated ${j.created}${j.error ? `\n${j.error}` : ""}`;
        item.iconPath = new vscode.ThemeIcon(ICONS[j.state] ?? "circle-outline");
        item.contextValue = TERMINAL_STATES.includes(j.state) ? "job" : "job-active";
        item.id = `${node.runner}/${j.id}`;
        return item;
      }
    }
  }

  getChildren(node?: RunnerNode): RunnerNode[] {
    if (!node)
      return [
        ...this.registry.pools().map((p) => ({ kind: "pool" as const, pool: p.name })),
        ...this.registry.list().map((r) => ({ kind: "runner" as const, runner: r.name })),
      ];
    if (node.kind === "pool")
      return (this.poolHealth.get(node.pool) ?? []).map((health) => ({ kind: "member" as const, pool: node.pool, health }));
    if (node.kind === "runner") {
      const st = this.state.get(node.runner);
      return [
        { kind: "health", runner: node.runner, ...(st?.health ? { health: st.health } : {}), ...(st?.error ? { error: st.error } : {}) },
        ...(st?.jobs ?? []).map((job) => ({ kind: "job" as const, runner: node.runner, job })),
      ];
    }
    if (node.kind === "health")
      return (node.health?.gpus ?? []).map((g) => ({
        kind: "gpu" as const,
        runner: node.runner,
        label: `GPU ${g.index}: ${g.name}`,
        detail: `${g.utilisation}% · ${g.memory_used_mib}/${g.memory_total_mib} MiB`,
      }));
    return [];
  }

  dispose(): void {
    for (const f of this.followers.values()) f.abort();
    this.sub.dispose();
    this.changed.dispose();
  }
}

const ICONS: Record<string, string> = {
  queued: "clock",
  running: "sync~spin",
  completed: "pass",
  failed: "error",
  cancelled: "circle-slash",
  interrupted: "warning",
};
