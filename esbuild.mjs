// Bundles the extension host code, the CLI and the webview apps. `--watch` rebuilds on change.
import { copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import * as esbuild from "esbuild";

const pkg = JSON.parse(readFileSync("package.json", "utf8"));
const watch = process.argv.includes("--watch");
const define = { __RLENV_VERSION__: JSON.stringify(pkg.version) };
// Optional native parts of dockerode's ssh transport: never bundled (Electron's ABI differs).
const nativeOptional = ["cpu-features", "ssh2"];

/**
 * The CLI's bundles without whitespace and with shorter syntax, names kept (stack traces still
 * name every function; the source maps lead back to the source). Every `rlenv` start reads,
 * hashes and compiles its bundle: the whole CLI went from 8.9 to 6.1 MB and `rlenv --version`
 * from ~520 to ~445 ms; the view bundle from 1.25 to 0.81 MB, ~15 ms off the first painted step.
 */
const cliMinify = { minifyWhitespace: !watch, minifySyntax: !watch };

/** Node targets: the extension (CommonJS, `vscode` external) and the `rlenv` CLI. */
const nodeBuilds = [
  // The extension's bundles are minified as the CLI's are (names kept, for stack traces): VS Code
  // reads and compiles them at activation and at the first rollout.
  { entryPoints: { extension: "src/extension/main.ts" }, external: ["vscode", ...nativeOptional], ...cliMinify },
  // The rollout engine (policies, sandboxes, domains: several MB), required by the extension on first run, never at activation.
  {
    entryPoints: { "extension-engine": "src/extension/rollouts/engine-bundle.ts" },
    external: ["vscode", ...nativeOptional],
    ...cliMinify,
  },
  // `rlenv` is a small launcher (dist/cli.js) that loads the CLI bundle (dist/cli-bundle.js)
  // through V8's code cache: see src/cli/launcher.ts.
  { entryPoints: { cli: "src/cli/launcher.ts" }, banner: { js: "#!/usr/bin/env node" } },
  { entryPoints: { "cli-bundle": "src/cli/main.ts" }, external: nativeOptional, ...cliMinify },
  // `rlenv view` alone (the viewer's server, ~1 MB): the launcher loads it for that command, so the first paint skips the rest.
  { entryPoints: { "cli-view": "src/cli/view-main.ts" }, external: nativeOptional, ...cliMinify },
  // The runner validates uploads in a worker thread, which loads this file from beside the CLI bundle.
  { entryPoints: { "validate-worker": "src/core/remote/jobs/validate-worker.ts" }, external: nativeOptional },
  // The document parser's worker thread (one per core while a corpus is indexed): see src/core/domains/document/parse/pool.ts.
  { entryPoints: { "document-parse-worker": "src/core/domains/document/parse/worker.ts" } },
];

/** Browser targets: one bundle per app folder in webviews/src/apps/<name>/main.ts. */
const appsDir = "webviews/src/apps";
const webApps = existsSync(appsDir) ? readdirSync(appsDir).filter((n) => existsSync(path.join(appsDir, n, "main.ts"))) : [];

/**
 * zod's `z.locales` namespace (classic and mini) pulls its ~40 message locales (400 KB, a third of the
 * extension bundle and most of its load time) into every bundle that imports `z`. We only
 * ever use the default English messages, so the namespace is narrowed to `en`.
 */
const zodEnglishOnly = {
  name: "zod-english-only",
  setup(build) {
    build.onResolve({ filter: /^\.\.\/locales\/index\.(c?js)$/ }, (args) =>
      /[\\/]zod[\\/]v4[\\/](classic|core|mini)[\\/]/.test(args.importer)
        ? { path: path.resolve(args.resolveDir, "../locales/en.js"), namespace: "zod-locales" }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: "zod-locales" }, (args) => ({
      contents: `export { default as en } from ${JSON.stringify(args.path)};`,
      resolveDir: path.dirname(args.path),
    }));
  },
};

/**
 * Requires that dockerode runs at load time for features we never use: BuildKit sessions
 * (gRPC and protobufjs, ~25 ms) and the ssh transport (ssh2 from node_modules, ~30 ms). Each
 * becomes a function that requires its module on first call, so an ssh:// DOCKER_HOST or a
 * BuildKit build still works, and every other start skips them. The build fails if a
 * dependency upgrade changes the line, rather than silently loading them again.
 */
const lazyRequires = {
  name: "lazy-requires",
  setup(build) {
    const rewrites = [
      {
        file: /[\\/]dockerode[\\/]lib[\\/]docker\.js$/,
        from: "withSession = require('./session')",
        to: "withSession = function () { return require('./session').apply(this, arguments); }",
      },
      {
        file: /[\\/]docker-modem[\\/]lib[\\/]modem\.js$/,
        from: "ssh = require('./ssh')",
        to: "ssh = function () { return require('./ssh').apply(this, arguments); }",
      },
    ];
    build.onLoad({ filter: /[\\/](dockerode|docker-modem)[\\/]lib[\\/](docker|modem)\.js$/ }, (args) => {
      const rule = rewrites.find((r) => r.file.test(args.path));
      if (!rule) return undefined;
      const source = readFileSync(args.path, "utf8");
      if (!source.includes(rule.from)) throw new Error(`lazy-requires: "${rule.from}" is no longer in ${args.path}; update esbuild.mjs`);
      return { contents: source.replace(rule.from, rule.to), loader: "js" };
    });
  },
};

/**
 * dockerode's BuildKit parts, its session (`buildImage(…, { version: "2" })`: gRPC) and its status
 * reader (`docker.followProgress`: protobufjs), are 0.9 MB of each bundle that runs Docker, parsed
 * at every start. rlenv builds with the classic builder and follows progress with
 * `docker.modem.followProgress` (no `version` option nor `docker.followProgress` in src/), so both
 * modules are replaced by ones that say so: a caller that someday asks for BuildKit gets that
 * message rather than a build that silently lacks it.
 */
const BUILDKIT_STUBS = {
  "./session":
    "module.exports = function withSession(_docker, _auth, handler) { handler(new Error('BuildKit sessions (buildImage version 2) are not bundled with rlenv: build with the classic builder')); };",
  "./buildkit":
    "module.exports = { followProgress() { throw new Error('BuildKit progress (docker.followProgress) is not bundled with rlenv: use docker.modem.followProgress'); } };",
};
const noBuildkit = {
  name: "no-buildkit",
  setup(build) {
    build.onResolve({ filter: /^\.\/(session|buildkit)$/ }, (args) =>
      /[\\/]dockerode[\\/]lib[\\/]docker\.js$/.test(args.importer) ? { path: args.path, namespace: "no-buildkit" } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: "no-buildkit" }, (args) => ({ contents: BUILDKIT_STUBS[args.path], loader: "js" }));
  },
};

/**
 * `import("node:http")` inside the AWS SDK (its HTTP handler's agent, the invoke store's
 * async_hooks) becomes `Promise.resolve(require("node:http"))`. The CLI bundle runs from
 * V8's code cache (src/cli/launcher.ts), and under Node 20 a script compiled from cached
 * data loses its dynamic-import callback: every `import()` then throws "A dynamic import
 * callback was not specified". For a builtin, require is the same module.
 */
const builtinImportsAsRequire = {
  name: "builtin-imports-as-require",
  setup(build) {
    build.onLoad({ filter: /[\\/]node_modules[\\/]@(smithy|aws-sdk|aws)[\\/].*\.js$/ }, (args) => {
      const source = readFileSync(args.path, "utf8");
      const builtin = /\bimport\((["'])(node:[a-z_/]+)\1\)/g;
      if (!builtin.test(source)) return undefined;
      return { contents: source.replace(builtin, 'Promise.resolve(require("$2"))'), loader: "js" };
    });
  },
};

/**
 * The Node bundles as pure ASCII. esbuild escapes non-ASCII characters everywhere but in regular
 * expression literals (a few regexes hold "−", "€", "₹"...), and one such character makes the
 * whole file a two-byte string: Node decodes the 0.8 MB view bundle from UTF-8 in ~30 ms instead
 * of reading it as Latin-1 in ~8 (src/cli/launcher.ts reads an ASCII bundle so), and V8 scans
 * twice the bytes. Each UTF-16 unit becomes \uXXXX, which means the same character in a regex
 * (with or without the u flag; an astral character as its surrogate pair), a string or a name.
 * The lines so changed are a few characters longer than their source map says.
 */
const asciiOutput = {
  name: "ascii-output",
  setup(build) {
    build.onEnd((result) => {
      if (result.errors.length > 0) return;
      const { entryPoints, outdir } = build.initialOptions;
      for (const name of Object.keys(entryPoints)) {
        const file = path.join(outdir, `${name}.js`);
        const text = readFileSync(file, "utf8");
        if (!/[^\x00-\x7f]/.test(text)) continue;
        // An identity escape (a backslash before it, or any odd run of backslashes before it) means the character itself: its backslash goes.
        const escaped = text.replace(/(\\*)([^\x00-\x7f])/g, (_, bs, c) => {
          const u = `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`;
          return `${bs.length % 2 === 1 ? bs.slice(1) : bs}${u}`;
        });
        writeFileSync(file, escaped);
      }
    });
  },
};

const common = {
  bundle: true,
  sourcemap: true,
  logLevel: "warning",
  define,
  legalComments: "none",
  plugins: [zodEnglishOnly, lazyRequires, noBuildkit, builtinImportsAsRequire],
};

const configs = [
  ...nodeBuilds.map((b) => ({
    ...common,
    ...b,
    platform: "node",
    format: "cjs",
    target: "node20",
    outdir: "dist",
    mainFields: ["module", "main"],
    plugins: [...common.plugins, asciiOutput],
    // The CLI's banner comes from src; strip the duplicate shebang esbuild keeps.
  })),
];

/**
 * An app's `import("./<part>.lazy")` loads the part's own entry (`<app>-<part>.js`) at run
 * time instead of being bundled through: esbuild puts the CSS of everything a dynamic import
 * reaches into the importing entry's stylesheet, so Monaco's (140 KB) sat in the trajectory
 * viewer's first stylesheet, parsed before its first paint, though only the code tab uses it.
 * `at(app, part)` is where the importing bundle finds the part's file.
 */
function lazyParts(name, at) {
  return {
    name,
    setup(build) {
      build.onResolve({ filter: /\.lazy(\.ts)?$/ }, (args) => {
        if (args.kind !== "dynamic-import") return undefined;
        const file = path.resolve(args.resolveDir, args.path);
        const app = path.relative(appsDir, path.dirname(file));
        if (app.startsWith("..") || app.includes(path.sep) || !webApps.includes(app)) return undefined;
        return { path: at(app, path.basename(file).replace(/\.lazy(\.ts)?$/, "")), external: true };
      });
    },
  };
}
/** The split build's bundles sit side by side: a part is beside the app that imports it. */
const lazyPartsApart = lazyParts("lazy-parts-apart", (app, part) => `./${app}-${part}.js`);

// The webview apps: ES modules with code splitting, so an app's first paint does not wait
// for Monaco or three.js. `<app>/<part>.lazy.ts` is an extra entry `<app>-<part>` (its CSS
// lands in `<app>-<part>.css`, which the app links when it loads the part). Each app is a
// build of its own: esbuild splits by file, so a chunk two apps share holds what either of
// them uses, and the trajectory viewer (its schemas in zod/mini) would load all of zod core
// that the dashboard's classic zod schemas reach.
for (const name of webApps) {
  const entryPoints = { [name]: path.join(appsDir, name, "main.ts") };
  for (const f of readdirSync(path.join(appsDir, name)).filter((f) => f.endsWith(".lazy.ts")))
    entryPoints[`${name}-${f.slice(0, -".lazy.ts".length)}`] = path.join(appsDir, name, f);
  configs.push({
    ...common,
    entryPoints,
    platform: "browser",
    format: "esm",
    splitting: true,
    chunkNames: "chunk-[hash]",
    target: "es2022",
    outdir: "dist/webviews",
    minify: !watch,
    loader: { ".ttf": "file", ".css": "css" },
    assetNames: "[name]",
    plugins: [...(common.plugins ?? []), lazyPartsApart],
  });
}

/**
 * `rlenv view` sends each app's page with the app inside it (src/core/view/server/page-bundle.ts):
 * one module with no static imports, so the browser compiles it while the server still computes
 * the first screen, instead of fetching the bundle and its chunks once the page has arrived. Its
 * lazy parts stay the split build's files, reached at the server's `/assets/` route (the inline
 * module has the page's URL as its base, so a relative path would miss). The shared chunks those
 * parts import are pure helpers (DOM building, text), so their second copy holds no state.
 * Written outside dist/webviews so the .vsix (which never serves pages) leaves them out.
 */
const ASSETS_ROUTE = "/assets/";
const lazyPartsAtAssets = lazyParts("lazy-parts-at-assets", (app, part) => `${ASSETS_ROUTE}${app}-${part}.js`);
for (const name of webApps.filter((n) => n !== "play")) {
  configs.push({
    ...common,
    entryPoints: { [name]: path.join(appsDir, name, "main.ts") },
    platform: "browser",
    format: "esm",
    target: "es2022",
    outdir: "dist/view-pages",
    minify: !watch,
    sourcemap: false,
    // Fonts and images the page's inline CSS names are the split build's, at the assets route.
    loader: { ".ttf": "file", ".css": "css" },
    assetNames: "[name]",
    publicPath: ASSETS_ROUTE,
    plugins: [...(common.plugins ?? []), lazyPartsAtAssets],
  });
}

// Monaco's editor worker is its own bundle, loaded by the webview from the extension.
if (existsSync("node_modules/monaco-editor/esm/vs/editor/editor.worker.js") && webApps.length > 0) {
  configs.push({
    ...common,
    entryPoints: { "editor.worker": "monaco-editor/esm/vs/editor/editor.worker.js" },
    platform: "browser",
    format: "iife",
    target: "es2022",
    outdir: "dist/webviews",
    minify: !watch,
  });
}

if (watch) {
  for (const c of configs) await (await esbuild.context(c)).watch();
} else {
  // Chunk names carry content hashes: without this the chunks of every earlier build stay
  // beside the new ones (and would ride along into the .vsix).
  rmSync("dist/webviews", { recursive: true, force: true });
  rmSync("dist/view-pages", { recursive: true, force: true });
  await Promise.all(configs.map((c) => esbuild.build(c)));
}

// Files the bundles read at run time rather than import: the Blender RPC server and the
// sandbox agent are sent into the sandbox as text, so they must sit beside dist/cli.js and
// dist/extension.js (.vscodeignore keeps them in the .vsix).
mkdirSync("dist", { recursive: true });
copyFileSync("src/core/domains/scene3d/blender/blender_rpc.py", "dist/blender_rpc.py");
copyFileSync("src/core/sandbox/agent/agent.py", "dist/agent.py");
// The audit's Python helpers (sent into the sandbox) and its probe library (read as files).
rmSync("dist/audit", { recursive: true, force: true });
for (const part of ["python", "probes"]) cpSync(`src/core/audit/${part}`, `dist/audit/${part}`, { recursive: true });
// The Python programs an exported Harbor task runs (grader.py and its kin), written into its tests/.
rmSync("dist/harbor", { recursive: true, force: true });
cpSync("src/core/harbor/python", "dist/harbor/python", { recursive: true });
