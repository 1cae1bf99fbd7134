"""The sandbox agent (src/core/sandbox/agent/agent.py), driven over its real protocol: JSON
lines on stdin, one JSON reply a line on stdout. Most requests run the agent as a plain child
in a scratch folder; the reset (wipe), which kills every process it can see, runs only inside
bubblewrap namespaces, where that is the agent's own sandbox."""
import base64
import json
import os
import shutil
import subprocess
import time

import pytest

from conftest import REPO, load_module

AGENT = os.path.join(REPO, "src", "core", "sandbox", "agent", "agent.py")
PYTHON = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else "python3"


def b64(text):
    return base64.b64encode(text if isinstance(text, bytes) else text.encode()).decode()


def unb64(text):
    return base64.b64decode(text).decode()


class Agent:
    """One running agent: request() sends a request and returns its reply."""

    def __init__(self, cwd, wrap=()):
        with open(AGENT) as f:
            source = f.read()
        self.proc = subprocess.Popen(
            [*wrap, PYTHON, "-I", "-u", "-c", source], cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": cwd},
        )
        self.next = 1
        self.replies = {}
        ready = self.line()
        assert ready["ready"] is True and ready["id"] == 0, ready

    def line(self):
        raw = self.proc.stdout.readline()
        assert raw, "the agent stopped: %s" % self.proc.stderr.read().decode()
        return json.loads(raw)

    def send(self, msg):
        msg = dict(msg, id=self.next)
        self.next += 1
        self.proc.stdin.write((json.dumps(msg) + "\n").encode())
        self.proc.stdin.flush()
        return msg["id"]

    def reply(self, rid):
        while rid not in self.replies:
            r = self.line()
            self.replies[r["id"]] = r
        return self.replies.pop(rid)

    def request(self, msg):
        return self.reply(self.send(msg))

    def exec(self, argv, **more):
        return self.request(dict({"op": "exec", "argv": argv}, **more))

    def close(self):
        self.proc.stdin.close()
        code = self.proc.wait(timeout=10)
        self.proc.stdout.close()
        self.proc.stderr.close()
        return code


@pytest.fixture
def agent(tmp_path):
    a = Agent(str(tmp_path))
    yield a
    a.close()


def test_exec_gives_output_exit_status_stdin_env_and_cwd(agent, tmp_path):
    (tmp_path / "sub").mkdir()
    r = agent.exec(
        ["/bin/sh", "-c", 'cat; echo "$X"; pwd; echo err >&2; exit 3'],
        stdin=b64("in\n"), env={"X": "from-env"}, cwd=str(tmp_path / "sub"),
    )
    assert (r["exit"], r["signal"], r["ending"]) == (3, None, None)
    assert unb64(r["stdout"]) == "in\nfrom-env\n%s\n" % (tmp_path / "sub")
    assert unb64(r["stderr"]) == "err\n"
    assert r["total"] == len("in\nfrom-env\n%s\n" % (tmp_path / "sub")) + len("err\n")


def test_a_signal_death_is_reported_as_the_signal(agent):
    r = agent.exec(["/bin/sh", "-c", "kill -TERM $$"])
    assert (r["exit"], r["signal"]) == (None, 15)


def test_a_command_line_that_cannot_start_as_words_goes_to_sh(agent):
    r = agent.exec(["no-such-program-rlenv", "x"], sh_command="no-such-program-rlenv x")
    assert r["exit"] == 127
    assert "not found" in unb64(r["stderr"])


def test_an_argv_that_cannot_start_is_an_error_not_an_exit_status(agent):
    r = agent.exec(["/no/such/program"])
    assert "cannot run /no/such/program" in r["error"]
    assert agent.exec(["/bin/echo", "still here"])["stdout"] == b64("still here\n")


def test_output_past_the_cap_is_counted_but_not_kept(agent):
    r = agent.exec(["/bin/sh", "-c", "head -c 100000 /dev/zero | tr '\\0' a"], max_output=10)
    assert r["total"] == 100000
    assert unb64(r["stdout"]) == "a" * 10


def state_of(pid):
    """The process state letter, or None when the process is gone."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            text = f.read()
        return text[text.rindex(")") + 2]
    except OSError:
        return None


def test_a_timeout_kills_the_command_and_what_it_started(agent, tmp_path):
    r = agent.exec(["/bin/sh", "-c", "sleep 60 & echo $! > bg.pid; sleep 60"], timeout_ms=300)
    assert r["ending"] == "timeout"
    bg = int((tmp_path / "bg.pid").read_text())
    # Dead: gone, or a zombie its new parent has not reaped yet.
    assert state_of(bg) in (None, "Z", "X")


def test_kill_ends_one_running_command_and_leaves_the_others(agent):
    slow = agent.send({"op": "exec", "argv": ["sleep", "60"]})
    other = agent.send({"op": "exec", "argv": ["/bin/sh", "-c", "sleep 0.2; echo done"]})
    assert agent.request({"op": "kill", "target": slow}) == {"id": agent.next - 1, "ok": True}
    assert agent.reply(slow)["ending"] == "killed"
    assert unb64(agent.reply(other)["stdout"]) == "done\n"


def test_put_writes_inside_the_workdir_and_refuses_links_leading_out(agent, tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    outside = tmp_path / "outside.txt"
    outside.write_text("host\n")
    os.symlink(str(outside), str(work / "leak.txt"))
    r = agent.request({"op": "put", "root": str(work), "files": {"leak.txt": b64("x")}, "links": "follow"})
    assert r["refused"] is True and "outside the workdir" in r["error"]
    assert outside.read_text() == "host\n"
    # replace: the link at the file's own path goes, and a plain file takes its place.
    r = agent.request({"op": "put", "root": str(work), "files": {"leak.txt": b64("mine\n"), "d/e.bin": b64(b"\x00\xff")},
                       "links": "replace"})
    assert r == {"id": r["id"], "ok": True}
    assert not os.path.islink(str(work / "leak.txt")) and (work / "leak.txt").read_text() == "mine\n"
    assert (work / "d" / "e.bin").read_bytes() == b"\x00\xff"
    assert outside.read_text() == "host\n"


def test_exec_writes_its_files_first_in_the_same_request(agent, tmp_path):
    r = agent.exec(["cat", "check.py"], root=str(tmp_path), files={"check.py": b64("print(1)\n")}, links="replace", cwd=str(tmp_path))
    assert unb64(r["stdout"]) == "print(1)\n"
    refused = agent.exec(["true"], root=str(tmp_path), files={"../x": b64("x")}, links="replace")
    assert refused["refused"] is True and "could not write the files first" in refused["error"]


def test_write_and_read_take_absolute_paths_and_a_missing_file_reads_as_null(agent, tmp_path):
    target = str(tmp_path / "deep" / "f.txt")
    assert agent.request({"op": "write", "files": {target: b64("x")}, "mode": 0o600})["ok"] is True
    assert oct(os.stat(target).st_mode & 0o777) == oct(0o600)
    r = agent.request({"op": "read", "paths": [target, str(tmp_path / "none")]})
    assert r["files"] == {target: b64("x"), str(tmp_path / "none"): None}


def test_a_bad_request_is_answered_with_an_error_and_the_agent_goes_on(agent):
    r = agent.request({"op": "write", "files": {"/x": "not base64!"}})
    assert "Error" in r["error"]
    assert agent.request({"op": "ping"})["ok"] is True


def test_closing_stdin_ends_the_agent_and_kills_its_commands(tmp_path):
    a = Agent(str(tmp_path))
    a.send({"op": "exec", "argv": ["/bin/sh", "-c", "echo $$ > me.pid; exec sleep 60"]})
    while not (tmp_path / "me.pid").exists() or not (tmp_path / "me.pid").read_text().strip():
        time.sleep(0.01)
    pid = int((tmp_path / "me.pid").read_text())
    assert a.close() == 0
    assert state_of(pid) in (None, "Z", "X")


def test_session_members_and_zombie_read_proc(tmp_path):
    agent = load_module("rlenv_agent", AGENT)
    child = subprocess.Popen(["sleep", "30"], start_new_session=True)
    try:
        assert agent.session_members(child.pid) == [child.pid]
        assert agent.zombie(child.pid) is False
    finally:
        child.kill()
        child.wait()
    assert agent.zombie(child.pid) is True


BWRAP = shutil.which("bwrap")


def bwrap_for(work, tmp):
    usr_links = []
    for d in ("/bin", "/sbin", "/lib", "/lib64"):
        if os.path.islink(d):
            usr_links += ["--symlink", os.readlink(d), d]
        elif os.path.isdir(d):
            usr_links += ["--ro-bind", d, d]
    return [BWRAP, "--unshare-all", "--die-with-parent", "--new-session", "--ro-bind", "/usr", "/usr", *usr_links,
            "--proc", "/proc", "--dev", "/dev", "--bind", str(tmp), "/tmp", "--bind", str(work), "/workspace",
            "--chdir", "/workspace", "--"]


def bwrap_works():
    if not BWRAP:
        return False
    return subprocess.run([BWRAP, "--unshare-all", "--ro-bind", "/", "/", "true"], capture_output=True).returncode == 0


@pytest.mark.skipif(not bwrap_works(), reason="bubblewrap cannot make namespaces here (the wipe kills every process it sees)")
def test_wipe_kills_everything_empties_the_folders_and_writes_the_seed(tmp_path):
    work, tmp = tmp_path / "work", tmp_path / "tmp"
    work.mkdir()
    tmp.mkdir()
    a = Agent(str(work), wrap=bwrap_for(work, tmp))
    try:
        # A detached process that outlives its command, files in both folders, one in a locked folder.
        r = a.exec(["/bin/sh", "-c", "setsid sleep 60 & mkdir -p locked/in && touch locked/in/f /tmp/t && chmod 0 locked"])
        assert r["exit"] == 0, unb64(r["stderr"])
        running = a.send({"op": "exec", "argv": ["sleep", "60"]})
        r = a.request({"op": "wipe", "paths": ["/workspace", "/tmp", "/dev/shm"], "files": {"/workspace/seed.py": b64("x = 1\n")}})
        assert (r["ok"], r["left"]) == (True, [])
        assert a.reply(running)["ending"] == "killed"
        assert sorted(os.listdir(str(work))) == ["seed.py"]
        assert os.listdir(str(tmp)) == []
        ps = a.exec(["/bin/sh", "-c", "ls /proc | grep -c '^[0-9]'"])
        # bwrap's init, the agent, and the sh counting (its ls and grep may or may not be listed yet).
        assert int(unb64(ps["stdout"])) <= 5
        assert "sleep" not in unb64(a.exec(["/bin/sh", "-c", "cat /proc/[0-9]*/comm"])["stdout"])
    finally:
        a.close()
