/**
 * The offline shim put on PATH (first) while a Harbor task's tests/test.sh runs. Terminal-Bench
 * 2.0's test scripts fetch their test runner at test time: `curl … astral.sh/uv/…/install.sh | sh`,
 * then `uvx -p 3.13 -w pytest==8.4.1 -w pytest-json-ctrf==0.3.5 pytest --ctrf … /tests/x.py`.
 * Sandboxes have no network, so the shim answers the same commands from the image:
 *  - `curl` given the uv installer's URL prints an installer that writes `$HOME/.local/bin/env`
 *    (the file test.sh sources); any other URL goes to the real curl, which fails offline, or
 *    fails naming the missing network;
 *  - `uvx [-p V] [-w PKG]… pytest ARGS` runs Debian's python3-pytest (`python3 -m pytest`) with
 *    ARGS less `--ctrf FILE` (pytest-json-ctrf is not packaged); `--with` packages are not
 *    installed (they must be in the image); any other tool runs from PATH;
 *  - `uv run CMD…` runs CMD, `uv pip …` is python3's pip, `uv venv` is python3 -m venv.
 * Nothing in the task folder is edited: the shim lives in /opt/rlenv-harbor/bin of the sandbox.
 */
export const SHIM_DIR = "/opt/rlenv-harbor/bin";

const CURL = `#!/bin/bash
# rlenv offline shim for curl (Harbor verifier): stands in for astral.sh's uv installer.
url="" out=""
while [ $# -gt 0 ]; do
  case "$1" in
    -o|--output) out="$2"; shift 2; continue;;
    http://*|https://*) url="$1";;
  esac
  shift
done
case "$url" in
  *astral.sh/uv/*install.sh|*astral.sh/uv/install.sh)
    script='#!/bin/sh
# rlenv offline shim: in place of the uv installer; uv and uvx are rlenv shims on PATH.
mkdir -p "$HOME/.local/bin"
printf "%s\\n" "export PATH=\\"${SHIM_DIR}:\\$HOME/.local/bin:\\$PATH\\"" > "$HOME/.local/bin/env"
cp "$HOME/.local/bin/env" "$HOME/.local/bin/env.fish" 2>/dev/null || true
echo "uv installed (rlenv offline shim: uvx runs Debian python3-pytest)"'
    if [ -n "$out" ]; then printf '%s\\n' "$script" > "$out"; else printf '%s\\n' "$script"; fi
    exit 0;;
esac
for c in /usr/bin/curl /bin/curl; do [ -x "$c" ] && exec "$c" "$@"; done
echo "curl: $url: this sandbox has no network (rlenv runs Harbor tasks offline)" >&2
exit 6
`;

const UVX = `#!/bin/bash
# rlenv offline shim for uvx (Harbor verifier): the tool runs from the image, pytest from Debian's python3-pytest.
withs=()
while [ $# -gt 0 ]; do
  case "$1" in
    -p|--python|--from|--with-requirements|--with-editable|--index-url|--extra-index-url|--cache-dir) shift 2;;
    -w|--with) withs+=("$2"); shift 2;;
    --python=*|--from=*|--with=*|-q|--quiet|-v|--verbose|--isolated|--no-cache|--offline|--refresh|--no-progress) shift;;
    --) shift; break;;
    -*) echo "uvx (rlenv shim): option $1 ignored" >&2; shift;;
    *) break;;
  esac
done
[ $# -gt 0 ] || { echo "uvx (rlenv shim): no command" >&2; exit 2; }
tool="$1"; shift
tool="\${tool%%[=@<>]*}"
for w in "\${withs[@]}"; do
  case "\${w%%[=@<>]*}" in pytest|pytest-json-ctrf) ;; *) echo "uvx (rlenv shim): --with $w is not installed offline: it must be in the image" >&2;; esac
done
if [ "$tool" = pytest ] || [ "$tool" = py.test ]; then
  args=()
  while [ $# -gt 0 ]; do
    case "$1" in
      --ctrf) shift 2; continue;;
      --ctrf=*) shift; continue;;
    esac
    args+=("$1"); shift
  done
  exec python3 -m pytest -p no:cacheprovider "\${args[@]}"
fi
exec "$tool" "$@"
`;

const UV = `#!/bin/bash
# rlenv offline shim for uv (Harbor verifier).
case "$1" in
  run) shift; while [ $# -gt 0 ]; do case "$1" in --with|-w|-p|--python|--project|--directory) shift 2;; --*) shift;; *) break;; esac; done
       [ "$1" = pytest ] && { shift; exec python3 -m pytest -p no:cacheprovider "$@"; }
       exec "$@";;
  pip) shift; exec python3 -m pip "$@";;
  venv) shift; exec python3 -m venv "\${@:-.venv}";;
  tool) [ "$2" = run ] && { shift 2; exec "${SHIM_DIR}/uvx" "$@"; };;
  --version|version) echo "uv 0.0.0 (rlenv offline shim)"; exit 0;;
esac
echo "uv (rlenv shim): 'uv $*' is not available offline" >&2
exit 2
`;

/** The shim's files, keyed by their path under SHIM_DIR. */
export function shimFiles(): Record<string, string> {
  return { curl: CURL, uvx: UVX, uv: UV };
}
