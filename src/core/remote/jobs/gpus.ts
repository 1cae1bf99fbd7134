import { execFile } from "node:child_process";
import type { GpuInfo } from "../api";

/**
 * GPUs as nvidia-smi reports them; an empty list with the reason where there is none.
 * RLENV_NVIDIA_SMI names another program to ask (a replay of a recorded answer where a
 * host has no GPU): its output goes through the same parser.
 */
export function queryGpus(): Promise<{ gpus: GpuInfo[]; error?: string }> {
  const program = process.env.RLENV_NVIDIA_SMI || "nvidia-smi";
  return new Promise((resolve) => {
    execFile(
      program,
      ["--query-gpu=index,name,memory.total,memory.used,utilization.gpu", "--format=csv,noheader,nounits"],
      { timeout: 5000 },
      (err, stdout) => {
        if (err) {
          resolve({
            gpus: [],
            error: (err as NodeJS.ErrnoException).code === "ENOENT" ? `${program} not found` : err.message.split("\n")[0],
          });
          return;
        }
        resolve({ gpus: parseNvidiaSmi(stdout) });
      },
    );
  });
}

/** Parses `nvidia-smi --query-gpu=index,name,memory.total,memory.used,utilization.gpu --format=csv,noheader,nounits`. */
export function parseNvidiaSmi(csv: string): GpuInfo[] {
  const out: GpuInfo[] = [];
  for (const line of csv.split("\n")) {
    const cells = line.split(",").map((c) => c.trim());
    if (cells.length < 5) continue;
    const [index, name, total, used, util] = cells;
    const num = (s: string | undefined) => {
      const n = Number.parseFloat(s ?? "");
      return Number.isFinite(n) ? n : 0;
    };
    out.push({ index: num(index), name: name ?? "", memory_total_mib: num(total), memory_used_mib: num(used), utilisation: num(util) });
  }
  return out;
}
