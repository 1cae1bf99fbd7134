import { closeSync, existsSync, openSync, readFileSync, readSync, statSync } from "node:fs";
import path from "node:path";
import type { AppName } from "../protocol/names";

/**
 * What `rlenv view PATH` serves, told from the path alone. Kept apart from the server's
 * request handling (and free of schemas) because the CLI needs it before it can listen, and
 * everything loaded before the URL is printed is on the way to the first painted step.
 */
export interface ViewTarget {
  /** The folder requests are confined to. */
  root: string;
  app: AppName;
  /** File, run folder or audit.json relative to root. */
  target: string;
}

/** The file `rlenv audit --out DIR` writes, and the name the viewer looks for in a folder. */
export const AUDIT_FILE = "audit.json";

/** Whether a path is an audit report `rlenv view` should show: an audit.json, or a folder holding one that is not a run folder. */
export function auditFileOf(p: string): string | null {
  const abs = path.resolve(p);
  if (!existsSync(abs)) return null;
  if (statSync(abs).isDirectory()) {
    if (existsSync(path.join(abs, "run.json")) || existsSync(path.join(abs, "rollouts"))) return null;
    return existsSync(path.join(abs, AUDIT_FILE)) ? path.join(abs, AUDIT_FILE) : null;
  }
  if (!abs.endsWith(".json")) return null;
  try {
    const v = JSON.parse(readFileSync(abs, "utf8")) as { version?: unknown; environments?: unknown; runs_dir?: unknown };
    return v && typeof v === "object" && Array.isArray(v.environments) && typeof v.runs_dir === "string" ? abs : null;
  } catch {
    return null;
  }
}

/**
 * What `rlenv view PATH` serves: a rollout file (its run folder is the root when there is one), a
 * run folder, or an audit report (an audit.json, or the `rlenv audit --out` folder holding one:
 * its folder is the root, so the trajectories under its runs/ open from the report).
 */
export function targetFor(p: string): ViewTarget {
  const abs = path.resolve(p);
  if (!existsSync(abs)) throw new Error(`${p}: no such file or folder`);
  const audit = auditFileOf(abs);
  if (audit) return { root: path.dirname(audit), app: "audit", target: path.basename(audit) };
  // An audit.json that does not parse is still an audit report: the audit app names what is wrong
  // with it (file, line, field), where the trajectory app would wait forever for its first event.
  if (path.basename(abs) === AUDIT_FILE && statSync(abs).isFile()) return { root: path.dirname(abs), app: "audit", target: AUDIT_FILE };
  if (abs.endsWith(".json") && !startsLikeTrajectory(abs))
    throw new Error(`${p}: neither a trajectory (JSONL, one event a line) nor an audit report (${AUDIT_FILE})`);
  if (statSync(abs).isDirectory()) {
    if (!existsSync(path.join(abs, "rollouts")) && !existsSync(path.join(abs, "run.json")))
      throw new Error(`${p}: not a run folder (no run.json or rollouts/)`);
    return { root: abs, app: "dashboard", target: "." };
  }
  const dir = path.dirname(abs);
  const root = path.basename(dir) === "rollouts" ? path.dirname(dir) : dir;
  return { root, app: "trajectory", target: path.relative(root, abs).split(path.sep).join("/") };
}

/** Whether a .json file's first line is a JSON object with a `type` (a trajectory event), read from its first 64 KiB. */
function startsLikeTrajectory(file: string): boolean {
  const fd = openSync(file, "r");
  try {
    const buf = Buffer.alloc(64 * 1024);
    const n = readSync(fd, buf, 0, buf.length, 0);
    const text = buf
      .subarray(0, n)
      .toString("utf8")
      .replace(/^\uFEFF/, "");
    const first = text.split("\n")[0]!.trim();
    if (first === "") return n === 0;
    // A first line longer than what was read: an object is all that can be told.
    if (!text.includes("\n") && n === buf.length) return first.startsWith("{");
    const v = JSON.parse(first) as unknown;
    return typeof v === "object" && v !== null && typeof (v as { type?: unknown }).type === "string";
  } catch {
    return false;
  } finally {
    closeSync(fd);
  }
}
