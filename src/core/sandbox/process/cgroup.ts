import { existsSync, mkdirSync, readFileSync, readdirSync, rmdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { liveProcess } from "../host-procs";
import { ownerAlive, ownerOfName } from "../../util/owner";

const ROOT = "/sys/fs/cgroup";

/** Which cgroup layout the host has, and whether we may create groups in it. */
function layout(): "v1" | "v2" | null {
  try {
    if (existsSync(path.join(ROOT, "cgroup.controllers"))) {
      mkdirSync(path.join(ROOT, "rlenv"), { recursive: true });
      // Delegate memory and pids to the children of rlenv/ (a no-op where already on).
      writeFileSync(path.join(ROOT, "cgroup.subtree_control"), "+memory +pids +cpu");
      writeFileSync(path.join(ROOT, "rlenv", "cgroup.subtree_control"), "+memory +pids +cpu");
      return "v2";
    }
    if (existsSync(path.join(ROOT, "memory")) && existsSync(path.join(ROOT, "pids"))) {
      mkdirSync(path.join(ROOT, "memory", "rlenv"), { recursive: true });
      mkdirSync(path.join(ROOT, "pids", "rlenv"), { recursive: true });
      return "v1";
    }
  } catch {
    return null; // not writable: the caller falls back to rlimits
  }
  return null;
}

let detected: "v1" | "v2" | null | undefined;

function readCounter(file: string, key: string): number {
  try {
    for (const line of readFileSync(file, "utf8").split("\n")) {
      const [k, v] = line.split(/\s+/);
      if (k === key) return Number(v);
    }
  } catch {}
  return 0;
}

/**
 * A memory + pids (+ cpu) cgroup for one process sandbox, where the host lets us write one.
 * Groups are named `<owner pid>-<id>` under `rlenv/` so a later start can remove those whose
 * owner is gone.
 */
export class SandboxCgroup {
  private constructor(
    readonly dirs: string[],
    private readonly kind: "v1" | "v2",
  ) {}

  static create(name: string, limits: { memoryBytes: number; pids: number; cpus: number }): SandboxCgroup | null {
    detected ??= layout();
    if (!detected) return null;
    try {
      if (detected === "v2") {
        const dir = path.join(ROOT, "rlenv", name);
        mkdirSync(dir);
        writeFileSync(path.join(dir, "memory.max"), String(limits.memoryBytes));
        if (existsSync(path.join(dir, "memory.swap.max"))) writeFileSync(path.join(dir, "memory.swap.max"), "0");
        writeFileSync(path.join(dir, "pids.max"), String(limits.pids));
        if (existsSync(path.join(dir, "cpu.max"))) writeFileSync(path.join(dir, "cpu.max"), `${Math.round(limits.cpus * 100000)} 100000`);
        return new SandboxCgroup([dir], "v2");
      }
      const mem = path.join(ROOT, "memory", "rlenv", name);
      const pids = path.join(ROOT, "pids", "rlenv", name);
      mkdirSync(mem);
      mkdirSync(pids);
      writeFileSync(path.join(mem, "memory.limit_in_bytes"), String(limits.memoryBytes));
      // No swap: memsw equal to the memory limit, where the kernel accounts swap.
      if (existsSync(path.join(mem, "memory.memsw.limit_in_bytes")))
        writeFileSync(path.join(mem, "memory.memsw.limit_in_bytes"), String(limits.memoryBytes));
      writeFileSync(path.join(mem, "memory.swappiness"), "0");
      writeFileSync(path.join(pids, "pids.max"), String(limits.pids));
      const dirs = [mem, pids];
      const cpu = path.join(ROOT, "cpu", "rlenv", name);
      try {
        mkdirSync(path.dirname(cpu), { recursive: true });
        mkdirSync(cpu);
        writeFileSync(path.join(cpu, "cpu.cfs_period_us"), "100000");
        writeFileSync(path.join(cpu, "cpu.cfs_quota_us"), String(Math.round(limits.cpus * 100000)));
        dirs.push(cpu);
      } catch {}
      return new SandboxCgroup(dirs, "v1");
    } catch {
      return null;
    }
  }

  /** OOM kills so far in this group. */
  oomKills(): number {
    const dir = this.dirs[0] ?? "";
    return this.kind === "v2"
      ? readCounter(path.join(dir, "memory.events"), "oom_kill")
      : readCounter(path.join(dir, "memory.oom_control"), "oom_kill");
  }

  /** Times a fork was refused by the pids limit. */
  pidsLimitHits(): number {
    const dir = this.kind === "v2" ? this.dirs[0] : this.dirs[1];
    return readCounter(path.join(dir ?? "", "pids.events"), "max");
  }

  procs(): number[] {
    const pids = new Set<number>();
    for (const d of this.dirs) {
      try {
        for (const l of readFileSync(path.join(d, "cgroup.procs"), "utf8").split("\n")) if (l) pids.add(Number(l));
      } catch {}
    }
    return [...pids];
  }

  /**
   * SIGKILLs every process of the group but `spared` (the sandbox's machinery: its isolating
   * processes and its agent), whatever its state or threads (a process whose main thread exited
   * reads as a zombie; the kernel lists it here while a thread of it lives), again while a fork
   * races it, for at most `forMs`. Returns the host pids still alive: the group is proven empty
   * of everything else when none is.
   */
  async killAllBut(spared: ReadonlySet<number>, forMs = 2000): Promise<number[]> {
    const until = performance.now() + forMs;
    for (;;) {
      const left = this.procs().filter((p) => !spared.has(p) && liveProcess(p));
      if (left.length === 0 || performance.now() > until) return left;
      for (const p of left) {
        try {
          process.kill(p, "SIGKILL");
        } catch {}
      }
      await new Promise((r) => setTimeout(r, 2));
    }
  }

  /** SIGKILL everything in the group (a fork bomb races this, so loop until empty). */
  killAll(): void {
    if (this.kind === "v2" && existsSync(path.join(this.dirs[0] ?? "", "cgroup.kill"))) {
      try {
        writeFileSync(path.join(this.dirs[0] ?? "", "cgroup.kill"), "1");
        return;
      } catch {}
    }
    for (let round = 0; round < 50; round++) {
      const pids = this.procs();
      if (pids.length === 0) return;
      for (const p of pids) {
        try {
          process.kill(p, "SIGKILL");
        } catch {}
      }
    }
  }

  /** Kills what is left, waits for the kernel to empty the group, then removes it. */
  async remove(): Promise<void> {
    for (let i = 0; i < 200; i++) {
      this.killAll();
      if (this.procs().length === 0) break;
      await new Promise((r) => setTimeout(r, 10));
    }
    await Promise.all(this.dirs.map((d) => removeGroupSoon(d)));
  }
}

const pause = new Int32Array(new SharedArrayBuffer(4));

/** One rmdir of a cgroup: true when it is gone, false when it never will be, null while it is still emptying (EBUSY). */
function rmdirGroup(dir: string): boolean | null {
  try {
    rmdirSync(dir);
    return true;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return true;
    // Only a group still emptying is worth waiting for: one we may not remove never will be.
    return code === "EBUSY" ? null : false;
  }
}

/** rmdir a cgroup, retrying for up to 2 s while killed processes finish exiting (EBUSY); false when it stays. */
function removeGroup(dir: string): boolean {
  for (let i = 0; i < 200; i++) {
    const gone = rmdirGroup(dir);
    if (gone !== null) return gone;
    Atomics.wait(pause, 0, 0, 10);
  }
  return false;
}

/**
 * removeGroup without blocking: the sandbox's close waits here while the rollouts around it go
 * on (the blocking wait held every other rollout's events for as long).
 */
async function removeGroupSoon(dir: string): Promise<boolean> {
  for (let i = 0; i < 200; i++) {
    const gone = rmdirGroup(dir);
    if (gone !== null) return gone;
    await new Promise((r) => setTimeout(r, 10));
  }
  return false;
}

/** Removes rlenv cgroups whose owner process is gone (by pid and start time), after killing what is left in them. */
export function sweepOrphanCgroups(): number {
  let removed = 0;
  const parents = [
    path.join(ROOT, "rlenv"),
    path.join(ROOT, "memory", "rlenv"),
    path.join(ROOT, "pids", "rlenv"),
    path.join(ROOT, "cpu", "rlenv"),
  ];
  for (const parent of parents) {
    let names: string[] = [];
    try {
      names = readdirSync(parent, { withFileTypes: true })
        .filter((d) => d.isDirectory())
        .map((d) => d.name);
    } catch {
      continue;
    }
    for (const n of names) {
      const owner = ownerOfName(n);
      if (!owner || ownerAlive(owner)) continue;
      const dir = path.join(parent, n);
      try {
        for (const l of readFileSync(path.join(dir, "cgroup.procs"), "utf8").split("\n")) if (l) process.kill(Number(l), "SIGKILL");
      } catch {}
      if (removeGroup(dir)) removed++;
    }
  }
  return removed;
}
