/**
 * `rlenv` starts here (dist/cli.js): it loads the CLI bundle (dist/cli-bundle.js, 6 MB)
 * with V8's code cache, so a start does not compile the bundle again. Compiling it took
 * ~120 ms of the ~330 ms every `rlenv` call spent before doing anything; with the cache a
 * start is ~40 ms faster than that compile alone.
 *
 * Node 22.1+ has this built in (module.enableCompileCache), and it is used there. On older
 * Node the cache is V8's own: vm.Script with `cachedData`, written once after a run (so it
 * holds the functions that run compiled too), keyed by a hash of the bundle's text and
 * Node's version, because V8 checks only the length of the source it is given.
 *
 * The cache lives in $RLENV_CACHE_DIR, else $XDG_CACHE_HOME/rlenv, else ~/.cache/rlenv;
 * NODE_DISABLE_COMPILE_CACHE=1 turns it off. A cache that cannot be read or written is
 * skipped silently: it only ever costs the compile it would have saved.
 */
import { isAscii } from "node:buffer";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import Module from "node:module";
import os from "node:os";
import path from "node:path";
import vm from "node:vm";

/**
 * `rlenv view` loads a bundle of the viewer's server alone (dist/cli-view.js, ~1 MB, see
 * view-main.ts): the first step painted waits on this start. Any other command, or a copy
 * of the CLI without that file, loads the whole CLI.
 */
const VIEW_BUNDLE = path.join(__dirname, "cli-view.js");
const BUNDLE = process.argv[2] === "view" && existsSync(VIEW_BUNDLE) ? VIEW_BUNDLE : path.join(__dirname, "cli-bundle.js");
/** The cache file's name: one per bundle (`cli-<key>.v8`, `cli-view-<key>.v8`). */
const CACHE_NAME = path.basename(BUNDLE) === "cli-view.js" ? "cli-view" : "cli";
/** Cache files of other bundles (older builds) are removed once they are this old. */
const STALE_MS = 7 * 24 * 3600 * 1000;

function cacheDir(): string {
  if (process.env.RLENV_CACHE_DIR) return process.env.RLENV_CACHE_DIR;
  return path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), ".cache"), "rlenv");
}

type ModuleInternals = typeof Module & {
  enableCompileCache?: (dir?: string) => unknown;
  _nodeModulePaths(dir: string): string[];
};
const M = Module as ModuleInternals;

function removeStale(dir: string, keep: string): void {
  for (const name of readdirSync(dir)) {
    if (!new RegExp(`^${CACHE_NAME}-[0-9a-f]+\\.v8$`).test(name) || name === keep) continue;
    const f = path.join(dir, name);
    if (Date.now() - statSync(f).mtimeMs > STALE_MS) rmSync(f, { force: true });
  }
}

/**
 * The bundle's text: an ASCII file (the build escapes every other character, see esbuild.mjs)
 * as a Latin-1 string, which V8 holds one byte a character, ~8 ms for the view bundle where
 * decoding UTF-8 took ~30 (a single non-ASCII character made the whole text two-byte).
 */
function bundleText(bytes: Buffer): string {
  return isAscii(bytes) ? bytes.toString("latin1") : bytes.toString("utf8");
}

/** Runs the bundle as the CommonJS module it is, compiled from (and then into) the cache. */
function runWithCodeCache(dir: string): void {
  const bytes = readFileSync(BUNDLE);
  const source = bundleText(bytes);
  const key = createHash("sha1").update(process.version).update(process.arch).update(bytes).digest("hex").slice(0, 20);
  const cacheFile = path.join(dir, `${CACHE_NAME}-${key}.v8`);
  let cachedData: Buffer | undefined;
  try {
    cachedData = readFileSync(cacheFile);
  } catch {
    // first run of this build
  }
  // import() inside the bundle resolves as in a module Node loaded itself (Node 20.12+, 21.7+;
  // the bundle makes no such call today, so older 20.x simply go without).
  const loader = (vm as Partial<typeof vm>).constants?.USE_MAIN_CONTEXT_DEFAULT_LOADER;
  const script = new vm.Script(Module.wrap(source), {
    filename: BUNDLE,
    cachedData,
    ...(loader ? { importModuleDynamically: loader } : {}),
  });
  if (!cachedData || script.cachedDataRejected) {
    // After the run, so the functions it compiled lazily are in the cache as well.
    process.once("exit", () => {
      try {
        mkdirSync(dir, { recursive: true });
        const tmp = `${cacheFile}.${process.pid}.tmp`;
        writeFileSync(tmp, script.createCachedData());
        renameSync(tmp, cacheFile);
        removeStale(dir, path.basename(cacheFile));
      } catch {
        // a read-only or full disk: the next start compiles again
      }
    });
  }
  const wrapper = script.runInThisContext() as (
    exports: unknown,
    req: NodeJS.Require,
    mod: Module,
    filename: string,
    dirname: string,
  ) => void;
  const mod = new Module(BUNDLE, module);
  mod.filename = BUNDLE;
  mod.paths = M._nodeModulePaths(__dirname);
  wrapper.call(mod.exports, mod.exports, Module.createRequire(BUNDLE), mod, BUNDLE, __dirname);
}

function launch(): void {
  if (process.env.NODE_DISABLE_COMPILE_CACHE) {
    require(BUNDLE);
  } else if (typeof M.enableCompileCache === "function") {
    M.enableCompileCache(cacheDir());
    require(BUNDLE);
  } else {
    runWithCodeCache(cacheDir());
  }
}

launch();
