"""Runs a verifier's test commands over many candidate solutions in one sandbox exec, for
`rlenv audit` (its mutants, its reruns of the oracle's files).

Run inside the sandbox, in the workdir, as `python3 -I -c SOURCE` with the request (JSON) on
stdin:

  {"seed": {path: text}, "candidates": [{"files": {path: text}}], "output_limit": bytes,
   "steps": [{"argv": [...], "hidden": {path: text}, "stdin": text or null,
              "timeout_ms": n, "report": path or null}]}

For each candidate, in order: the workdir (the current directory) is emptied and given the
seed files and then the candidate's files, as a rollout's reset and the oracle's writes would
leave it; what earlier runs added to /tmp is removed; then each step writes its hidden files
(a link or file in the way is replaced, as the verifier does) and runs its argv with its stdin
in a session of its own, under its timeout, killing the whole session afterwards. Each run is
a fresh process, exactly the verifier's command: nothing is imported into this process.

Prints one JSON object: {"candidates": [{"steps": [{"status": "ok" | "timeout" | "killed",
"exit_code", "signal", "stdout" (base64), "stderr" (base64), "over": bool, "duration_ms",
"report" (base64 or null)}]}]}. `over` says the output passed `output_limit` (the sandbox
would have cut it): such a run is not judged from here.
"""

import base64
import json
import os
import selectors
import shutil
import signal
import subprocess
import sys
import time

HERE = os.getcwd()


def wipe(path):
    """Removes everything below path, making read-only folders writable first."""
    for name in os.listdir(path):
        full = os.path.join(path, name)
        if os.path.islink(full) or not os.path.isdir(full):
            os.unlink(full)
            continue
        for root, dirs, _files in os.walk(full):
            for d in dirs:
                try:
                    os.chmod(os.path.join(root, d), 0o755)
                except OSError:
                    pass
        os.chmod(full, 0o755)
        shutil.rmtree(full)


def write(rel, text, replace):
    full = os.path.join(HERE, rel)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    if replace and (os.path.islink(full) or os.path.exists(full)):
        if os.path.isdir(full) and not os.path.islink(full):
            shutil.rmtree(full)
        else:
            os.unlink(full)
    with open(full, "w", encoding="utf-8", newline="") as f:
        f.write(text)


def clean_tmp(before):
    for name in set(os.listdir("/tmp")) - before:
        full = os.path.join("/tmp", name)
        try:
            if os.path.isdir(full) and not os.path.islink(full):
                shutil.rmtree(full, ignore_errors=True)
            else:
                os.unlink(full)
        except OSError:
            pass


def run(step, limit):
    stdin = subprocess.PIPE if step.get("stdin") is not None else subprocess.DEVNULL
    t0 = time.monotonic()
    proc = subprocess.Popen(step["argv"], stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=HERE, start_new_session=True)
    if stdin == subprocess.PIPE:
        try:
            proc.stdin.write(step["stdin"].encode("utf-8"))
            proc.stdin.close()
        except OSError:
            pass
    kept = {"stdout": bytearray(), "stderr": bytearray()}
    total = 0
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ, "stdout")
    sel.register(proc.stderr, selectors.EVENT_READ, "stderr")
    deadline = t0 + step["timeout_ms"] / 1000.0
    timed_out = False
    open_streams = 2
    while open_streams > 0:
        left = deadline - time.monotonic()
        if left <= 0:
            timed_out = True
            break
        for key, _ in sel.select(timeout=min(left, 1.0)):
            chunk = os.read(key.fileobj.fileno(), 65536)
            if not chunk:
                sel.unregister(key.fileobj)
                open_streams -= 1
                continue
            total += len(chunk)
            buf = kept[key.data]
            room = limit + 1 - len(kept["stdout"]) - len(kept["stderr"])
            if room > 0:
                buf.extend(chunk[:room])
    if not timed_out:
        try:
            proc.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            timed_out = True
    duration = (time.monotonic() - t0) * 1000.0
    # The whole session goes, whatever it left running.
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except OSError:
        pass
    proc.wait()
    sel.close()
    proc.stdout.close()
    proc.stderr.close()
    code = proc.returncode
    report = None
    if step.get("report"):
        try:
            with open(os.path.join(HERE, step["report"]), "rb") as f:
                report = base64.b64encode(f.read()).decode("ascii")
        except OSError:
            report = None
    return {
        "status": "timeout" if timed_out else ("killed" if code is not None and code < 0 else "ok"),
        "exit_code": None if timed_out or code is None or code < 0 else code,
        "signal": -code if code is not None and code < 0 else None,
        "stdout": base64.b64encode(bytes(kept["stdout"])).decode("ascii"),
        "stderr": base64.b64encode(bytes(kept["stderr"])).decode("ascii"),
        "over": total > limit,
        "duration_ms": duration,
        "report": report,
    }


def main():
    req = json.loads(sys.stdin.read())
    tmp_before = set(os.listdir("/tmp"))
    out = []
    for cand in req["candidates"]:
        wipe(HERE)
        clean_tmp(tmp_before)
        for rel, text in req["seed"].items():
            write(rel, text, False)
        for rel, text in cand["files"].items():
            write(rel, text, True)
        steps = []
        for step in req["steps"]:
            for rel, text in step.get("hidden", {}).items():
                write(rel, text, True)
            steps.append(run(step, req["output_limit"]))
        out.append({"steps": steps})
    wipe(HERE)
    clean_tmp(tmp_before)
    json.dump({"candidates": out}, sys.stdout)


if __name__ == "__main__":
    main()
