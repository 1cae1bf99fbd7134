/**
 * The Python halves of the offline Harbor test shim (see offline-shim.ts). Both run under
 * `python3 -I`: neither the working folder (where the agent writes) nor the user site nor
 * PYTHON* variables come before the standard library and pytest, so a planted `pytest.py`,
 * `pluggy.py` or `subprocess.py` beside the agent's files is never imported in their place.
 */

/**
 * The pytest runner: pytest as `uvx … pytest` gives it in Harbor (the working folder is not on
 * sys.path there either: uvx runs pytest's own script), with `--ctrf FILE` written by rlenv
 * (pytest-json-ctrf is not packaged): a CTRF report of every test, as the plugin writes it.
 * PYTHONPATH, which -I drops, is put back: test.sh sets it, the agent cannot.
 */
export const PYTEST_RUNNER = `# rlenv offline shim: pytest run isolated (python3 -I), --ctrf written here.
import os, sys, time
sys.path[:0] = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
# No terminal: pytest would cut its "FAILED test - message" lines at 80 columns, and they name the failure.
os.environ.setdefault("COLUMNS", "200")
import pytest

args, ctrf, i = [], None, 1
while i < len(sys.argv):
    a = sys.argv[i]
    if a == "--ctrf" and i + 1 < len(sys.argv):
        ctrf = sys.argv[i + 1]; i += 2; continue
    if a.startswith("--ctrf="):
        ctrf = a.split("=", 1)[1]; i += 1; continue
    args.append(a); i += 1


class Ctrf:
    """The CTRF report pytest-json-ctrf writes: one entry per test, its outcome, duration and message."""

    def __init__(self, path):
        self.path, self.tests, self.start = path, {}, time.time()

    def pytest_runtest_logreport(self, report):
        status = "passed" if report.passed else "skipped" if report.skipped else "failed"
        if report.when != "call" and status == "passed":
            return
        t = self.tests.setdefault(report.nodeid, {"name": report.nodeid, "status": "passed", "duration": 0})
        t["duration"] += int(getattr(report, "duration", 0) * 1000)
        if status != "passed" and t["status"] == "passed":
            t["status"] = status
            if report.longrepr is not None:
                text = str(report.longrepr)
                t["message"] = text.strip().splitlines()[-1][:500] if text.strip() else ""
                t["trace"] = text[-4000:]

    def pytest_sessionfinish(self, session):
        tests = list(self.tests.values())
        count = lambda s: sum(1 for t in tests if t["status"] == s)
        summary = {"tests": len(tests), "passed": count("passed"), "failed": count("failed"), "skipped": count("skipped"),
                   "pending": 0, "other": 0, "start": int(self.start * 1000), "stop": int(time.time() * 1000)}
        report = {"results": {"tool": {"name": "pytest", "version": pytest.__version__}, "summary": summary, "tests": tests,
                              "extra": {"writer": "rlenv offline shim (in place of pytest-json-ctrf)"}}}
        import json
        d = os.path.dirname(self.path)
        if d:
            os.makedirs(d, exist_ok=True)
        with open(self.path, "w") as f:
            json.dump(report, f, indent=2)


sys.exit(pytest.main(args, plugins=[Ctrf(ctrf)] if ctrf else []))
`;

/**
 * `pip install` / `uv pip install` offline: a named requirement already installed for this
 * python3 is satisfied (a different version than asked is said on stderr: nothing can be
 * fetched); one that is not fails naming it and why. Local paths, wheels and editable installs
 * go to the image's own pip with --no-index (they need no network). `check` (for uvx --with)
 * only says what is missing.
 */
export const PIP_OFFLINE = `# rlenv offline shim: pip install with no network.
import os, re, subprocess, sys
from importlib import metadata

VALUED = {"-r", "--requirement", "-c", "--constraint", "-e", "--editable", "-i", "--index-url", "--extra-index-url",
          "-f", "--find-links", "-t", "--target", "--prefix", "--root", "--python-version", "--platform",
          "--implementation", "--abi", "--no-binary", "--only-binary", "--progress-bar", "--cache-dir",
          "--trusted-host", "--upgrade-strategy", "-p", "--python", "--src", "--report", "--log", "--index",
          "--default-index", "--resolution", "--prerelease", "--link-mode", "--config-file", "--override"}
# Provided by the shim itself (pytest-json-ctrf: --ctrf), or the tool the shim stands in for.
PROVIDED = {"pytest-json-ctrf", "uv", "pip", "setuptools", "wheel"}
NAME = re.compile(r"^\\s*([A-Za-z0-9][A-Za-z0-9._-]*)\\s*(\\[[^\\]]*\\])?\\s*(.*)$")


def norm(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def installed(name):
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        for d in metadata.distributions():
            if norm(d.metadata["Name"] or "") == norm(name):
                return d.version
    return None


def requirement_lines(path, seen):
    if path in seen:
        return []
    seen.add(path)
    out = []
    for line in open(path, encoding="utf-8"):
        line = line.split(" #")[0].strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith(("-r ", "--requirement ")):
            out += requirement_lines(os.path.join(os.path.dirname(path), line.split(None, 1)[1]), seen)
        elif not line.startswith("-"):
            out.append(line)
    return out


def parse(args):
    names, local, i = [], [], 0
    while i < len(args):
        a = args[i]
        if a in ("-r", "--requirement") and i + 1 < len(args):
            names += requirement_lines(args[i + 1], set()); i += 2; continue
        if a in ("-e", "--editable") and i + 1 < len(args):
            local.append(args[i + 1]); i += 2; continue
        if a in VALUED:
            i += 2; continue
        if a.startswith("-"):
            i += 1; continue
        if "/" in a or a.startswith(".") or a.endswith((".whl", ".tar.gz", ".zip")) or os.path.exists(a):
            local.append(a)
        else:
            names.append(a)
        i += 1
    return names, local


def satisfies(version, spec):
    try:
        from packaging.specifiers import SpecifierSet
        return SpecifierSet(spec).contains(version, prereleases=True)
    except Exception:
        return spec.lstrip("=") == version


def unmet(names):
    missing = []
    for spec in names:
        m = NAME.match(spec.split(";")[0])
        if not m:
            missing.append(spec); continue
        name, want = m.group(1), m.group(3).strip()
        if norm(name) in PROVIDED:
            continue
        have = installed(name)
        if have is None:
            missing.append(spec)
        elif want and not satisfies(have, want):
            print(f"rlenv offline shim: {name} {want} asked, {have} installed is used (no network to fetch another)", file=sys.stderr)
    return missing


def main():
    mode, args = sys.argv[1], sys.argv[2:]
    names, local = parse(args)
    missing = unmet(names)
    where = sys.prefix
    if missing:
        print(f"{os.environ.get('RLENV_PIP_AS', 'pip')} (rlenv offline shim): {'cannot install' if mode == 'install' else 'not installed:'} "
              f"{', '.join(missing)}: not installed for {sys.executable} ({where}) and this sandbox has no network to fetch it "
              "(rlenv runs Harbor tasks offline: install it in environment/Dockerfile)", file=sys.stderr)
        sys.exit(1 if mode == "install" else 0)
    if mode == "check":
        return
    if local:
        cmd = [sys.executable, "-I", "-m", "pip", "install", "--no-index", "--no-build-isolation"]
        cmd += [a for a in args if a not in names]
        sys.exit(subprocess.call(cmd))
    for spec in names:
        print(f"Requirement already satisfied: {spec} (rlenv offline shim: installed in the image)")


main()
`;
