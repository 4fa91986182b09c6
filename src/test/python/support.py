"""Shared test helpers: project paths, the torch check, and a checker of the file formats.

The format checks follow docs/formats.md, Graph files and Distributed graph files and
Relation files; they are written independently of the exporter, so that exporter
output is judged against the contract, not against itself.
"""

import importlib
import json
import math
import os
import re
import sys
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
SCRIPTS = os.path.join(ROOT, "scripts")
EXAMPLES = os.path.join(ROOT, "examples")
LAUNCHER = os.environ.get("ENTANGLE_LAUNCHER") or os.path.join(SCRIPTS, "entangle")


def _jvm_options():
    """The launcher's JVM options, as scripts/jvm-options sets them (jvm=(...))."""
    with open(os.path.join(SCRIPTS, "jvm-options"), encoding="utf-8") as f:
        for line in f:
            if line.startswith("jvm=("):
                return line.strip()[len("jvm=("):-1].split()
    raise AssertionError("scripts/jvm-options sets no jvm=(...)")


# `java` with the launcher's options
JVM = ["java"] + _jvm_options()

if SCRIPTS not in sys.path:
    sys.path.insert(0, SCRIPTS)


def _torch_missing():
    try:
        importlib.import_module("torch")
        from torch.fx.experimental.proxy_tensor import make_fx  # noqa: F401
    except ImportError as e:
        return (f"torch with make_fx is not importable by {sys.executable} ({e}); install"
                " Debian's python3-torch and run the tests with /usr/bin/python3")
    return None


TORCH_MISSING = _torch_missing()

needs_torch = unittest.skipIf(TORCH_MISSING is not None, TORCH_MISSING or "")


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def case_names():
    """The examples traced from PyTorch (the HLO ones, written by hand, are tested in Java)."""
    return sorted(d for d in os.listdir(EXAMPLES)
                  if os.path.isfile(os.path.join(EXAMPLES, d, "expected.json"))
                  and d not in hlo_case_names())


def hlo_case_names():
    """The examples written by hand in XLA HLO text: folders holding gs.hlo."""
    return sorted(d for d in os.listdir(EXAMPLES) if os.path.isfile(os.path.join(EXAMPLES, d, "gs.hlo")))


def recipe_folders():
    """The folders of examples/ that are recipes to copy, not cases: those without expected.json."""
    return sorted(d for d in os.listdir(EXAMPLES)
                  if os.path.isdir(os.path.join(EXAMPLES, d))
                  and not os.path.isfile(os.path.join(EXAMPLES, d, "expected.json")))


# ---------------------------------------------------------------------------
# docs/formats.md, Graph files and Distributed graph files

OPS = {"placeholder", "get_attr", "call_function", "call_method", "call_module", "output"}
DTYPES = {"float64", "float32", "float16", "bfloat16", "int64", "int32", "int16", "int8",
          "uint8", "bool", "complex64", "complex128"}
ENUM_KEYS = {"dtype", "device", "layout", "memory_format", "sym"}
COLLECTIVE = re.compile(r"_?c10d_functional\.")
FUNCTIONAL_TARGETS = {
    "_c10d_functional.all_reduce.default", "_c10d_functional.all_gather_into_tensor.default",
    "_c10d_functional.reduce_scatter_tensor.default", "_c10d_functional.all_to_all_single.default",
    "_c10d_functional.broadcast.default", "_c10d_functional.wait_tensor.default",
}
INT64 = (-(2 ** 63), 2 ** 63 - 1)


class FormatError(AssertionError):
    pass


def _fail(where, message):
    raise FormatError(f"{where}: {message}")


def check_arg(arg, defined, where):
    """An encoded argument; ``defined`` holds the names of the earlier nodes."""
    if arg is None or isinstance(arg, (bool, str)):
        return
    if isinstance(arg, int):
        if not INT64[0] <= arg <= INT64[1]:
            _fail(where, f"integer {arg} exceeds 64 bits")
        return
    if isinstance(arg, float):
        if not math.isfinite(arg):
            _fail(where, f"non-finite float {arg} must be written as {{\"float\": ...}}")
        return
    if isinstance(arg, list):
        for i, x in enumerate(arg):
            check_arg(x, defined, f"{where}[{i}]")
        return
    if not isinstance(arg, dict) or len(arg) != 1:
        _fail(where, f"{arg!r} is not an encoded argument")
    (key, value), = arg.items()
    if key == "node":
        if value not in defined:
            _fail(where, f"reference to {value!r}, which is not an earlier node")
    elif key == "float":
        if value not in ("inf", "-inf", "nan"):
            _fail(where, f"special float {value!r}")
    elif key == "dtype":
        if value not in DTYPES:
            _fail(where, f"unknown dtype {value!r}")
    elif key in ENUM_KEYS:
        if not isinstance(value, str) or not value or value.startswith("torch."):
            _fail(where, f"{key} {value!r}")
    else:
        _fail(where, f"unknown argument object {arg!r}")


def check_type(t, where):
    if set(t) != {"shape", "dtype"}:
        _fail(where, f"a type has exactly shape and dtype, not {sorted(t)}")
    if t["dtype"] not in DTYPES:
        _fail(where, f"dtype {t['dtype']!r}")
    if not isinstance(t["shape"], list):
        _fail(where, f"shape {t['shape']!r}")
    for s in t["shape"]:
        ok = (isinstance(s, int) and not isinstance(s, bool) and s >= 0) or (
            isinstance(s, dict) and set(s) == {"sym"} and isinstance(s["sym"], str) and s["sym"])
        if not ok:
            _fail(where, f"size {s!r}")


def check_graph(graph, where="graph", require_format=True):
    """A graph object (docs/formats.md, Graph files); returns {name: node}."""
    if require_format and graph.get("format") != "entangle-fx/1":
        _fail(where, f"format {graph.get('format')!r}")
    nodes = graph.get("nodes")
    if not isinstance(nodes, list) or not nodes:
        _fail(where, "no nodes")
    defined = {}
    for i, node in enumerate(nodes):
        at = f"{where} nodes[{i}] ({node.get('name')})"
        for key in ("name", "op", "target"):
            if not isinstance(node.get(key), str) or not node[key]:
                _fail(at, f"missing {key}")
        if node["name"] in defined:
            _fail(at, "duplicate name")
        if node["op"] not in OPS:
            _fail(at, f"op {node['op']!r}")
        unknown = set(node) - {"name", "op", "target", "args", "kwargs", "meta"}
        if unknown:
            _fail(at, f"unknown fields {sorted(unknown)}")
        args, kwargs = node.get("args", []), node.get("kwargs", {})
        if not isinstance(args, list) or not isinstance(kwargs, dict):
            _fail(at, "args must be a list and kwargs an object")
        check_arg(args, defined, f"{at} args")
        for k, v in kwargs.items():
            check_arg(v, defined, f"{at} kwargs.{k}")
        if node["op"] == "output":
            if i != len(nodes) - 1:
                _fail(at, "the output node is not last")
            if len(args) != 1 or not isinstance(args[0], list):
                _fail(at, "output args must be [[...]]")
        else:
            _check_meta(node.get("meta"), at, defined, node)
        if node["target"] == "getitem":
            source = defined.get(args[0].get("node")) if args and isinstance(args[0], dict) else None
            if source is None or "tuple" not in source["meta"] or not isinstance(args[1], int):
                _fail(at, "getitem needs a tuple-valued node and an integer index")
            if not 0 <= args[1] < len(source["meta"]["tuple"]):
                _fail(at, f"getitem index {args[1]} out of range")
        if COLLECTIVE.match(node["target"]) and node["target"] not in FUNCTIONAL_TARGETS:
            _fail(at, f"collective target {node['target']!r}")
        defined[node["name"]] = node
    if nodes[-1]["op"] != "output":
        _fail(where, "no output node")
    return defined


def _check_meta(meta, at, defined, node):
    if not isinstance(meta, dict):
        _fail(at, "no meta")
    unknown = set(meta) - {"shape", "dtype", "tuple", "stack_trace", "tag", "value"}
    if unknown:
        _fail(at, f"unknown meta fields {sorted(unknown)}")
    if "tuple" in meta:
        if "shape" in meta or "dtype" in meta or not isinstance(meta["tuple"], list):
            _fail(at, "meta.tuple is a list, without shape/dtype")
        for j, item in enumerate(meta["tuple"]):
            if item is not None:
                check_type(item, f"{at} meta.tuple[{j}]")
    else:
        check_type({k: meta.get(k) for k in ("shape", "dtype")}, f"{at} meta")
    for key in ("stack_trace", "tag"):
        if key in meta and (not isinstance(meta[key], str) or not meta[key]):
            _fail(at, f"meta.{key} {meta[key]!r}")
    if "value" in meta:
        if node["op"] != "get_attr" or meta.get("shape") != []:
            _fail(at, "meta.value is for 0-d get_attr constants")
        check_arg(meta["value"], defined, f"{at} meta.value")


def check_distributed(gd, where="gd"):
    """A G_d object (docs/formats.md, Distributed graph files); one {name: node} per rank."""
    if gd.get("format") != "entangle-fx/1":
        _fail(where, f"format {gd.get('format')!r}")
    ranks = gd.get("ranks")
    if not isinstance(ranks, list) or gd.get("world_size") != len(ranks):
        _fail(where, "world_size must equal the number of ranks")
    for group, members in gd.get("process_groups", {}).items():
        if not members or any(not 0 <= r < len(ranks) for r in members):
            _fail(where, f"process group {group!r}: {members}")
    return [check_graph(r, f"{where} ranks[{k}]", require_format=False)
            for k, r in enumerate(ranks)]


def resolve(nodes, name):
    """A relation name: a node name first, then a tag (docs/formats.md, Name resolution)."""
    if name in nodes:
        return nodes[name]
    for node in nodes.values():
        if node.get("meta", {}).get("tag") == name:
            return node
    return None


def outputs(nodes):
    out = next(n for n in nodes.values() if n["op"] == "output")
    return [a["node"] for a in out["args"][0] if isinstance(a, dict) and "node" in a]
