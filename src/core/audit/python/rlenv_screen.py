"""Runs a verifier's test commands over many candidate solutions in one sandbox exec, for
`rlenv audit` (its mutants, its reruns of the oracle's files).

Run inside the sandbox, in the workdir, as `python3 -I -c SOURCE` with the request (JSON) on
stdin:

  {"seed": {path: text}, "output_limit": bytes,
   "candidates": [{"files": {path: text}, "actions": [{"argv": [...], "timeout_ms": n} or {"write": path, "text": text}]}],
   "steps": [{"argv": [...], "hidden": {path: text}, "stdin": text or null,
              "timeout_ms": n, "report": path or null, "env": {name: value} (optional, added to the environment)}],
   "budget": {"factor": f, "min_ms": n} (optional)}

For each candidate, in order: every process younger than this one is killed and the workdir
(the current directory), /tmp, /dev/shm and /dev/mqueue are emptied, as a recycled sandbox's
reset does; the workdir gets the seed files and then the candidate's files, as a rollout's
reset and the oracle's writes would leave it; its actions run in order (a command as the bash
tool runs it, a file written as write_file writes it: an agent's turns); then each step writes its hidden files
(a link or file in the way is replaced, as the verifier does) and runs its argv with its stdin
in a session of its own, under its timeout, killing the whole session afterwards. Each run is
a fresh process, exactly the verifier's command: nothing is imported into this process.

With a budget, the first candidate (the gold) runs each step under its full timeout, and every
later candidate's step i under min(timeout, max(min_ms, factor x the gold's time for step i)): a
candidate still running then is stopped and answered {"error": ..., "over_budget": true}. The
screen judges no candidate it did not see finish (a slow but correct one would pass the real
verifier); the audit plays those as rollouts, in parallel, under the verifier's real timeout,
instead of one after another here (an infinite loop a mutation made costs the whole timeout).

Prints one JSON object: {"candidates": [{"error": why} or {"steps": [{"status": "ok" | "timeout" | "killed",
"exit_code", "signal", "stdout" (base64), "stderr" (base64), "stdout_bytes", "stderr_bytes",
"duration_ms", "report" (base64 or null)}]}]}. Output is kept as the sandbox keeps it: the
first `output_limit` bytes of both streams together, in the order they arrived; the byte
counts are of everything written.
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


def wipe(path, mode):
    """Removes everything below path, making read-only folders (path itself too) writable first."""
    os.chmod(path, mode)
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


SHARED = ("/tmp", "/dev/shm", "/dev/mqueue")


def start_time(pid):
    """When the process started (clock ticks since boot); None for a zombie (dead, only not reaped)."""
    with open("/proc/%d/stat" % pid, "rb") as f:
        line = f.read()
    fields = line[line.rindex(b")") + 2:].split()
    return None if fields[0] in (b"Z", b"X") else int(fields[19])


def kill_younger():
    """Every process started after this one (what earlier candidates left running) is killed."""
    me = os.getpid()
    mine = start_time(me)
    for _ in range(100):
        left = []
        for name in os.listdir("/proc"):
            if not name.isdigit() or int(name) == me:
                continue
            try:
                t = start_time(int(name))
                if t is not None and t >= mine:
                    left.append(int(name))
            except (OSError, ValueError, IndexError):
                pass
        if not left:
            return
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        try:
            while os.waitpid(-1, os.WNOHANG)[0] > 0:
                pass
        except ChildProcessError:
            pass
        time.sleep(0.002)


def clean_shared(before):
    for root in SHARED:
        if not os.path.isdir(root):
            continue
        for name in set(os.listdir(root)) - before.get(root, set()):
            full = os.path.join(root, name)
            try:
                if os.path.isdir(full) and not os.path.islink(full):
                    for r, dirs, _files in os.walk(full):
                        for d in dirs:
                            try:
                                os.chmod(os.path.join(r, d), 0o755)
                            except OSError:
                                pass
                    os.chmod(full, 0o755)
                    shutil.rmtree(full, ignore_errors=True)
                else:
                    os.unlink(full)
            except OSError:
                pass


class OverBudget(Exception):
    pass


def run(step, limit, budget_ms=None):
    stdin = subprocess.PIPE if step.get("stdin") is not None else subprocess.DEVNULL
    t0 = time.monotonic()
    env = dict(os.environ, **step["env"]) if step.get("env") else None
    proc = subprocess.Popen(
        step["argv"], stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=HERE, env=env, start_new_session=True
    )
    if stdin == subprocess.PIPE:
        try:
            proc.stdin.write(step["stdin"].encode("utf-8"))
            proc.stdin.close()
        except OSError:
            pass
    kept = {"stdout": bytearray(), "stderr": bytearray()}
    totals = {"stdout": 0, "stderr": 0}
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ, "stdout")
    sel.register(proc.stderr, selectors.EVENT_READ, "stderr")
    stop_ms = step["timeout_ms"] if budget_ms is None else min(step["timeout_ms"], budget_ms)
    deadline = t0 + stop_ms / 1000.0
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
            totals[key.data] += len(chunk)
            buf = kept[key.data]
            room = limit - len(kept["stdout"]) - len(kept["stderr"])
            if room > 0:
                buf.extend(chunk[:room])
    if not timed_out:
        try:
            proc.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            timed_out = True
    duration = (time.monotonic() - t0) * 1000.0
    # The command's process group goes with it (as the sandbox's exec kills its tree); what
    # escaped into a session of its own lives on until the next candidate, as in a rollout.
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except OSError:
        pass
    proc.wait()
    sel.close()
    proc.stdout.close()
    proc.stderr.close()
    code = proc.returncode
    if timed_out and stop_ms < step["timeout_ms"]:
        raise OverBudget("still running after the screen's budget of %d ms (the gold's time x the factor)" % stop_ms)
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
        "stdout_bytes": totals["stdout"],
        "stderr_bytes": totals["stderr"],
        "duration_ms": duration,
        "report": report,
    }


def act(action, limit):
    if "write" in action:
        write(action["write"], action["text"], False)
        return
    run({"argv": action["argv"], "stdin": None, "timeout_ms": action["timeout_ms"]}, limit)


def play(req, cand, budgets):
    for rel, text in req["seed"].items():
        write(rel, text, False)
    for rel, text in cand.get("files", {}).items():
        write(rel, text, True)
    for action in cand.get("actions", []):
        act(action, req["output_limit"])
    steps = []
    for i, step in enumerate(req["steps"]):
        for rel, text in step.get("hidden", {}).items():
            write(rel, text, True)
        steps.append(run(step, req["output_limit"], budgets[i] if budgets else None))
    return steps


def main():
    req = json.loads(sys.stdin.read())
    os.chdir(req["workdir"])
    global HERE
    HERE = os.getcwd()
    mode = os.stat(HERE).st_mode & 0o7777
    before = {root: set(os.listdir(root)) for root in SHARED if os.path.isdir(root)}
    out = []
    budget = req.get("budget")
    budgets = None
    for k, cand in enumerate(req["candidates"]):
        kill_younger()
        wipe(HERE, mode)
        clean_shared(before)
        try:
            steps = play(req, cand, budgets)
            out.append({"steps": steps})
            if budget and k == 0:
                budgets = [max(budget["min_ms"], budget["factor"] * s["duration_ms"]) for s in steps]
        except OverBudget as e:
            out.append({"error": str(e), "over_budget": True})
        except Exception as e:  # this candidate cannot be judged here (a hidden file it kept from being written): a rollout plays it
            out.append({"error": "%s: %s" % (type(e).__name__, e)})
    kill_younger()
    wipe(HERE, mode)
    clean_shared(before)
    json.dump({"candidates": out}, sys.stdout)


if __name__ == "__main__":
    main()
