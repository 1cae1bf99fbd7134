# The scene server that runs inside Blender for a whole rollout:
#   blender -b --factory-startup --python blender_rpc.py -- DIR
# Requests arrive as files DIR/req-N (JSON {op, args}, written whole and then renamed into
# place); the answer goes to DIR/resp-N the same way. Files rather than pipes because each
# step is a separate sandbox exec, and DIR (under /tmp) is what every exec of the sandbox
# shares. The conventions match the builtin backend (world-node.ts): Z up, Euler XYZ in
# degrees, `dimensions` = size along the object's own axes before scale.
import base64
import contextlib
import importlib
import io
import json
import math
import os
import sys
import time
import traceback

import bmesh
import bpy
import mathutils
from mathutils import Euler, Matrix, Vector

DIR = sys.argv[sys.argv.index("--") + 1]
INTERNAL = "__rlenv_"  # objects the server makes for itself (render camera, light)
COLORS = {
    "red": "#ff0000", "green": "#00a000", "blue": "#0000ff", "yellow": "#ffff00", "orange": "#ff8000",
    "purple": "#800080", "pink": "#ffc0cb", "brown": "#8b4513", "black": "#000000", "white": "#ffffff",
    "gray": "#808080", "grey": "#808080", "cyan": "#00ffff", "magenta": "#ff00ff", "beige": "#f5f5dc",
    "silver": "#c0c0c0", "gold": "#ffd700",
}
DEFAULT_DIMS = {
    "box": (1, 1, 1), "sphere": (1, 1, 1), "cylinder": (1, 1, 1), "cone": (1, 1, 1), "plane": (1, 1, 0), "torus": (1, 1, 0.25),
}


class ToolError(Exception):
    """A mistake the agent can fix: reported as an error observation."""


def norm_color(c):
    s = c.strip().lower()
    if s in COLORS:
        return COLORS[s]
    if len(s) == 7 and s[0] == "#":
        return s
    if len(s) == 4 and s[0] == "#":
        return "#" + "".join(ch * 2 for ch in s[1:])
    raise ToolError("a colour is a name (red, blue, ...) or #rrggbb")


def objects():
    return {o.name: o for o in bpy.data.objects if not o.name.startswith(INTERNAL)}


def get(name):
    objs = objects()
    if name not in objs:
        names = ", ".join("'%s'" % n for n in sorted(objs)) or "none (the scene is empty)"
        raise ToolError("no object named '%s'; objects in the scene: %s" % (name, names))
    return objs[name]


def unit_mesh(kind, dims):
    """Geometry of a primitive with its size baked in, centred on the origin."""
    bm = bmesh.new()
    dx, dy, dz = dims
    if kind == "box":
        bmesh.ops.create_cube(bm, size=1.0)
        bmesh.ops.scale(bm, vec=Vector((dx, dy, dz)), verts=bm.verts)
    elif kind == "sphere":
        bmesh.ops.create_uvsphere(bm, u_segments=32, v_segments=16, radius=0.5)
        bmesh.ops.scale(bm, vec=Vector((dx, dy, dz)), verts=bm.verts)
    elif kind in ("cylinder", "cone"):
        top = 0.5 if kind == "cylinder" else 0.0
        bmesh.ops.create_cone(bm, cap_ends=True, cap_tris=False, segments=32, radius1=0.5, radius2=top, depth=1.0)
        bmesh.ops.scale(bm, vec=Vector((dx, dy, dz)), verts=bm.verts)
    elif kind == "plane":
        bmesh.ops.create_grid(bm, x_segments=1, y_segments=1, size=0.5)
        bmesh.ops.scale(bm, vec=Vector((dx, dy, 1.0)), verts=bm.verts)
    elif kind == "torus":
        tube = dz / 2
        ring = max(0.0, dx / 2 - tube)
        major, minor = 48, 12
        verts = []
        for i in range(major):
            a = 2 * math.pi * i / major
            for j in range(minor):
                b = 2 * math.pi * j / minor
                r = ring + tube * math.cos(b)
                verts.append(bm.verts.new((r * math.cos(a), r * math.sin(a) * (dy / dx if dx else 1), tube * math.sin(b))))
        for i in range(major):
            for j in range(minor):
                a, b = i * minor + j, ((i + 1) % major) * minor + j
                c, d = ((i + 1) % major) * minor + (j + 1) % minor, i * minor + (j + 1) % minor
                bm.faces.new((verts[a], verts[b], verts[c], verts[d]))
    me = bpy.data.meshes.new(kind)
    bm.to_mesh(me)
    bm.free()
    return me


def import_asset(name, path, dims):
    """One mesh from a glTF file: every imported mesh baked into the asset's own (Z-up)
    frame and merged, the origin where the file has it, as the builtin backend sees it."""
    before = set(bpy.data.objects)
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            bpy.ops.import_scene.gltf(filepath=path)
    except Exception as e:
        raise ToolError("cannot import the asset: %s" % e)
    bpy.context.view_layer.update()
    new = [o for o in bpy.data.objects if o not in before]
    bm = bmesh.new()
    for o in new:
        if o.type == "MESH":
            me = o.data.copy()
            me.transform(o.matrix_world)
            bm.from_mesh(me)  # appends: several meshes merge into one
            bpy.data.meshes.remove(me)
    for o in new:
        bpy.data.objects.remove(o, do_unlink=True)
    if len(bm.verts) == 0:
        bm.free()
        raise ToolError("the asset has no mesh")
    if dims:
        xs = [[v.co[i] for v in bm.verts] for i in range(3)]
        size = [max(c) - min(c) for c in xs]
        k = [dims[i] / size[i] if size[i] > 0 else 1.0 for i in range(3)]
        bmesh.ops.scale(bm, vec=Vector(k), verts=bm.verts)
    me = bpy.data.meshes.new(name)
    bm.to_mesh(me)
    bm.free()
    return me


def set_material(ob, color, material):
    if color is None and material is None:
        return
    if color is not None:
        ob["rlenv_color"] = norm_color(color)
    if material is not None:
        merged = json.loads(ob.get("rlenv_material", "{}"))
        merged.update(material)
        ob["rlenv_material"] = json.dumps(merged, sort_keys=True)
    if ob.type != "MESH":
        return
    mat = ob.active_material or bpy.data.materials.new(ob.name)
    mat.use_nodes = True
    bsdf = mat.node_tree.nodes.get("Principled BSDF")
    hexc = ob.get("rlenv_color")
    if hexc:
        rgb = [int(hexc[i:i + 2], 16) / 255 for i in (1, 3, 5)]
        mat.diffuse_color = (*rgb, 1)
        if bsdf:
            bsdf.inputs["Base Color"].default_value = (*rgb, 1)
    m = json.loads(ob.get("rlenv_material", "{}"))
    if bsdf and "roughness" in m:
        bsdf.inputs["Roughness"].default_value = m["roughness"]
    if bsdf and "metalness" in m:
        bsdf.inputs["Metallic"].default_value = m["metalness"]
    if not ob.data.materials:
        ob.data.materials.append(mat)


def place(ob, a):
    if a.get("position") is not None:
        ob.location = Vector(a["position"])
    if a.get("rotation") is not None:
        ob.rotation_mode = "XYZ"
        ob.rotation_euler = Euler([math.radians(v) for v in a["rotation"]], "XYZ")
    if a.get("scale") is not None:
        ob.scale = Vector(a["scale"])


def op_add(a):
    name, kind = a["name"], a["kind"]
    if name in objects() or name in bpy.data.objects:
        raise ToolError("an object named '%s' already exists; names are unique (use update_object to change it)" % name)
    parent = get(a["parent"]) if a.get("parent") else None
    if a.get("color") is not None:
        norm_color(a["color"])  # a bad colour refuses the whole call: nothing is half made
    if kind == "asset":
        ob = bpy.data.objects.new(name, import_asset(name, a["asset_file"], a.get("dimensions")))
        ob["rlenv_asset"] = a["asset"]
    elif kind == "empty":
        if a.get("dimensions"):
            raise ToolError("an empty has no dimensions")
        ob = bpy.data.objects.new(name, None)
    else:
        dims = a.get("dimensions") or DEFAULT_DIMS[kind]
        ob = bpy.data.objects.new(name, unit_mesh(kind, dims))
    ob["rlenv_kind"] = kind
    bpy.context.scene.collection.objects.link(ob)
    place(ob, a)
    if parent is not None:
        ob.parent = parent  # matrix_parent_inverse stays identity: the transform is relative to the parent
    set_material(ob, a.get("color"), a.get("material"))
    return "added %s '%s'" % (kind, name)


def is_ancestor(a, b):
    p = b
    while p is not None:
        if p == a:
            return True
        p = p.parent
    return False


def op_update(a):
    ob = get(a["name"])
    new_name = a.get("new_name")
    if new_name is not None and new_name != ob.name and (new_name in bpy.data.objects):
        raise ToolError("cannot rename to '%s': an object with that name exists" % new_name)
    parent = ob.parent
    if "parent" in a:
        parent = None if a["parent"] is None else get(a["parent"])
        if parent is not None and is_ancestor(ob, parent):
            raise ToolError("cannot parent '%s' to '%s': that would make a cycle" % (ob.name, a["parent"]))
    if a.get("dimensions") is not None and ob.type != "MESH":
        raise ToolError("an empty has no dimensions")
    if a.get("color") is not None:
        norm_color(a["color"])  # checked before anything changes, so a refused call changes nothing
    place(ob, a)
    if a.get("dimensions") is not None:
        lo, hi = local_box(ob)
        old = [hi[i] - lo[i] for i in range(3)]
        k = [a["dimensions"][i] / old[i] if old[i] > 0 else 1.0 for i in range(3)]
        ob.data.transform(Matrix.Diagonal((*k, 1.0)))
        ob.data.update()
    set_material(ob, a.get("color"), a.get("material"))
    if "parent" in a:
        ob.parent = parent
        ob.matrix_parent_inverse = Matrix.Identity(4)
    if new_name is not None and new_name != ob.name:
        ob.name = new_name
    return "updated '%s'" % ob.name


def op_remove(a):
    ob = get(a["name"])
    gone = [ob] + list(ob.children_recursive)
    names = ", ".join("'%s'" % o.name for o in gone)
    for o in gone:
        bpy.data.objects.remove(o, do_unlink=True)
    return "removed " + names


def op_group(a):
    if a["name"] in bpy.data.objects:
        raise ToolError("an object named '%s' already exists; names are unique" % a["name"])
    members = [get(n) for n in a["objects"]]
    if len(set(a["objects"])) != len(a["objects"]):
        raise ToolError("an object is listed twice in 'objects'")
    g = bpy.data.objects.new(a["name"], None)
    g["rlenv_kind"] = "empty"
    bpy.context.scene.collection.objects.link(g)
    place(g, {"position": a.get("position")})
    bpy.context.view_layer.update()
    inv = g.matrix_world.inverted()
    for ob in members:
        world = ob.matrix_world.copy()
        ob.parent = g
        ob.matrix_parent_inverse = Matrix.Identity(4)
        ob.matrix_basis = inv @ world  # keeps where it is in the world
    return "grouped %d objects into '%s'" % (len(members), a["name"])


def local_box(ob):
    if ob.type == "MESH" and len(ob.data.vertices) > 0:
        cs = [Vector(c) for c in ob.bound_box]
        return [min(c[i] for c in cs) for i in range(3)], [max(c[i] for c in cs) for i in range(3)]
    return [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]


def r6(x):
    v = round(x, 6)
    return 0.0 if v == 0 else v


def node_of(ob):
    mw = ob.matrix_world
    loc, quat, scl = mw.decompose()
    eul = quat.to_euler("XYZ")
    lo, hi = local_box(ob)
    ext = [hi[i] - lo[i] for i in range(3)]
    c_local = Vector([(hi[i] + lo[i]) / 2 for i in range(3)])
    center = mw @ c_local
    if ext == [0.0, 0.0, 0.0]:
        pts = [center]
    else:
        pts = [mw @ Vector((x, y, z)) for x in (lo[0], hi[0]) for y in (lo[1], hi[1]) for z in (lo[2], hi[2])]
    kind = ob.get("rlenv_kind") or ("mesh" if ob.type == "MESH" else ob.type.lower())
    node = {
        "name": ob.name,
        "kind": kind,
        "parent": ob.parent.name if ob.parent is not None else None,
        "position": [r6(v) for v in loc],
        "rotation": [r6(math.degrees(v)) for v in eul],
        "scale": [r6(v) for v in scl],
        "dimensions": [r6(abs(ext[i] * scl[i])) for i in range(3)],
        "center": [r6(v) for v in center],
        "bbox": {"min": [r6(min(p[i] for p in pts)) for i in range(3)], "max": [r6(max(p[i] for p in pts)) for i in range(3)]},
    }
    if ob.get("rlenv_color"):
        node["color"] = ob["rlenv_color"]
    elif "rlenv_kind" not in ob and ob.type == "MESH" and ob.active_material is not None:
        rgb = ob.active_material.diffuse_color[:3]
        node["color"] = "#" + "".join("%02x" % max(0, min(255, round(v * 255))) for v in rgb)
    if ob.get("rlenv_material"):
        node["material"] = json.loads(ob["rlenv_material"])
    if ob.get("rlenv_asset"):
        node["asset"] = ob["rlenv_asset"]
    return node


def fill_group_boxes(nodes):
    kids = {}
    for n in nodes:
        if n["parent"]:
            kids.setdefault(n["parent"], []).append(n)

    def visit(n, depth):
        if n["kind"] != "empty" or depth > 256 or not kids.get(n["name"]):
            return n["bbox"]
        boxes = [visit(k, depth + 1) for k in kids[n["name"]]]
        n["bbox"] = {
            "min": [min(b["min"][i] for b in boxes) for i in range(3)],
            "max": [max(b["max"][i] for b in boxes) for i in range(3)],
        }
        return n["bbox"]

    for n in nodes:
        visit(n, 0)


def snapshot(with_gltf):
    bpy.context.view_layer.update()
    nodes = [node_of(o) for o in objects().values()]
    fill_group_boxes(nodes)
    nodes.sort(key=lambda n: n["name"])
    snap = {"nodes": nodes}
    if with_gltf and nodes:
        # The glTF is for the viewer; without it the snapshot is still complete, so a failed
        # export (Blender's exporter needs numpy) is logged to stderr, not fatal.
        path = os.path.join(DIR, "scene.glb")
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                bpy.ops.export_scene.gltf(filepath=path, export_format="GLB", export_normals=False, export_texcoords=False, export_cameras=False, export_lights=False)
            with open(path, "rb") as f:
                snap["gltf"] = base64.b64encode(f.read()).decode("ascii")
        except Exception:
            traceback.print_exc()
    return snap


def op_render(a):
    scene = bpy.context.scene
    made = []
    if a.get("camera"):
        cam = get(a["camera"])
        if cam.type != "CAMERA":
            raise ToolError("'%s' is not a camera" % a["camera"])
    else:
        snap = snapshot(False)["nodes"]
        if snap:
            lo = [min(n["bbox"]["min"][i] for n in snap) for i in range(3)]
            hi = [max(n["bbox"]["max"][i] for n in snap) for i in range(3)]
        else:
            lo, hi = [-1, -1, 0], [1, 1, 1]
        center = Vector([(lo[i] + hi[i]) / 2 for i in range(3)])
        size = max(max(hi[i] - lo[i] for i in range(3)), 1.0)
        target = Vector(a["look_at"]) if a.get("look_at") else center
        pos = Vector(a["position"]) if a.get("position") else center + Vector((1.2, -1.6, 1.1)) * size * 1.4
        cam = bpy.data.objects.new(INTERNAL + "camera", bpy.data.cameras.new(INTERNAL + "camera"))
        scene.collection.objects.link(cam)
        cam.location = pos
        cam.rotation_euler = (target - pos).to_track_quat("-Z", "Y").to_euler()
        made.append(cam)
    if not any(o.type == "LIGHT" for o in bpy.data.objects):
        sun = bpy.data.objects.new(INTERNAL + "sun", bpy.data.lights.new(INTERNAL + "sun", "SUN"))
        sun.rotation_euler = (math.radians(40), math.radians(10), math.radians(30))
        sun.data.energy = 3.0
        scene.collection.objects.link(sun)
        made.append(sun)
    scene.camera = cam
    scene.render.engine = "CYCLES"
    scene.cycles.device = "CPU"
    scene.cycles.samples = 8
    scene.cycles.use_denoising = False
    scene.render.resolution_x = a.get("width") or 320
    scene.render.resolution_y = a.get("height") or 240
    scene.render.resolution_percentage = 100
    scene.render.image_settings.file_format = "PNG"
    out = os.path.join(DIR, "render.png")
    scene.render.filepath = out
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            bpy.ops.render.render(write_still=True)
        with open(out, "rb") as f:
            data = base64.b64encode(f.read()).decode("ascii")
    finally:
        for o in made:
            bpy.data.objects.remove(o, do_unlink=True)
    text = "rendered %dx%d with Cycles (CPU, 8 samples)" % (scene.render.resolution_x, scene.render.resolution_y)
    return {"text": text, "parts": [{"type": "image_url", "image_url": {"url": "data:image/png;base64," + data}}]}


def op_run_bpy(a):
    out = io.StringIO()
    env = {"bpy": bpy, "math": math, "mathutils": mathutils, "Vector": Vector, "Matrix": Matrix, "Euler": Euler, "__name__": "__rlenv__"}
    try:
        with contextlib.redirect_stdout(out):
            exec(compile(a["code"], "<run_bpy>", "exec"), env)
    except Exception:
        tb = traceback.format_exc(limit=-3)
        raise ToolError("the snippet raised:\n%s%s" % (out.getvalue(), tb))
    text = out.getvalue()
    return text if text else "ran (no output)"


OPS = {"add": op_add, "update": op_update, "remove": op_remove, "group": op_group, "render": op_render, "run_bpy": op_run_bpy}


def handle(msg):
    op = msg.get("op")
    try:
        if op == "snapshot":
            result = {"text": ""}
        elif op in OPS:
            r = OPS[op](msg.get("args") or {})
            result = r if isinstance(r, dict) else {"text": r}
        else:
            raise ToolError("unknown op %r" % op)
        result["ok"] = True
    except ToolError as e:
        result = {"ok": False, "error": str(e)}
    except Exception:
        result = {"ok": False, "error": "blender server error:\n" + traceback.format_exc(limit=-4)}
    result["snapshot"] = snapshot(bool(msg.get("gltf")))
    return result


def write_atomic(path, text):
    with open(path + ".tmp", "w") as f:
        f.write(text)
    os.rename(path + ".tmp", path)


def main():
    for ob in list(bpy.data.objects):  # the factory scene's cube, camera and light
        bpy.data.objects.remove(ob, do_unlink=True)
    bpy.context.scene.world = bpy.context.scene.world or bpy.data.worlds.new("World")
    try:
        import numpy

        # Debian pairs Blender 3.4's glTF importer, which still says np.bool, with numpy 1.24,
        # which removed that alias; restore it so assets import.
        if "bool" not in numpy.__dict__:
            numpy.bool = bool
        # Load the glTF exporter now, during start-up, rather than in the first step.
        importlib.import_module("io_scene_gltf2.blender.exp.gltf2_blender_export")
    except Exception:
        traceback.print_exc()
    write_atomic(os.path.join(DIR, "ready"), str(os.getpid()))
    seq = 0
    while True:
        req = os.path.join(DIR, "req-%d" % seq)
        if not os.path.exists(req):
            time.sleep(0.001)
            continue
        with open(req) as f:
            text = f.read()
        os.remove(req)
        try:
            msg = json.loads(text)
        except ValueError as e:
            msg = {"op": "bad request: %s" % e}
        if msg.get("op") == "quit":
            write_atomic(os.path.join(DIR, "resp-%d" % seq), json.dumps({"ok": True, "text": "bye"}))
            return
        reply = handle(msg)
        write_atomic(os.path.join(DIR, "resp-%d" % seq), json.dumps(reply))
        seq += 1


main()
