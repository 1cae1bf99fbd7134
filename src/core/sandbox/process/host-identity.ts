import type { IsolationMode } from "./isolation";

/**
 * Who a process sandbox's user is on the host. Under bubblewrap started by root the sandbox
 * user was host root (bwrap maps the sandbox uid onto its caller's), so a file chmod 4755
 * inside was a setuid-root program in the host's sandbox folder; root now starts bwrap as an
 * unprivileged host uid of its own instead: HOST_ID_BASE plus the sandbox's uid (and gid),
 * which no account of the host has. bwrap started by another user maps onto that user (as
 * unprivileged as the caller); unshare has no user namespace: the sandbox uid is the host's.
 */

/** Where the host uids and gids of root's bwrap sandboxes start (RLENV_SANDBOX_ID_BASE overrides it). */
export const HOST_ID_BASE = 1_000_000;

export interface HostIdentity {
  uid: number;
  gid: number;
}

function idBase(env: NodeJS.ProcessEnv): number {
  const n = Number(env.RLENV_SANDBOX_ID_BASE);
  return Number.isInteger(n) && n > 0 ? n : HOST_ID_BASE;
}

/** The sandbox user's host identity, when the host must hand it its folders; null: the caller's own (nothing to hand over). */
export function hostIdentity(mode: IsolationMode, user: HostIdentity, env: NodeJS.ProcessEnv = process.env): HostIdentity | null {
  if (mode === "unshare") return user;
  if (mode === "bwrap" && process.getuid?.() === 0) return { uid: idBase(env) + user.uid, gid: idBase(env) + user.gid };
  return null;
}
