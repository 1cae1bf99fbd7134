import { shq } from "../util/shell-quote";
import type { TreeFile } from "../model/harbor";

/**
 * The one command the oracle runs for a Harbor task, as Harbor's oracle agent does: the
 * task's solution/ goes to /solution (bytes carried in the command, base64, so no host path
 * is needed), then `/solution/solve.sh > /logs/agent/oracle.txt 2>&1` runs in the workdir as
 * root with DEBIAN_FRONTEND=noninteractive and `[solution].env`. Its exit status is reported,
 * never graded (Harbor ignores it too); the tests decide.
 */
export function oracleCommand(solution: Map<string, TreeFile>, env: Record<string, string>): string {
  const lines = ["rm -rf /solution && mkdir -p /solution /logs/agent /logs/verifier /logs/artifacts"];
  const dirs = new Set<string>();
  for (const p of solution.keys()) {
    const parts = p.split("/");
    for (let i = 1; i < parts.length; i++) dirs.add(parts.slice(0, i).join("/"));
  }
  for (const d of [...dirs].sort()) lines.push(`mkdir -p ${shq(`/solution/${d}`)}`);
  for (const [p, f] of solution) {
    const target = shq(`/solution/${p}`);
    lines.push(`printf %s ${shq(f.bytes.toString("base64"))} | base64 -d > ${target}${f.executable ? ` && chmod +x ${target}` : ""}`);
  }
  const exports = Object.entries({ HOME: "/root", DEBIAN_FRONTEND: "noninteractive", ...env })
    .map(([k, v]) => `${k}=${shq(v)}`)
    .join(" ");
  lines.push(
    "chmod +x /solution/solve.sh",
    `(export ${exports}; /solution/solve.sh > /logs/agent/oracle.txt 2>&1); code=$?`,
    "tail -c 1500 /logs/agent/oracle.txt",
    'echo "[solve.sh exited $code]"',
  );
  return lines.join("\n");
}
