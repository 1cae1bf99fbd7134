"""sitecustomize for `rlenv audit`'s equivalence check: records what the functions of the
mutated files return to code outside them while the task's tests run.

Installed as sitecustomize.py in a folder put first on PYTHONPATH. RLENV_TRACE_FILES names
the files to watch (absolute paths, os.pathsep between them) and RLENV_TRACE_OUT where the
record goes (JSON, written at exit). Two runs, one with the reference solution and one with
a mutant, that record the same values mean the mutant computed what the gold did on the
task's own inputs.
"""

import atexit
import json
import os
import sys
import threading

_files = set(os.path.realpath(p) for p in os.environ.get("RLENV_TRACE_FILES", "").split(os.pathsep) if p)
_out = os.environ.get("RLENV_TRACE_OUT")
_seen = []
_LIMIT = 20000


def _norm(value):
    # Values equal under == record the same (0 == False, 1 == 1.0), as the tests compare them.
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)):
        return float(value)
    try:
        return repr(value)[:2000]
    except Exception:
        return "<unrepresentable %s>" % type(value).__name__


# Every code object's file, answered once: the profile sees every return in the process, and a
# realpath (an lstat per part of the path) on each one made a traced run twice as slow.
_known = {}


def _watched(path):
    known = _known.get(path)
    if known is None:
        known = _known[path] = path in _files or os.path.realpath(path) in _files
    return known


def _profile(frame, event, arg):
    if event != "return" or len(_seen) >= _LIMIT:
        return
    if not _watched(frame.f_code.co_filename):
        return
    # Only what the watched code hands back to its callers outside it (the tests, the harness)
    # is its output: the returns of its own helpers, lambdas and comprehensions are not. A
    # mutant that changes an inner value (a sort key shifted by one, a loop that starts at a
    # divisor it then skips) but computes the same outputs is equivalent.
    caller = frame.f_back
    if caller is not None and _watched(caller.f_code.co_filename):
        return
    _seen.append([frame.f_code.co_name, _norm(arg)])


def _write():
    sys.setprofile(None)
    # A test that runs the submission in a child process: only the process that ran the watched code writes.
    if _out and _seen:
        with open(_out, "w") as f:
            json.dump(_seen, f)


if _files and _out:
    # Tests that draw random inputs draw the same ones in the gold's run and the mutant's.
    import random

    random.seed(0)
    atexit.register(_write)
    sys.setprofile(_profile)
    threading.setprofile(_profile)
