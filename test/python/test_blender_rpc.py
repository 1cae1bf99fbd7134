"""The scene server that runs inside Blender (src/core/domains/scene3d/blender/blender_rpc.py),
started as the scene3d backend starts it (`blender -b --factory-startup --python SERVER -- DIR`)
and driven through its request and response files. Skipped where Blender is not installed."""
import json
import os
import shutil
import subprocess
import time

import pytest

from conftest import REPO

SERVER = os.path.join(REPO, "src", "core", "domains", "scene3d", "blender", "blender_rpc.py")
BLENDER = shutil.which("blender")
pytestmark = pytest.mark.skipif(not BLENDER, reason="Blender is not installed (apt-get install blender)")


class Server:
    def __init__(self, folder):
        self.dir = str(folder)
        self.seq = 0
        self.proc = subprocess.Popen(
            [BLENDER, "-b", "--factory-startup", "-noaudio", "--python", SERVER, "--", self.dir],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=dict(os.environ, HOME=self.dir),
        )
        self.wait_for(os.path.join(self.dir, "ready"))

    def wait_for(self, path):
        # Bounded only so a broken server fails the test instead of hanging it.
        for _ in range(120000):
            if os.path.exists(path):
                return
            if self.proc.poll() is not None:
                raise AssertionError("blender exited: %s" % self.proc.stderr.read().decode()[-2000:])
            time.sleep(0.005)
        raise AssertionError("no %s from the server" % path)

    def request(self, msg):
        req = os.path.join(self.dir, "req-%d" % self.seq)
        with open(req + ".tmp", "w") as f:
            json.dump(msg, f)
        os.rename(req + ".tmp", req)
        resp = os.path.join(self.dir, "resp-%d" % self.seq)
        self.wait_for(resp)
        with open(resp) as f:
            reply = json.load(f)
        os.remove(resp)
        if msg.get("op") != "quit":
            self.seq += 1
        return reply


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    s = Server(tmp_path_factory.mktemp("blender"))
    yield s
    assert s.request({"op": "quit"}) == {"ok": True, "text": "bye"}
    s.proc.wait(timeout=60)
    s.proc.stderr.close()


def node(reply, name):
    return next(n for n in reply["snapshot"]["nodes"] if n["name"] == name)


def test_the_factory_scene_is_emptied_at_start(server):
    assert server.request({"op": "snapshot"}) == {"text": "", "ok": True, "snapshot": {"nodes": []}}


def test_add_places_an_object_with_its_size_colour_and_box(server):
    r = server.request({"op": "add", "args": {"name": "table", "kind": "box", "dimensions": [2, 1, 0.1], "position": [0, 0, 1],
                                               "color": "red"}})
    assert (r["ok"], r["text"]) == (True, "added box 'table'")
    t = node(r, "table")
    assert (t["kind"], t["color"], t["dimensions"], t["position"]) == ("box", "#ff0000", [2, 1, 0.1], [0, 0, 1])
    assert t["bbox"] == {"min": [-1, -0.5, 0.95], "max": [1, 0.5, 1.05]}


def test_mistakes_the_agent_can_fix_are_errors_and_the_scene_still_comes_back(server):
    dup = server.request({"op": "add", "args": {"name": "table", "kind": "box"}})
    assert dup["ok"] is False and "already exists" in dup["error"]
    colour = server.request({"op": "add", "args": {"name": "lamp", "kind": "sphere", "color": "not-a-colour"}})
    assert colour["ok"] is False and "a colour is a name" in colour["error"]
    moved = server.request({"op": "update", "args": {"name": "table", "position": [5, 5, 5], "color": "not-a-colour"}})
    assert moved["ok"] is False and node(moved, "table")["position"] == [0, 0, 1]
    missing = server.request({"op": "update", "args": {"name": "chair"}})
    assert missing["ok"] is False and "no object named 'chair'" in missing["error"] and "'table'" in missing["error"]
    unknown = server.request({"op": "fly"})
    assert unknown == {"ok": False, "error": "unknown op 'fly'", "snapshot": unknown["snapshot"]}
    # The refused add made nothing.
    assert [n["name"] for n in unknown["snapshot"]["nodes"]] == ["table"]


def test_run_bpy_runs_a_snippet_and_reports_what_it_raised(server):
    r = server.request({"op": "run_bpy", "args": {"code": "print(sorted(o.name for o in bpy.data.objects))"}})
    assert (r["ok"], r["text"]) == (True, "['table']\n")
    bad = server.request({"op": "run_bpy", "args": {"code": "1 / 0"}})
    assert bad["ok"] is False and "ZeroDivisionError" in bad["error"]
