import { existsSync } from "node:fs";

/**
 * Every descriptor the host process inherited beyond those a launch passes on is closed before
 * the sandbox starts. Node opens its own files close-on-exec, but not those it was started
 * with: a launcher's log or a root-only file left open on fd 40 reached the isolating
 * processes and the sandbox's agent, and through them the sandbox. No program of the chain
 * (sh, prlimit, setpriv, bwrap, unshare) closes them, so the host's Python does, then execs
 * the launch (about 10 ms, once per sandbox's agent). Without Python the launch goes as it is
 * and the agent closes them itself first thing (agent.py).
 */
const CLOSER = "import os, sys\nos.closerange(int(sys.argv[1]) + 1, 1 << 20)\nos.execvp(sys.argv[2], sys.argv[2:])";
const PYTHON = "/usr/bin/python3";

/** `full`, started with every descriptor above `keep` closed. */
export function closingInherited(full: string[], keep = 2): string[] {
  if (!existsSync(PYTHON) || full.length === 0) return full;
  return [PYTHON, "-I", "-S", "-c", CLOSER, String(keep), ...full];
}
