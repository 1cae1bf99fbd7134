"""rlenv audit's tracer (src/core/audit/python/rlenv_trace.py), installed as the audit does:
sitecustomize.py in a folder first on PYTHONPATH, watching the files RLENV_TRACE_FILES names."""
import json
import os
import shutil
import subprocess
import sys

from conftest import REPO

TRACE = os.path.join(REPO, "src", "core", "audit", "python", "rlenv_trace.py")


def run_traced(tmp_path, body, watch=True):
    site = tmp_path / "site"
    site.mkdir(exist_ok=True)
    shutil.copy(TRACE, str(site / "sitecustomize.py"))
    (tmp_path / "solution.py").write_text(body)
    (tmp_path / "test_it.py").write_text("import random\nfrom solution import f\nprint(f(random.randint(0, 10 ** 9)), f(True))\n")
    out = tmp_path / "trace.json"
    env = dict(os.environ, PYTHONPATH=str(site), RLENV_TRACE_OUT=str(out))
    if watch:
        env["RLENV_TRACE_FILES"] = str(tmp_path / "solution.py")
    r = subprocess.run([sys.executable, "test_it.py"], cwd=str(tmp_path), env=env, capture_output=True, text=True, check=False)
    assert r.returncode == 0, r.stderr
    return (json.loads(out.read_text()) if out.exists() else None), r.stdout


def test_records_what_the_watched_functions_return_with_random_seeded_alike(tmp_path):
    first, printed = run_traced(tmp_path, "def f(x):\n    return x * 2\n")
    # The module body itself returns None; then f on the seeded random draw, then f(True) == 2, recorded as a number.
    assert first[0] == ["<module>", "None"]
    assert first[2] == ["f", 2.0]
    again, printed_again = run_traced(tmp_path, "def f(x):\n    return x + x\n")
    assert printed == printed_again
    assert again == first


def test_a_different_result_records_differently(tmp_path):
    gold, _ = run_traced(tmp_path, "def f(x):\n    return x * 2\n")
    mutant, _ = run_traced(tmp_path, "def f(x):\n    return x * 3\n")
    assert gold != mutant


def test_without_files_to_watch_it_records_nothing(tmp_path):
    trace, _ = run_traced(tmp_path, "def f(x):\n    return x\n", watch=False)
    assert trace is None


def test_only_outputs_count_not_the_values_of_inner_helpers(tmp_path):
    # A sort key shifted for one element changes what the key function returns, not what f returns.
    gold, _ = run_traced(tmp_path, "K = {1: 1, 2: 2, 3: 3}\ndef f(x):\n    return sorted([3, 1, 2], key=lambda v: K[v])\n")
    same, _ = run_traced(tmp_path, "K = {1: 1, 2: 2, 3: 30}\ndef f(x):\n    return sorted([3, 1, 2], key=lambda v: K[v])\n")
    assert gold == same
    assert all(name != "<lambda>" for name, _ in gold)
    # A helper whose value reaches the output still tells them apart.
    helper, _ = run_traced(tmp_path, "def g(x):\n    return x * 2\ndef f(x):\n    return g(x)\n")
    wrong, _ = run_traced(tmp_path, "def g(x):\n    return x * 3\ndef f(x):\n    return g(x)\n")
    assert helper != wrong
    assert all(name != "g" for name, _ in helper)
