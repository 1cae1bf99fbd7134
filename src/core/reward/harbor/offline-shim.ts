/**
 * The offline shim put on PATH (first) while a Harbor task's tests/test.sh runs. Terminal-Bench
 * 2.0's test scripts fetch their test runner at test time: `curl … astral.sh/uv/…/install.sh | sh`,
 * then `uvx -p 3.13 -w pytest==8.4.1 -w pytest-json-ctrf==0.3.5 pytest --ctrf … /tests/x.py`.
 * Sandboxes have no network, so the shim answers the same commands from the image:
 *  - `curl` given the uv installer's URL prints an installer that writes `$HOME/.local/bin/env`
 *    (the file test.sh sources); any other URL goes to the real curl, which fails offline, or
 *    fails naming the missing network;
 *  - `uvx [-p V] [-w PKG]… pytest ARGS`, `uv run pytest ARGS`, `uv tool run pytest` and a bare
 *    `pytest ARGS` run the image's pytest isolated (`python3 -I`: the working folder, where the
 *    agent writes, is not on sys.path, as it is not under uvx), with `--ctrf FILE` written by
 *    the shim (pytest-json-ctrf is not packaged); `--with` packages must be in the image (a
 *    missing one is named); any other tool runs from PATH;
 *  - `uv pip install`, `pip install` and `pip3 install` succeed for requirements installed in
 *    the image (a version other than asked is said) and fail naming the missing ones; local
 *    paths go to pip with --no-index; `uv venv [-p V] [DIR]` is `python3 -m venv` (without -p,
 *    with the image's packages visible, as nothing can be installed into it).
 * Nothing in the task folder is edited: the shim lives in /opt/rlenv-harbor/bin of the sandbox,
 * emptied and written anew before each verification (a file the agent put there is gone).
 */
import { PIP_OFFLINE, PYTEST_RUNNER } from "./offline-shim-py";

export const SHIM_DIR = "/opt/rlenv-harbor/bin";

const CURL = (dir: string) => `#!/bin/bash
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
printf "%s\\n" "export PATH=\\"${dir}:\\$HOME/.local/bin:\\$PATH\\"" > "$HOME/.local/bin/env"
cp "$HOME/.local/bin/env" "$HOME/.local/bin/env.fish" 2>/dev/null || true
echo "uv installed (rlenv offline shim: uvx runs Debian python3-pytest)"'
    if [ -n "$out" ]; then printf '%s\\n' "$script" > "$out"; else printf '%s\\n' "$script"; fi
    exit 0;;
esac
for c in /usr/bin/curl /bin/curl; do [ -x "$c" ] && exec "$c" "$@"; done
echo "curl: $url: this sandbox has no network (rlenv runs Harbor tasks offline)" >&2
exit 6
`;

/** Runs the Python helpers: isolated, so nothing in the working folder shadows them or what they import. */
const PY = (dir: string) => `py() { local s="$1"; shift; exec python3 -I "${dir}/$s" "$@"; }`;

const PYTEST = (dir: string) => `#!/bin/bash
# rlenv offline shim for pytest (Harbor verifier): the image's pytest, isolated, --ctrf written by the shim.
${PY(dir)}
py rlenv_pytest.py "$@"
`;

const UVX = (dir: string) => `#!/bin/bash
# rlenv offline shim for uvx (Harbor verifier): the tool runs from the image, pytest isolated.
${PY(dir)}
withs=()
while [ $# -gt 0 ]; do
  case "$1" in
    -p|--python|--from|--with-requirements|--with-editable|--index-url|--extra-index-url|--cache-dir|--index|--default-index) shift 2;;
    -w|--with) withs+=("$2"); shift 2;;
    --with=*) withs+=("\${1#--with=}"); shift;;
    -*) shift;;
    *) break;;
  esac
done
[ $# -gt 0 ] || { echo "uvx (rlenv shim): no command" >&2; exit 2; }
tool="$1"; shift
tool="\${tool%%[=@<>]*}"
[ \${#withs[@]} -eq 0 ] || RLENV_PIP_AS="uvx --with" python3 -I "${dir}/rlenv_pip.py" check "\${withs[@]}"
case "$tool" in
  pytest|py.test) py rlenv_pytest.py "$@";;
esac
exec "$tool" "$@"
`;

const UV = (dir: string) => `#!/bin/bash
# rlenv offline shim for uv (Harbor verifier).
${PY(dir)}
sub="$1"; shift
case "$sub" in
  run)
    while [ $# -gt 0 ]; do
      case "$1" in
        --directory) cd "$2" || exit 2; shift 2;;
        --with|-w|-p|--python|--project|--env-file|--extra|--group|--index|--index-url|--extra-index-url|--with-requirements|--with-editable) shift 2;;
        --) shift; break;;
        -*) shift;;
        *) break;;
      esac
    done
    [ $# -gt 0 ] || { echo "uv run (rlenv shim): no command" >&2; exit 2; }
    case "$1" in
      pytest|py.test) shift; py rlenv_pytest.py "$@";;
      python|python3) [ "$2" = -m ] && [ "$3" = pytest ] && { shift 3; py rlenv_pytest.py "$@"; };;
    esac
    exec "$@";;
  pip)
    if [ "$1" = install ]; then shift; RLENV_PIP_AS="uv pip" py rlenv_pip.py install "$@"; fi
    python3 -I -m pip --version >/dev/null 2>&1 || { echo "uv pip (rlenv shim): 'uv pip $1' needs pip, which this image lacks" >&2; exit 2; }
    exec python3 -I -m pip "$@";;
  venv)
    opts=(--system-site-packages) pip=--without-pip dir=""
    while [ $# -gt 0 ]; do
      case "$1" in
        -p|--python|--prompt-suffix|--index-url|--extra-index-url|--python-preference|--link-mode|--cache-dir) shift 2;;
        --prompt) opts+=(--prompt "$2"); shift 2;;
        --seed) pip=""; shift;;
        --clear) opts+=(--clear); shift;;
        -*) shift;;
        *) dir="$1"; shift;;
      esac
    done
    exec python3 -I -m venv "\${opts[@]}" \${pip} "\${dir:-.venv}";;
  tool) [ "$1" = run ] && { shift; exec "${dir}/uvx" "$@"; };;
  --version|version) echo "uv 0.0.0 (rlenv offline shim)"; exit 0;;
esac
echo "uv (rlenv shim): 'uv $sub $*' is not available offline (rlenv runs Harbor tasks with no network)" >&2
exit 2
`;

/** pip and pip3: install is answered offline, anything else is the image's own pip. */
const PIP = (dir: string) => `#!/bin/bash
# rlenv offline shim for pip (Harbor verifier): installs nothing, answers from what the image has.
${PY(dir)}
if [ "$1" = install ]; then shift; RLENV_PIP_AS="\${0##*/}" py rlenv_pip.py install "$@"; fi
python3 -I -m pip --version >/dev/null 2>&1 || { echo "\${0##*/} (rlenv shim): this image has no pip" >&2; exit 127; }
exec python3 -I -m pip "$@"
`;

/** The shim's files, keyed by their path under `dir` (SHIM_DIR in a sandbox; a test puts them elsewhere). */
export function shimFiles(dir = SHIM_DIR): Record<string, string> {
  return {
    curl: CURL(dir),
    uvx: UVX(dir),
    uv: UV(dir),
    pytest: PYTEST(dir),
    "py.test": PYTEST(dir),
    pip: PIP(dir),
    pip3: PIP(dir),
    "rlenv_pytest.py": PYTEST_RUNNER,
    "rlenv_pip.py": PIP_OFFLINE,
  };
}
