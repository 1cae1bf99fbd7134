/**
 * A verifier's command as it runs against a submission: test files named, never globbed, and a
 * hidden Python check run isolated and gone from the disk before the code it checks is loaded.
 */
import { shq } from "../util/shell-quote";

/** Environment of every command in a judging sandbox: Python writes no bytecode and reads no user site. */
export const ISOLATED_PYTHON_ENV: Readonly<Record<string, string>> = {
  PYTHONDONTWRITEBYTECODE: "1",
  PYTHONNOUSERSITE: "1",
  // Bytecode is read and written only under this prefix, never from a __pycache__ beside the sources.
  PYTHONPYCACHEPREFIX: "/tmp/.rlenv-pycache",
};

const GLOB = /[*?[]/;
const UNSAFE_WORD = /['"`$\\]/;

function globRegex(glob: string): RegExp {
  let re = "";
  for (const c of glob) {
    if (c === "*") re += "[^/]*";
    else if (c === "?") re += "[^/]";
    else re += c.replace(/[.+^${}()|\\\]]/g, "\\$&");
  }
  return new RegExp(`^${re}$`);
}

/**
 * Each glob word of `command` that matches hidden files is replaced by those files, named: a
 * file the policy planted that matches the verifier's test glob (tests/test_hidden_*.py) is
 * then never run as one of the tests. A glob that matches no hidden file is left to the shell.
 */
export function nameHiddenGlobs(command: string, hidden: readonly string[]): string {
  if (hidden.length === 0 || !GLOB.test(command)) return command;
  const paths = hidden.map((p) => p.replace(/^\.\//, "")).sort();
  return command
    .split(/(\s+)/)
    .map((word) => {
      if (!GLOB.test(word) || UNSAFE_WORD.test(word)) return word;
      const re = globRegex(word.replace(/^\.\//, ""));
      const named = paths.filter((p) => re.test(p));
      return named.length > 0 ? named.map(shq).join(" ") : word;
    })
    .join("");
}

/**
 * Runs a hidden Python check from memory: it reads the check, removes it from the disk (so the
 * submission, imported later, finds nothing to read), makes its own process non-dumpable (so a
 * process of the same user cannot read its memory or descriptors through /proc), then runs the
 * check's code as __main__ with the file's name. Run with -I: the user site is not on its path, and
 * the check's folder (where the code it checks lives) comes after the standard library, never
 * before it, so a module the policy wrote can be imported but cannot stand in for a standard one.
 */
const LAUNCHER = [
  "import os, sys",
  "p = sys.argv[1]",
  "src = open(p, 'rb').read()",
  "os.unlink(p)",
  "try:",
  "    import ctypes",
  "    ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)",
  "except Exception:",
  "    pass",
  "sys.path.append(os.path.dirname(os.path.abspath(p)))",
  "sys.argv = sys.argv[1:]",
  "g = {'__name__': '__main__', '__file__': os.path.abspath(p), '__builtins__': __builtins__}",
  "c = compile(src, g['__file__'], 'exec')",
  "del os, sys, src, p",
  "exec(c, g)",
].join("\n");

const PYTHON_SCRIPT = /^\s*(python3?)((?:\s+-[uBIEsO]+)*)\s+([\w./-]+\.py)((?:\s+[^\s;&|<>()`$]+)*)\s*$/;

/**
 * `python3 <check>.py args` where the check is a hidden file becomes the same check run by the
 * launcher above; any other command is returned unchanged.
 */
export function isolateHiddenScript(command: string, hidden: readonly string[]): string {
  const m = PYTHON_SCRIPT.exec(command);
  if (!m) return command;
  const [, python, flags = "", script = "", args = ""] = m;
  const rel = script.replace(/^\.\//, "");
  if (!hidden.some((h) => h.replace(/^\.\//, "") === rel)) return command;
  const unbuffered = /u/.test(flags) ? " -u" : "";
  return `${python} -I -B${unbuffered} -c ${shq(LAUNCHER)} ${shq(script)}${args}`;
}

/** The command a verifier runs against a submission: globs of hidden files named, a hidden Python check isolated. */
export function judgedCommand(command: string, hidden: readonly string[]): string {
  return isolateHiddenScript(nameHiddenGlobs(command, hidden), hidden);
}
