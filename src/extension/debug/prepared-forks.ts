import type { LaunchedRollout } from "./adapter";

/**
 * Forks waiting for their own debug session. The fork command prepares the rollout (state
 * copied from the paused parent) and starts a child session whose launch configuration
 * carries only this id: the state (a policy object, a sandbox provider, file contents) is
 * not JSON and must not travel through launch.json-shaped configuration.
 */
const prepared = new Map<string, LaunchedRollout>();
let next = 1;

/** Keeps a prepared fork; the id goes in the child session's configuration as `forkId`. */
export function putFork(r: LaunchedRollout): string {
  const id = `fork-${next++}`;
  prepared.set(id, r);
  return id;
}

/** The prepared fork of that id, handed over once (a second launch with the same id is refused). */
export function takeFork(id: string): LaunchedRollout {
  const r = prepared.get(id);
  if (!r)
    throw new Error(
      `no prepared fork '${id}': a fork's debug session starts from the Fork command while its parent rollout is paused, once`,
    );
  prepared.delete(id);
  return r;
}

/** Drops a fork whose session did not start, releasing what it holds. */
export async function dropFork(id: string): Promise<void> {
  const r = prepared.get(id);
  prepared.delete(id);
  await r?.dispose();
}
