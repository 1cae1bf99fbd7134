import { existsSync, readFileSync } from "node:fs";
import { isMap, isScalar, LineCounter, parseDocument } from "yaml";
import { z } from "zod";
import { RunnerClient } from "../remote/client/client";
import { loadToken, type RunnerEntry, RunnerEntry as RunnerEntrySchema, runnersFile } from "../remote/client/client-config";

/**
 * A pool in the client's runners.yaml, beside the runners it names:
 *   pools:
 *     lab: { members: [gpu-a, gpu-b, gpu-c], heartbeat_s: 10, stall_s: 120 }
 */
export const PoolEntry = z.object({
  members: z.array(z.string().min(1)).min(1).describe("Runner names from `runners:` (or URLs)"),
  heartbeat_s: z
    .number()
    .positive()
    .default(10)
    .describe("A member whose /v1/status has not answered for this long is down: its shards go elsewhere"),
  stall_s: z
    .number()
    .positive()
    .default(120)
    .describe("A shard with no rollout ended for this long, while other shards end rollouts, is stalled: it goes elsewhere"),
  max_failovers: z
    .number()
    .int()
    .nonnegative()
    .default(3)
    .describe("Times one rollout may be moved to another member before the job fails"),
});
export type PoolEntry = z.infer<typeof PoolEntry>;

const PoolsFile = z.object({
  runners: z.record(z.string(), RunnerEntrySchema).default({}),
  pools: z.record(z.string(), PoolEntry).default({}),
});

export interface PoolMember {
  name: string;
  url: string;
  client: RunnerClient;
}

export interface LoadedPool {
  name: string;
  settings: PoolEntry;
  members: PoolMember[];
}

/** A problem in the pools file, with where it is. */
export class PoolConfigError extends Error {
  override name = "PoolConfigError";
}

/** The pools of a runners.yaml: every problem names the file, its line and the field. */
export function readPools(file = runnersFile()): { runners: Record<string, RunnerEntry>; pools: Record<string, PoolEntry> } {
  if (!existsSync(file)) return { runners: {}, pools: {} };
  const text = readFileSync(file, "utf8");
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines });
  const where = (p: readonly PropertyKey[]): string => {
    // The deepest node of the path that exists: a missing field is reported at its parent.
    for (let n = p.length; n >= 0; n--) {
      const node = doc.getIn(p.slice(0, n) as (string | number)[], true) as { range?: [number, number, number] } | undefined;
      const key = n > 0 ? keyNode(doc.getIn(p.slice(0, n - 1) as (string | number)[], true), p[n - 1]) : undefined;
      const at = key?.range?.[0] ?? node?.range?.[0];
      if (at !== undefined) return `${file}:${lines.linePos(at).line}`;
    }
    return `${file}:1`;
  };
  if (doc.errors.length > 0) {
    const e = doc.errors[0];
    throw new PoolConfigError(`${file}:${e?.linePos?.[0]?.line ?? 1}: ${e?.message ?? "not YAML"}`);
  }
  const parsed = PoolsFile.safeParse(doc.toJS() ?? {});
  if (!parsed.success) {
    const i = parsed.error.issues[0];
    const p = i?.path ?? [];
    throw new PoolConfigError(`${where(p)}: ${p.join(".")}: ${i?.message ?? "invalid"}`);
  }
  const { runners, pools } = parsed.data;
  for (const [name, pool] of Object.entries(pools)) {
    pool.members.forEach((m, i) => {
      if (!/^https?:\/\//.test(m) && !runners[m])
        throw new PoolConfigError(
          `${where(["pools", name, "members", i])}: pools.${name}.members.${i}: no runner "${m}" under runners:${Object.keys(runners).length ? ` (known: ${Object.keys(runners).join(", ")})` : ""}`,
        );
    });
    const seen = new Set<string>();
    pool.members.forEach((m, i) => {
      if (seen.has(m))
        throw new PoolConfigError(`${where(["pools", name, "members", i])}: pools.${name}.members.${i}: "${m}" is named twice`);
      seen.add(m);
    });
  }
  return { runners, pools };
}

function keyNode(parent: unknown, key: PropertyKey | undefined): { range?: [number, number, number] } | undefined {
  if (!isMap(parent) || key === undefined) return undefined;
  const pair = parent.items.find((it) => isScalar(it.key) && String(it.key.value) === String(key));
  return pair && isScalar(pair.key) ? (pair.key as { range?: [number, number, number] }) : undefined;
}

/** A pool by name, each member with a client (tokens as for `--runner`); overrides replace the file's settings. */
export function loadPool(name: string, overrides: Partial<PoolEntry> = {}, file = runnersFile()): LoadedPool {
  const { runners, pools } = readPools(file);
  const pool = pools[name];
  if (!pool)
    throw new PoolConfigError(
      `no pool "${name}" in ${file}${Object.keys(pools).length ? ` (pools: ${Object.keys(pools).join(", ")})` : " (add one under pools:)"}`,
    );
  const settings = { ...pool, ...Object.fromEntries(Object.entries(overrides).filter(([, v]) => v !== undefined)) } as PoolEntry;
  const members = pool.members.map((m) => {
    const entry = /^https?:\/\//.test(m) ? { url: m } : runners[m];
    if (!entry) throw new PoolConfigError(`${file}: pools.${name}: no runner "${m}"`);
    const key = /^https?:\/\//.test(m) ? new URL(m).host : m;
    return {
      name: m,
      url: entry.url,
      client: new RunnerClient({ url: entry.url, token: loadToken(key), ...("ca" in entry && entry.ca ? { ca: entry.ca } : {}) }),
    };
  });
  return { name, settings, members };
}
