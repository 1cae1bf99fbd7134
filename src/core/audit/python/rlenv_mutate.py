"""Mutants of Python source files for `rlenv audit`, made with Python's own ast.

Run inside the sandbox as `python3 - ARGS < rlenv_mutate.py` (it is sent on stdin).
Usage: rlenv_mutate.py --seed S --max M FILE...  (paths relative to the working directory)

Prints one JSON object: {"mutants": [{"file", "operator", "line", "description", "source",
"diff"}], "candidates": N, "errors": [...]}. Every candidate mutation of every file is
listed in a fixed order; `--max` of them are picked with random.Random(seed), so the same
files and seed always give the same mutants. Each mutant's `source` is the whole file after
the change, printed with ast.unparse (comments are dropped; the code means the same), and
its `diff` compares it with the unmutated file printed the same way.
"""

import argparse
import ast
import copy
import difflib
import json
import random
import sys

COMPARE_SWAPS = {
    ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt,
    ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.In: ast.NotIn, ast.NotIn: ast.In,
    ast.Is: ast.IsNot, ast.IsNot: ast.Is,
}
BINOP_SWAPS = {
    ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.FloorDiv, ast.Div: ast.Mult,
    ast.FloorDiv: ast.Mult, ast.Mod: ast.FloorDiv, ast.Pow: ast.Mult,
    ast.BitAnd: ast.BitOr, ast.BitOr: ast.BitAnd, ast.LShift: ast.RShift, ast.RShift: ast.LShift,
}
OP_TEXT = {
    ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!=",
    ast.In: "in", ast.NotIn: "not in", ast.Is: "is", ast.IsNot: "is not",
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%",
    ast.Pow: "**", ast.BitAnd: "&", ast.BitOr: "|", ast.LShift: "<<", ast.RShift: ">>",
}


def is_docstring(node, parent):
    return (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
        and isinstance(parent, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        and parent.body
        and parent.body[0] is node
    )


def candidates(tree):
    """(index of the node in ast.walk order, operator, description) for every mutation the tree allows."""
    out = []
    parents = {}
    for parent in ast.walk(tree):
        for child in ast.iter_child_nodes(parent):
            parents[id(child)] = parent
    for i, node in enumerate(ast.walk(tree)):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Compare):
            for j, op in enumerate(node.ops):
                if type(op) in COMPARE_SWAPS:
                    new = COMPARE_SWAPS[type(op)]
                    out.append((i, ("compare", j), "comparison-swap", line, "%s -> %s" % (OP_TEXT[type(op)], OP_TEXT[new])))
        elif isinstance(node, (ast.BinOp, ast.AugAssign)) and type(node.op) in BINOP_SWAPS:
            new = BINOP_SWAPS[type(node.op)]
            out.append((i, ("binop",), "arithmetic-swap", line, "%s -> %s" % (OP_TEXT[type(node.op)], OP_TEXT[new])))
        elif isinstance(node, ast.Constant) and type(node.value) is int:
            out.append((i, ("int", 1), "off-by-one", line, "%d -> %d" % (node.value, node.value + 1)))
            out.append((i, ("int", -1), "off-by-one", line, "%d -> %d" % (node.value, node.value - 1)))
        elif isinstance(node, ast.Constant) and type(node.value) is bool:
            out.append((i, ("bool",), "boolean-negation", line, "%r -> %r" % (node.value, not node.value)))
        elif isinstance(node, ast.BoolOp):
            out.append((i, ("boolop",), "boolean-negation", line, "and <-> or"))
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            out.append((i, ("drop-not",), "boolean-negation", line, "not x -> x"))
        elif isinstance(node, (ast.If, ast.While)):
            out.append((i, ("negate-test",), "boolean-negation", line, "condition negated"))
        elif isinstance(node, ast.Return) and node.value is not None:
            out.append((i, ("return", None), "return-constant", line, "return None"))
            out.append((i, ("return", 0), "return-constant", line, "return 0"))
        elif isinstance(node, ast.Call) and len(node.args) >= 2 and not any(isinstance(a, ast.Starred) for a in node.args[:2]):
            out.append((i, ("swap-args",), "swapped-arguments", line, "first two arguments swapped"))
        if isinstance(node, ast.stmt) and not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Import, ast.ImportFrom)):
            parent = parents.get(id(node))
            if parent is not None and not is_docstring(node, parent) and not isinstance(node, ast.Pass):
                out.append((i, ("delete",), "statement-deletion", line, "statement deleted"))
    return out


def apply(tree, index, action):
    tree = copy.deepcopy(tree)
    parents = {}
    for parent in ast.walk(tree):
        for child in ast.iter_child_nodes(parent):
            parents[id(child)] = parent
    node = list(ast.walk(tree))[index]
    kind = action[0]
    if kind == "compare":
        node.ops[action[1]] = COMPARE_SWAPS[type(node.ops[action[1]])]()
    elif kind == "binop":
        node.op = BINOP_SWAPS[type(node.op)]()
    elif kind == "int":
        node.value = node.value + action[1]
    elif kind == "bool":
        node.value = not node.value
    elif kind == "boolop":
        node.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
    elif kind == "drop-not":
        replace(parents[id(node)], node, node.operand)
    elif kind == "negate-test":
        node.test = ast.UnaryOp(op=ast.Not(), operand=node.test)
    elif kind == "return":
        node.value = ast.Constant(value=action[1])
    elif kind == "swap-args":
        node.args[0], node.args[1] = node.args[1], node.args[0]
    elif kind == "delete":
        replace(parents[id(node)], node, ast.Pass())
    return ast.fix_missing_locations(tree)


def replace(parent, old, new):
    for field, value in ast.iter_fields(parent):
        if value is old:
            setattr(parent, field, new)
            return
        if isinstance(value, list):
            for k, item in enumerate(value):
                if item is old:
                    value[k] = new
                    return
    raise ValueError("node not found in its parent")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--max", type=int, default=20)
    ap.add_argument("files", nargs="+")
    args = ap.parse_args()
    pool = []
    errors = []
    for name in args.files:
        try:
            with open(name, encoding="utf-8") as f:
                tree = ast.parse(f.read(), filename=name)
        except (OSError, SyntaxError, ValueError) as e:
            errors.append("%s: %s" % (name, e))
            continue
        for c in candidates(tree):
            pool.append((name, tree, c))
    rng = random.Random(args.seed)
    picked = sorted(rng.sample(range(len(pool)), min(args.max, len(pool))))
    mutants = []
    for k in picked:
        name, tree, (index, action, operator, line, description) = pool[k]
        before = ast.unparse(tree)
        try:
            after = ast.unparse(apply(tree, index, action))
            compile(after, name, "exec")
        except Exception as e:  # a mutation the grammar refuses is not a mutant
            errors.append("%s:%d %s: %s" % (name, line, operator, e))
            continue
        if after == before:
            continue
        diff = "".join(difflib.unified_diff((before + "\n").splitlines(True), (after + "\n").splitlines(True), "a/" + name, "b/" + name, n=1))
        mutants.append({"file": name, "operator": operator, "line": line, "description": description, "source": after + "\n", "original": before + "\n", "diff": diff})
    json.dump({"mutants": mutants, "candidates": len(pool), "errors": errors}, sys.stdout)


if __name__ == "__main__":
    main()
