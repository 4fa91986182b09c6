"""Writes torch 2 ATen-level ``torch.fx`` graphs in entangle's graph format (docs/formats.md, Graph files and Distributed graph files).

The graphs come from ``torch.export`` (after ``run_decompositions``) or ``make_fx``, so every
node carries ``meta['val']`` (a FakeTensor, a real tensor, a SymInt or a tuple of them), which
gives the result types.  A value the format cannot hold is a :class:`CaptureError`, never
dropped.
"""

import math
import operator
import os
import re

import torch
from torch.fx import Node

from . import CaptureError

FORMAT = "entangle-fx/1"
_INT64 = (-(2**63), 2**63 - 1)


def target_name(node):
    """The ``target`` of a node as docs/formats.md, Nodes, spells it (``aten.mm.default``, ``getitem``)."""
    t = node.target
    if node.op != "call_function":
        return str(t)
    if t is operator.getitem:
        return "getitem"
    if isinstance(t, torch._ops.OpOverload):
        ns, name = t._schema.name.split("::", 1)
        return f"{ns}.{name}.{t._schema.overload_name or 'default'}"
    if getattr(t, "__module__", None) in ("operator", "_operator"):
        return f"operator.{t.__name__}"
    raise CaptureError(
        f"node {node.name}: the call of {t!r} is not an ATen operator; capture at the ATen "
        "level (torch.export with run_decompositions, or make_fx)"
    )


def _enum(v):
    s = str(v)
    return s[len("torch.") :] if s.startswith("torch.") else s


def _sym(v):
    text = str(v.node.expr) if hasattr(v, "node") else str(v)
    return int(text) if re.fullmatch(r"-?\d+", text) else {"sym": text}


def encode_arg(v, rename, where):
    """One argument value in the format's encoding; ``rename`` maps node names."""
    if isinstance(v, Node):
        return {"node": rename.get(v.name, v.name)}
    if v is None or isinstance(v, (bool, str)):
        return v
    if isinstance(v, int):
        if not _INT64[0] <= v <= _INT64[1]:
            raise CaptureError(f"{where}: integer {v} does not fit in 64 bits")
        return v
    if isinstance(v, float):
        if math.isnan(v):
            return {"float": "nan"}
        if math.isinf(v):
            return {"float": "inf" if v > 0 else "-inf"}
        return v
    if isinstance(v, (list, tuple)):
        return [encode_arg(x, rename, f"{where}[{i}]") for i, x in enumerate(v)]
    if isinstance(v, torch.dtype):
        return {"dtype": _enum(v)}
    if isinstance(v, torch.device):
        return {"device": str(v)}
    if isinstance(v, torch.layout):
        return {"layout": _enum(v)}
    if isinstance(v, torch.memory_format):
        return {"memory_format": _enum(v)}
    if isinstance(v, (torch.SymInt, torch.SymFloat, torch.SymBool)):
        return _sym(v)
    raise CaptureError(f"{where}: a value of type {type(v).__name__} ({v!r}) has no encoding in the format")


def _value_type(v, where):
    if isinstance(v, torch.Tensor):
        shape = [s if isinstance(s, int) else _sym(s) for s in v.shape]
        return {"shape": shape, "dtype": _enum(v.dtype)}
    if isinstance(v, (list, tuple)):
        items = [_value_type(x, f"{where}[{i}]") for i, x in enumerate(v)]
        return {"tuple": [x if x is not None and "tuple" not in x else None for x in items]}
    if v is None:
        return {"tuple": []}
    if isinstance(v, (bool, torch.SymBool)):
        return {"shape": [], "dtype": "bool"}
    if isinstance(v, (int, torch.SymInt)):
        return {"shape": [], "dtype": "int64"}
    if isinstance(v, (float, torch.SymFloat)):
        return {"shape": [], "dtype": "float64"}
    return None


def _flatten(v):
    if isinstance(v, (list, tuple)):
        return [y for x in v for y in _flatten(x)]
    return [v]


def _attr(gm, target):
    obj = gm
    for part in target.split("."):
        obj = getattr(obj, part)
    return obj


def graph_to_json(gm, name, placeholders=None):
    """The graph object of ``gm``.

    ``placeholders`` lists, in placeholder order, ``(name, tag)`` pairs that rename the graph's
    inputs (e.g. ``("fc1_weight", "fc1.weight")``); by default they keep their names.
    """
    nodes = list(gm.graph.nodes)
    inputs = [n for n in nodes if n.op == "placeholder"]
    if placeholders is not None and len(placeholders) != len(inputs):
        raise CaptureError(f"{name}: {len(inputs)} graph inputs but {len(placeholders)} names for them")
    rename = {}
    tags = {}
    taken = {n.name for n in nodes if n.op != "placeholder"}
    for i, n in enumerate(inputs):
        new, tag = placeholders[i] if placeholders is not None else (n.name, None)
        while new in taken:
            new = new + "_"
        taken.add(new)
        rename[n.name] = new
        if tag is not None:
            tags[n.name] = tag
    out = []
    for n in nodes:
        where = f"{name}: node {n.name}"
        entry = {"name": rename.get(n.name, n.name), "op": n.op}
        if n.op == "output":
            entry["target"] = "output"
            entry["args"] = [[encode_arg(v, rename, where) for v in _flatten(n.args[0])]]
            out.append(entry)
            continue
        entry["target"] = rename.get(n.name, n.name) if n.op == "placeholder" else target_name(n)
        if n.op == "call_function":
            entry["args"] = encode_arg(list(n.args), rename, where)
            entry["kwargs"] = {k: encode_arg(v, rename, f"{where}.{k}") for k, v in n.kwargs.items()}
        meta = {}
        val = n.meta.get("val")
        if n.op == "get_attr" and val is None:
            val = _attr(gm, n.target)
        t = _value_type(val, where)
        if t is None:
            raise CaptureError(f"{where}: its result type is not recorded (meta['val'] is {val!r})")
        meta.update(t)
        if n.op == "get_attr":
            value = _attr(gm, n.target)
            if isinstance(value, torch.Tensor) and value.dim() == 0:
                meta["value"] = value.item()
            else:
                raise CaptureError(f"{where}: a constant tensor of shape {list(value.shape)}; only 0-d constants can be written")
        if n.name in tags:
            meta["tag"] = tags[n.name]
        trace = _user_frames(n.meta.get("stack_trace") or "")
        if trace:
            meta["stack_trace"] = trace
        entry["meta"] = meta
        out.append(entry)
    return {"format": FORMAT, "name": name, "nodes": out}


_TORCH_DIR = os.path.dirname(torch.__file__) + os.sep
_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep
_EXAMPLES_DIR = os.path.join(_PACKAGE_DIR, "examples") + os.sep
_FRAME = re.compile(r'^\s*File "([^"]+)", line \d+, in .*$')


def _user_frames(trace):
    """The frames of ``trace`` outside torch and this package (its examples excepted), as
    ``File ..., line ...`` lines each followed by its code; empty when there are none (as for
    the gradients' operators, which torch records at the call that differentiates)."""
    lines = trace.strip("\n").split("\n")
    kept = []
    i = 0
    while i < len(lines):
        m = _FRAME.match(lines[i])
        if m is None:
            i += 1
            continue
        code = lines[i + 1] if i + 1 < len(lines) and _FRAME.match(lines[i + 1]) is None else None
        path = m.group(1)
        internal = path.startswith(_TORCH_DIR) or "/site-packages/" in path or (path.startswith(_PACKAGE_DIR) and not path.startswith(_EXAMPLES_DIR))
        if not internal:
            kept.append(lines[i].strip())
            if code is not None:
                kept.append("    " + code.strip())
        i += 2 if code is not None else 1
    return "\n".join(kept)


def ranks_to_json(graphs, process_groups):
    """The G_d object (docs/formats.md, Distributed graph files) of one graph object per rank."""
    ranks = []
    for g in graphs:
        g = dict(g)
        g.pop("format", None)
        ranks.append(g)
    return {
        "format": FORMAT,
        "world_size": len(graphs),
        "process_groups": process_groups,
        "ranks": ranks,
    }
