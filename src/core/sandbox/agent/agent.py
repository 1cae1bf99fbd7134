# The in-sandbox agent: started once per sandbox (a docker container, or the process backend's
# bwrap/unshare namespaces), it reads JSON requests (one a line) on stdin and answers one JSON
# line each on stdout, spawning commands itself so a tool call costs a process spawn, not a
# docker exec or a new set of namespaces. Single-threaded: one selector loop serves every
# running command, its pipes, deadlines and the SIGCHLD wake-up.
#
# Started as "python3 -I -u -c SOURCE" (nothing is written into the sandbox; -I keeps the
# workdir, where sandboxed code writes, off sys.path). Protocol, one JSON object a line:
# requests {id, op: exec|kill|wipe|write|put|read|ping, ...}; one answer per request
# ({id, exit, signal, stdout, stderr (base64), total, ending, oom, pids_hit, ms} for exec;
# {id, ok}, {id, files} or {id, error} otherwise); {id: 0, ready: true, pid} once at start.
# put {root, files: {relative path: base64}, links: follow|replace} writes workdir files from
# inside (refusals answer {error, refused: true}); exec takes the same three fields to write
# them just before the command starts (one round trip), and sh_command: the command line its
# argv came from, run by sh instead when the argv cannot start.
# wipe {paths, files?, mode?} is a whole reset in one round trip: every other process killed,
# the folders emptied, then the seed files written; it answers {ok, left}, `left` naming what
# survived (a sandbox with leftovers is not clean and must not be reused).
# The TypeScript side is agent-client.ts beside this file.
import base64, json, os, selectors, shutil, signal, stat, subprocess, sys, time

# Every descriptor the agent inherited beyond its three pipes is closed before anything else: one
# left open by whatever started the host's process (a launcher's log, a root-only file) would
# otherwise be reachable from inside the sandbox through this process. (Only when run as the
# agent: the Python tests import this file into their own process, whose descriptors are theirs.)
if __name__ == "__main__":
    os.closerange(3, 1 << 20)

sel = selectors.DefaultSelector()
OUT = sys.stdout.buffer
OOM = ("/sys/fs/cgroup/memory.events", "oom_kill", "/sys/fs/cgroup/memory/memory.oom_control", "oom_kill")
PIDS = ("/sys/fs/cgroup/pids.events", "max", "/sys/fs/cgroup/pids/pids.events", "max")
# The modes of the folders a reset empties, as the container started (the agent's cwd is the workdir).
ROOT_MODES = {}
for _root in (os.getcwd(), "/tmp", "/dev/shm", "/dev/mqueue"):
    try:
        ROOT_MODES[_root] = stat.S_IMODE(os.lstat(_root).st_mode)
    except OSError:
        pass


def counter_file(spec):
    # The cgroup v2 file, else the v1 one: found once and kept open, since every exec reads
    # both counters twice (an open per read was a sixth of the agent's time per exec).
    for path, key in ((spec[0], spec[1]), (spec[2], spec[3])):
        try:
            return os.open(path, os.O_RDONLY | os.O_CLOEXEC), key.encode()
        except OSError:
            pass
    return None


COUNTERS = {OOM: counter_file(OOM), PIDS: counter_file(PIDS)}


def counter(spec):
    found = COUNTERS[spec]
    if found is None:
        return 0
    fd, key = found
    try:
        for line in os.pread(fd, 65536, 0).split(b"\n"):
            k, _, v = line.partition(b" ")
            if k == key:
                return int(v)
    except (OSError, ValueError):
        pass
    return 0


def send(msg):
    OUT.write(json.dumps(msg).encode() + b"\n")
    OUT.flush()


def session_members(sid):
    pids = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % name, "rb") as f:
                stat = f.read()
            fields = stat[stat.rindex(b")") + 2:].split()
            if int(fields[3]) == sid or int(fields[2]) == sid:
                pids.append(int(name))
        except (OSError, ValueError, IndexError):
            pass
    return pids


def kill_tree(sid):
    # The command leads its own session; kill its group and every process still in it.
    for _ in range(3):
        try:
            os.killpg(sid, signal.SIGKILL)
        except OSError:
            pass
        for pid in session_members(sid):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass


class Job:
    def __init__(self, req, proc):
        self.id = req["id"]
        self.proc = proc
        self.cap = int(req.get("max_output") or 1000000)
        t = req.get("timeout_ms")
        self.started = time.monotonic()
        self.deadline = self.started + t / 1000.0 if t else None
        self.kept = 0
        self.total = 0
        self.out = {"stdout": [], "stderr": []}
        self.open = 2
        self.status = None
        self.exited_at = None
        self.ending = None
        self.stdin = base64.b64decode(req.get("stdin") or "")
        self.oom0 = counter(OOM)
        self.pids0 = counter(PIDS)

    def add(self, name, chunk):
        self.total += len(chunk)
        room = self.cap - self.kept
        if room > 0:
            piece = chunk[:room]
            self.out[name].append(piece)
            self.kept += len(piece)


jobs = {}


# The commands' oom_score_adj: a memory limit filled by many processes smaller than this agent made
# the agent the largest, so the kernel killed it and the sandbox read as lost (an infrastructure error
# the model caused). At the most, a command and all it starts are killed before the agent whatever
# their sizes. Raising needs no privilege (lowering the agent's would, which docker and a host without
# CAP_SYS_RESOURCE refuse). The agent raises its own just for the spawn, which the child inherits, and
# then lowers it back (never below where it started, so allowed): a preexec_fn would do it in the child
# but costs the spawn its vfork, doubling a short command's exec time.
def oom_adj_writer():
    try:
        with open("/proc/self/oom_score_adj") as f:
            start_value = f.read().strip().encode() or b"0"
        return os.open("/proc/self/oom_score_adj", os.O_WRONLY | os.O_CLOEXEC), start_value
    except (OSError, ValueError):
        return None, b"0"


OOM_ADJ, OOM_ADJ_START = oom_adj_writer()


def set_oom_adj(value):
    if OOM_ADJ is not None:
        try:
            os.write(OOM_ADJ, value)
        except OSError:
            pass


def start(req):
    env = None  # the agent's own, unless the request adds to it (sparing a copy per exec)
    if req.get("env"):
        env = dict(os.environ)
        env.update(req["env"])
    argv = req["argv"]
    while True:
        set_oom_adj(b"1000")
        try:
            proc = subprocess.Popen(argv, cwd=req.get("cwd"), env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, start_new_session=True, bufsize=0)
            break
        except OSError as e:
            # A command line run as its words: what cannot start that way (missing, not
            # executable, a script without #!) goes to sh, which answers as a shell does.
            if req.get("sh_command") is not None and argv is req["argv"]:
                argv = ["/bin/sh", "-c", req["sh_command"]]
                continue
            send({"id": req["id"], "error": "cannot run %s: %s" % (argv[0] if argv else "", e.strerror or e)})
            return
        finally:
            set_oom_adj(OOM_ADJ_START)
    job = Job(req, proc)
    jobs[proc.pid] = job
    for f, name in ((proc.stdout, "stdout"), (proc.stderr, "stderr")):
        os.set_blocking(f.fileno(), False)
        sel.register(f.fileno(), selectors.EVENT_READ, ("out", (job, name, f)))
    if job.stdin:
        os.set_blocking(proc.stdin.fileno(), False)
        sel.register(proc.stdin.fileno(), selectors.EVENT_WRITE, ("in", job))
    else:
        proc.stdin.close()


def finish(job):
    for f in (job.proc.stdout, job.proc.stderr, job.proc.stdin):
        try:
            sel.unregister(f.fileno())
        except (KeyError, ValueError):
            pass
        try:
            f.close()
        except OSError:
            pass
    del jobs[job.proc.pid]
    st = job.status
    send({
        "id": job.id,
        "exit": os.WEXITSTATUS(st) if os.WIFEXITED(st) else None,
        "signal": os.WTERMSIG(st) if os.WIFSIGNALED(st) else None,
        "stdout": base64.b64encode(b"".join(job.out["stdout"])).decode(),
        "stderr": base64.b64encode(b"".join(job.out["stderr"])).decode(),
        "total": job.total,
        "ending": job.ending,
        "oom": counter(OOM) > job.oom0,
        "pids_hit": counter(PIDS) > job.pids0,
        "ms": (time.monotonic() - job.started) * 1000.0,
    })


def others():
    # Every process but init and the agent, zombie leaders included: a process whose main thread
    # exited alone reads as a zombie in /proc/<pid>/stat while its other threads run on.
    me = os.getpid()
    return [int(n) for n in os.listdir("/proc") if n.isdigit() and int(n) not in (1, me)]


def alive(pid):
    # Whether any thread of the process still runs (a zombie leader's threads are under task/).
    try:
        tids = os.listdir("/proc/%d/task" % pid)
    except OSError:
        return False  # gone
    return any(not zombie(pid, int(t)) for t in tids if t.isdigit())


def unlock(root):
    # Everything under a wiped folder is the sandbox user's own: a folder it made unreadable
    # or unwritable is opened up so that it can go too.
    for dirpath, dirnames, _ in os.walk(root):
        for d in dirnames:
            full = os.path.join(dirpath, d)
            if not os.path.islink(full):
                try:
                    os.chmod(full, 0o700)
                except OSError:
                    pass


def empty(root):
    for name in os.listdir(root):
        p = os.path.join(root, name)
        if os.path.isdir(p) and not os.path.islink(p):
            shutil.rmtree(p, ignore_errors=True)
        else:
            try:
                os.unlink(p)
            except OSError:
                pass


def sysv_ipc():
    found = []
    for kind in ("shm", "msg", "sem"):
        try:
            with open("/proc/sysvipc/" + kind) as f:
                found += [(kind, int(line.split()[1])) for line in f.readlines()[1:] if line.strip()]
        except (OSError, ValueError, IndexError):
            pass
    return found


def drop_sysv_ipc():
    # SysV shared memory, queues and semaphores outlive their processes in the container's IPC
    # namespace: remove any (rare, so the C library is loaded only when one exists).
    found = sysv_ipc()
    if not found:
        return []
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    for kind, i in found:
        if kind == "sem":
            libc.semctl(i, 0, 0)  # IPC_RMID
        else:
            getattr(libc, kind + "ctl")(i, 0, None)
    return ["SysV IPC %s %d" % (kind, i) for kind, i in sysv_ipc()]


def wipe(paths):
    # Reset: kill every command, then empty the workdir, /tmp and shared memory (the folders
    # stay, their modes restored). Returns what could not be removed: a sandbox with leftovers
    # must not be handed to another rollout.
    for job in list(jobs.values()):
        job.ending = job.ending or "killed"
        kill_tree(job.proc.pid)
    # Until nothing is left (a fork bomb forks while it is being killed, and a killed process
    # takes a moment to die), for at most two seconds.
    # A SIGKILL to a zombie leader reaches its whole thread group, so every pid is killed, dead or not.
    until = time.monotonic() + 2.0
    while True:
        pids = [p for p in others() if alive(p)]
        if not pids or time.monotonic() > until:
            break
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        time.sleep(0.002)
    left = ["process %d" % p for p in others() if alive(p)]
    for root in paths:
        if not os.path.isdir(root):
            continue
        mode = ROOT_MODES.get(root)
        if mode is not None and stat.S_IMODE(os.lstat(root).st_mode) != mode:
            try:
                os.chmod(root, mode)
            except OSError:
                pass
        empty(root)
        if os.listdir(root):
            unlock(root)
            empty(root)
        left += [os.path.join(root, n) for n in os.listdir(root)]
    left += drop_sysv_ipc()
    return left


def zombie(pid, tid=None):
    try:
        with open("/proc/%d/stat" % pid if tid is None else "/proc/%d/task/%d/stat" % (pid, tid), "rb") as f:
            stat_line = f.read()
        return stat_line[stat_line.rindex(b")") + 2:].split()[0] in (b"Z", b"X")
    except (OSError, ValueError, IndexError):
        return True  # gone


# O_NONBLOCK: opening a FIFO with no reader fails (ENXIO) instead of blocking this agent, and with it
# every exec of the sandbox (the rollout then read as a lost sandbox: an infrastructure error a model
# could cause at will by planting a FIFO where the engine writes).
WRITE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


def write_regular(path, data, mode=None):
    """The base64 data written to path as a plain file (WRITE_FLAGS: never through a link at the path
    itself, never blocking on a FIFO); mode, when given, set whether the file was made or was there."""
    fd = os.open(path, WRITE_FLAGS, 0o666 if mode is None else mode)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError("%s is not a regular file (a FIFO, a socket or a device)" % path)
        view = memoryview(base64.b64decode(data))
        while view:
            view = view[os.write(fd, view):]
        if mode is not None:
            os.fchmod(fd, mode)
    finally:
        os.close(fd)


def write_files(files, mode):
    # The engine's own writes (seed files, hidden tests): whatever is at the path and is not a plain
    # file (a link, a FIFO, a folder) is removed first, as the process backend's host-side write does.
    for path, data in files.items():
        os.makedirs(os.path.dirname(path), exist_ok=True)
        try:
            st = os.lstat(path)
            if stat.S_ISDIR(st.st_mode):
                shutil.rmtree(path, ignore_errors=True)
            elif not stat.S_ISREG(st.st_mode):
                os.unlink(path)
        except FileNotFoundError:
            pass
        write_regular(path, data, mode)


class Refused(Exception):
    pass


def put_files(root, files, replace):
    # Workdir files written by the agent itself (no shell to spawn), resolved here, inside the
    # sandbox, so a link the code under test planted reaches only what the sandbox sees, and
    # refused unless they land in the workdir. replace: a link at a file's own path is removed
    # and a plain file written (the engine's own files); else it is written through (an editor).
    try:
        w = os.path.realpath(root, strict=True)
    except OSError:
        raise Refused("the workdir is missing")
    for rel, data in files.items():
        p = os.path.join(w, rel)
        try:
            if replace and os.path.islink(p):
                os.unlink(p)
            f = os.path.realpath(p)
            if not f.startswith(w + "/"):
                raise Refused("'%s' resolves to %s, outside the workdir" % (rel, f))
            if os.path.isdir(f):
                raise Refused("'%s' is a folder" % rel)
            try:
                st = os.lstat(f)
                if not stat.S_ISREG(st.st_mode):
                    # A FIFO, a socket or a device: the engine's own file replaces it; a tool's write refuses it.
                    if not replace:
                        raise Refused("'%s' is not a regular file (a FIFO, a socket or a device)" % rel)
                    os.unlink(f)
            except FileNotFoundError:
                pass
            os.makedirs(os.path.dirname(f), exist_ok=True)
            # f is resolved: a link or FIFO that appeared there since is refused, not followed or waited on.
            write_regular(f, data)
        except OSError as e:
            raise Refused("writing '%s' failed: %s" % (rel, e.strerror or e))


def handle(req):
    op = req.get("op")
    try:
        if op == "exec":
            if req.get("files"):
                try:
                    put_files(req["root"], req["files"], req.get("links") == "replace")
                except Refused as e:
                    send({"id": req["id"], "error": "could not write the files first: %s" % e, "refused": True})
                    return
            start(req)
        elif op == "put":
            try:
                put_files(req["root"], req["files"], req.get("links") == "replace")
                send({"id": req["id"], "ok": True})
            except Refused as e:
                send({"id": req["id"], "error": str(e), "refused": True})
        elif op == "kill":
            for job in jobs.values():
                if job.id == req["target"]:
                    job.ending = job.ending or "killed"
                    kill_tree(job.proc.pid)
            send({"id": req["id"], "ok": True})
        elif op == "wipe":
            # A reset in one round trip: wipe, then (only when clean) write the seed files.
            left = wipe(req["paths"])
            if not left:
                write_files(req.get("files") or {}, req.get("mode"))
            # Named up to a few: a wipe that leaves 100k files must not make a reply longer than the host takes.
            shown = left[:20] + (["and %d more" % (len(left) - 20)] if len(left) > 20 else [])
            send({"id": req["id"], "ok": not left, "left": shown})
        elif op == "write":
            write_files(req["files"], req.get("mode"))
            send({"id": req["id"], "ok": True})
        elif op == "read":
            # At most max_bytes in all (the host sized its reply line for that): a file past what is
            # left is cut there and named in `truncated`.
            files, cut, room = {}, [], int(req.get("max_bytes") or 64 << 20)
            for path in req["paths"]:
                try:
                    with open(path, "rb") as f:
                        data = f.read(room + 1)
                    if len(data) > room:
                        data = data[:room]
                        cut.append(path)
                    room -= len(data)
                    files[path] = base64.b64encode(data).decode()
                except OSError:
                    files[path] = None
            send({"id": req["id"], "files": files, "truncated": cut})
        else:
            send({"id": req.get("id"), "ok": True})
    except Exception as e:  # a bad request must not take the agent down
        send({"id": req.get("id"), "error": "%s: %s" % (type(e).__name__, e)})


def seal():
    # Non-dumpable: a process without CAP_SYS_PTRACE (every command here: capabilities are dropped)
    # can then neither ptrace this agent nor open its /proc/<pid>/mem, fd/ or environ, nor take its
    # descriptors with pidfd_getfd, even as the same user; without it, a command could read the
    # requests from memory and write a forged reply into the channel the host trusts. The children
    # it spawns are dumpable again once they exec (the flag is reset at exec), so commands are
    # unaffected. Done after every /proc/self file the agent writes is open: they turn root's.
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(4, 0, 0, 0, 0) != 0 or libc.prctl(3, 0, 0, 0, 0) != 0:  # PR_SET_DUMPABLE 0; PR_GET_DUMPABLE reads 0
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_DUMPABLE, 0) failed")


def main():
    try:
        seal()
    except Exception as e:
        # A channel open to the commands cannot carry a verdict: the sandbox does not start.
        sys.stderr.write("the sandbox agent could not make itself non-dumpable (%s): its reply channel would be open to the commands it runs\n" % e)
        sys.exit(70)
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_r, False)
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    # The agent is its sandbox's PID namespace init (docker; bwrap --as-pid-1; unshare's shell exec'd
    # into it; not the unisolated process mode): the kernel drops every signal
    # sent to it from inside the sandbox that it has no handler for (SIGKILL and SIGSTOP
    # included), so the commands it runs, as the same user, cannot kill it. Python's own
    # SIGINT handler would let one through: a no-op instead (reset to default in children).
    signal.signal(signal.SIGINT, lambda *_: None)
    # Under the sandbox's file size limit the agent's own writes (reset, put) fail with EFBIG
    # rather than kill it; Popen's restore_signals gives its commands SIGXFSZ back, so a
    # command that writes past the limit is stopped by it (exit 153).
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    os.set_blocking(0, False)
    sel.register(0, selectors.EVENT_READ, ("req", None))
    sel.register(wake_r, selectors.EVENT_READ, ("wake", None))
    buf = b""
    send({"id": 0, "ready": True, "pid": os.getpid()})
    while True:
        now = time.monotonic()
        waits = [j.deadline - now for j in jobs.values() if j.deadline and j.ending is None]
        waits += [j.exited_at + 0.2 - now for j in jobs.values() if j.exited_at]
        timeout = max(0.0, min(waits)) if waits else None
        for key, _ in sel.select(timeout):
            kind, data = key.data
            if kind == "req":
                chunk = os.read(0, 1 << 20)
                if not chunk:
                    for job in list(jobs.values()):
                        kill_tree(job.proc.pid)
                    return
                buf += chunk
                while b"\n" in buf:
                    line, buf = buf.split(b"\n", 1)
                    if line.strip():
                        handle(json.loads(line))
            elif kind == "wake":
                try:
                    os.read(wake_r, 4096)
                except OSError:
                    pass
            elif kind == "out":
                job, name, f = data
                try:
                    chunk = os.read(f.fileno(), 1 << 16)
                except BlockingIOError:
                    continue
                if chunk:
                    job.add(name, chunk)
                else:
                    sel.unregister(f.fileno())
                    job.open -= 1
            elif kind == "in":
                job = data
                try:
                    n = os.write(job.proc.stdin.fileno(), job.stdin[:1 << 16])
                    job.stdin = job.stdin[n:]
                except OSError:
                    job.stdin = b""
                if not job.stdin:
                    sel.unregister(job.proc.stdin.fileno())
                    job.proc.stdin.close()
        now = time.monotonic()
        # Every child that ended: the jobs, and (as init) processes orphaned in the sandbox,
        # which would otherwise stay zombies and count against its process limit.
        while True:
            try:
                got, st = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if not got:
                break
            job = jobs.get(got)
            if job is not None and job.status is None:
                job.status = st
                job.proc.returncode = 0  # reaped here; keep Popen from waiting again
                job.exited_at = now
        for pid, job in list(jobs.items()):
            if job.deadline and job.ending is None and now >= job.deadline:
                job.ending = "timeout"
                kill_tree(pid)
            # Done when both pipes are closed, or shortly after exit if a stray holds them.
            if job.status is not None and (job.open == 0 or now >= job.exited_at + 0.2):
                finish(job)


if __name__ == "__main__":
    main()
