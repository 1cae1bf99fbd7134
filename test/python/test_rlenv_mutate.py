"""rlenv audit's mutator (src/core/audit/python/rlenv_mutate.py), run as the audit runs it:
`python3 - --seed S --max M FILE...` with the source on stdin, one JSON object on stdout."""
import json
import os
import subprocess
import sys

from conftest import REPO

MUTATE = os.path.join(REPO, "src", "core", "audit", "python", "rlenv_mutate.py")

SOLUTION = '''"""A docstring is never mutated."""


def clamp(x, lo, hi):
    # comments are dropped by ast.unparse
    if x < lo:
        return lo
    if x > hi:
        return hi
    return x + 0
'''


def mutate(cwd, *args):
    with open(MUTATE, "rb") as f:
        r = subprocess.run([sys.executable, "-", *args], stdin=f, cwd=cwd, capture_output=True, check=False)
    assert r.returncode == 0, r.stderr.decode()
    return json.loads(r.stdout)


def test_every_mutant_compiles_differs_from_the_original_and_carries_its_diff(tmp_path):
    (tmp_path / "solution.py").write_text(SOLUTION)
    out = mutate(str(tmp_path), "--seed", "1", "--max", "100", "solution.py")
    assert out["errors"] == []
    assert out["candidates"] >= 3 and len(out["mutants"]) >= 3
    for m in out["mutants"]:
        assert m["file"] == "solution.py"
        assert m["source"] != m["original"]
        compile(m["source"], "solution.py", "exec")
        assert m["diff"].startswith("--- a/solution.py\n+++ b/solution.py\n")
        assert "A docstring is never mutated." in m["source"]


def test_the_same_seed_picks_the_same_mutants_and_max_bounds_them(tmp_path):
    (tmp_path / "solution.py").write_text(SOLUTION)
    a = mutate(str(tmp_path), "--seed", "7", "--max", "2", "solution.py")
    b = mutate(str(tmp_path), "--seed", "7", "--max", "2", "solution.py")
    assert len(a["mutants"]) == 2
    assert a == b


def test_a_file_that_does_not_parse_is_an_error_and_the_others_still_mutate(tmp_path):
    (tmp_path / "solution.py").write_text(SOLUTION)
    (tmp_path / "broken.py").write_text("def (:\n")
    out = mutate(str(tmp_path), "--max", "50", "broken.py", "solution.py", "missing.py")
    assert len(out["errors"]) == 2
    assert out["errors"][0].startswith("broken.py: ")
    assert out["errors"][1].startswith("missing.py: ")
    assert out["mutants"] and all(m["file"] == "solution.py" for m in out["mutants"])
