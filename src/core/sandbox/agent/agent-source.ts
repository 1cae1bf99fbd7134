import { existsSync, readFileSync } from "node:fs";
import path from "node:path";

/**
 * The text of agent.py, the in-sandbox agent both backends start as `python3 -I -u -c SOURCE`.
 * Read from beside this module when run from source (tsx), from dist/ when bundled (the build
 * copies it there, and the .vsix carries it), or from the package's src folder; a bundle in a
 * folder below dist/ (the extension-host tests' dist/test/extension) looks up from where it is.
 */
let cached: string | undefined;
export function agentSource(): string {
  if (cached) return cached;
  const candidates: string[] = [];
  for (let up = 0, dir = __dirname; up < 4; up++, dir = path.dirname(dir))
    candidates.push(path.join(dir, "agent.py"), path.join(dir, "..", "src", "core", "sandbox", "agent", "agent.py"));
  const found = candidates.find((p) => existsSync(p));
  if (!found) throw new Error(`the sandbox agent (agent.py) is not found (looked in ${candidates.join(", ")})`);
  cached = readFileSync(found, "utf8");
  return cached;
}

/** The argv that starts the agent with a given interpreter: isolated mode keeps the workdir off sys.path. */
export function agentArgv(python = "python3"): string[] {
  return [python, "-I", "-u", "-c", agentSource()];
}
