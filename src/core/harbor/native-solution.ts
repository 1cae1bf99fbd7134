import { shq } from "../util/shell-quote";

/** The first line of the oracle command an imported Harbor task runs: export knows it by this and writes solution/ back as it was. */
export const SOLUTION_MARK = "# rlenv: Harbor oracle (solution/ files to /solution, then solve.sh)";

/**
 * The oracle command of a Harbor task imported into the native layout. The task folder's
 * solution/ files are its `solution.files`, which the oracle writes into the workdir first;
 * this moves them to /solution and runs solve.sh as Harbor's oracle agent does (root, workdir,
 * DEBIAN_FRONTEND=noninteractive and [solution].env, output to /logs/agent/oracle.txt).
 */
export function nativeSolutionCommand(files: readonly string[], env: Record<string, string>): string {
  const exports = Object.entries({ HOME: "/root", DEBIAN_FRONTEND: "noninteractive", ...env })
    .map(([k, v]) => `${k}=${shq(v)}`)
    .join(" ");
  return [
    SOLUTION_MARK,
    'here="$PWD"; rm -rf /solution && mkdir -p /solution /logs/agent /logs/verifier /logs/artifacts',
    ...files.map((f) => `mkdir -p "$(dirname /solution/${shq(f)})" && mv -f "$here"/${shq(f)} /solution/${shq(f)}`),
    "chmod +x /solution/solve.sh",
    `(export ${exports}; /solution/solve.sh > /logs/agent/oracle.txt 2>&1); code=$?`,
    "tail -c 1500 /logs/agent/oracle.txt",
    'echo "[solve.sh exited $code]"',
  ].join("\n");
}
