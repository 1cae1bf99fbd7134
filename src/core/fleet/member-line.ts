import type { MemberHealth } from "./heartbeat";

/** How the Runners view and `rlenv` show one pool member: its state, then its load or why it is not up. */
export function describeMember(h: MemberHealth, now = Date.now()): { state: string; detail: string } {
  if (h.state !== "up" || !h.status) {
    const since = h.last_ok ? `, last answer ${Math.round((now - h.last_ok) / 1000)} s ago` : "";
    return { state: h.state, detail: `${h.last_error ?? "no answer"}${since}` };
  }
  const s = h.status;
  const gpus = s.gpus.count > 0 ? ` · ${s.gpus.idle}/${s.gpus.count} GPUs idle` : ` · ${s.cpus} CPUs`;
  return { state: "up", detail: `${s.slots.running}/${s.slots.total} jobs · ${s.queue} queued${gpus}` };
}

/** The pool's health in a line: how many members are up, of how many. */
export function describePool(members: readonly MemberHealth[]): string {
  const up = members.filter((m) => m.state === "up").length;
  return `${up}/${members.length} up`;
}
