import { textFiles } from "../../model/file-content";
import type { Sandbox } from "../../model/sandbox";
import type { FileDiff } from "../../schema/trajectory";
import type { ToolContext } from "../../model/domain";
import { taskSeed } from "../../sandbox/task-files";

const KNOWN = "code.knownFiles";

/** Files no agent wrote on purpose: byte-code caches and test-runner caches. */
export function isNoise(rel: string): boolean {
  return /(^|\/)(__pycache__|\.pytest_cache|\.mypy_cache)(\/|$)|\.py[co]$/.test(rel);
}

/**
 * What the rollout knows of each changed file's current text (null: deleted), so each
 * observation carries only the change its own call made, not everything since the seed.
 */
function known(ctx: Pick<ToolContext, "state">): Map<string, string | null> {
  let m = ctx.state.get(KNOWN) as Map<string, string | null> | undefined;
  if (!m) {
    m = new Map();
    ctx.state.set(KNOWN, m);
  }
  return m;
}

/**
 * What a fork carries of a code rollout: what it knew of each changed file. Without it the
 * fork's first command would report every change made before the fork as its own (its
 * diffs compare against what the rollout knew, which a fresh rollout takes from the seed).
 */
export function knownFiles(ctx: Pick<ToolContext, "state">): Record<string, string | null> | undefined {
  const m = known(ctx);
  return m.size > 0 ? Object.fromEntries(m) : undefined;
}

/** Takes back what knownFiles gave a fork. */
export function restoreKnownFiles(ctx: Pick<ToolContext, "state">, saved: unknown): void {
  if (!saved || typeof saved !== "object" || Array.isArray(saved)) throw new Error("the fork's file state is not an object of path → text");
  const m = known(ctx);
  for (const [rel, text] of Object.entries(saved)) {
    if (text !== null && typeof text !== "string") throw new Error(`the fork's file state for ${rel} is not text`);
    m.set(rel, text);
  }
}

/**
 * The text of what the engine seeds the workdir with at reset: the task's files and its
 * visible tests. A binary seed is left out: its text is not known, so the sandbox is asked.
 */
function seedFiles(ctx: Pick<ToolContext, "task">): Record<string, string> {
  return textFiles(taskSeed(ctx.task));
}

/** The text a file had before this call, when the rollout already knows it without asking the sandbox. */
export function knownText(ctx: Pick<ToolContext, "state" | "task">, rel: string): string | null | undefined {
  const m = known(ctx);
  if (m.has(rel)) return m.get(rel) ?? null;
  return seedFiles(ctx)[rel];
}

/** Note a change a file tool made and return it as an observation diff. */
export function noteChange(ctx: Pick<ToolContext, "state">, rel: string, before: string | null, after: string | null): FileDiff {
  known(ctx).set(rel, after);
  const status = before === null ? "added" : after === null ? "deleted" : "modified";
  return { path: rel, status, before, after };
}

/**
 * After a command that may touch any file: compare the sandbox's diff against the seed
 * with what the rollout knew, and return only what this command changed.
 */
export async function changesSinceLastCall(ctx: Pick<ToolContext, "state" | "task">, sandbox: Sandbox): Promise<FileDiff[]> {
  const m = known(ctx);
  const seed = seedFiles(ctx);
  const current = new Map<string, FileDiff>();
  for (const d of await sandbox.diff()) if (!isNoise(d.path)) current.set(d.path, d);
  const out: FileDiff[] = [];
  for (const [rel, d] of current) {
    const was = m.has(rel) ? (m.get(rel) ?? null) : d.before;
    if (was === d.after) continue;
    out.push({ ...d, before: was, status: was === null ? "added" : d.after === null ? "deleted" : "modified" });
    m.set(rel, d.after);
  }
  // A file the rollout had changed and that is back to its seed no longer shows in the diff.
  for (const [rel, text] of m) {
    if (current.has(rel)) continue;
    const seedText = seed[rel] ?? null;
    if (text === seedText) continue;
    out.push({ path: rel, status: seedText === null ? "deleted" : text === null ? "added" : "modified", before: text, after: seedText });
    m.set(rel, seedText);
  }
  return out.sort((a, b) => (a.path < b.path ? -1 : 1));
}
