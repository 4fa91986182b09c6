#!/usr/bin/env python3
"""Writes torch.fx graphs in entangle's graph format.

The format is specified in docs/formats.md, Graph files and Distributed graph files.

Library use::

    from export_fx import export_graph, export_ranks, graph_to_json
    export_graph(gm, "gs.json")                  # one graph: G_s, or a one-rank G_d
    export_ranks([gm_r0, gm_r1], "gd.json",      # one graph per rank: G_d
                 process_groups={"tp": [0, 1]})

``gm`` is a ``torch.fx.GraphModule`` at the ATen level, as ``make_fx``,
AOTAutograd or the backend below produce.  Shapes and dtypes come from
``node.meta['val']`` (torch 2.x FakeTensors and SymInts) or
``node.meta['tensor_meta']`` (older torch); where neither is recorded (torch
1.13's ``make_fx`` leaves multi-output nodes such as ``native_layer_norm``
without), the result types are computed by running the operator on meta
tensors, or read from the node's ``getitem`` users.  A node whose type cannot be
found is an error, never skipped.

What is written:

* ``target``: ``ns.name.overload`` for an ATen/custom operator
  (``aten.mm.default``, ``_c10d_functional.all_reduce.default``),
  ``higher_order.NAME`` for a higher-order operator, ``getitem`` for
  ``operator.getitem``, ``operator.NAME`` for other Python operators (SymInt
  arithmetic), the qualified name for any other function; the method,
  module or attribute name for the other node kinds.
* ``meta``: ``shape``/``dtype`` (a symbolic size as ``{"sym": "s0"}``),
  ``tuple`` for a node returning several values, ``stack_trace``, ``tag``
  (``node.meta['tag']``; for a TorchDynamo placeholder, the parameter's
  qualified name from its source), ``value`` for a 0-d ``get_attr`` constant.
  A SymInt/SymFloat/SymBool-valued node is written as a 0-d ``int64``/
  ``float64``/``bool`` tensor, a node returning None as an empty ``tuple``.
* the output node's ``args[0]``: the graph outputs, flattened into one list.

Capturing each rank's graph in a ``torchrun`` job (torch >= 2.1)
----------------------------------------------------------------

Compile the model with :func:`entangle_backend`; every rank then writes each
graph it compiles (after AOTAutograd, so at the ATen level with functional
collectives) to ``OUT/NAME.g<i>.<fw|bw|inference>.r<rank>.json``, and the
process groups it belongs to to ``OUT/process_groups.r<rank>.json``::

    import torch, export_fx
    model = torch.compile(model, backend=export_fx.entangle_backend("graphs"))
    loss = model(batch)            # compiles, writes the graphs, then runs them

    torchrun --nproc-per-node 2 train.py            # the distributed run: G_d
    python3 train.py                                 # the single-device run: G_s
    python3 scripts/export_fx.py merge graphs/model.g0.fw.r0.json \\
        graphs/model.g0.fw.r1.json --groups-from graphs -o gd.json

Run the sequential model with the same settings (only the parallel sizes
changed) so both graphs go through the same compiler passes; its
``model.g0.fw.r0.json`` is G_s.  The group names in the graphs are the process
group names torch assigns (``"0"``, ``"1"``, ...), which ``process_groups.r*.json``
maps to ranks; ``--group NAME=0,1`` gives or overrides one by hand.

What was not tested: this module was developed against torch 1.13 (Debian's
``python3-torch``), which has neither ``torch.compile`` nor the
``_c10d_functional`` operators.  The exporter and the ``make_fx`` path are
tested there (with the collectives of ``fx_collectives``); the backend, the
torch 2.x metadata (``meta['val']`` SymInts from dynamic shapes, higher-order
operators, TorchDynamo placeholder sources) and a real ``torchrun`` job are
not.

Command line::

    python3 scripts/export_fx.py merge R0.json R1.json ... -o gd.json \\
        [--group NAME=R,R,...] [--groups-from DIR]
"""

import argparse
import json
import math
import operator
import os
import re
import sys

FORMAT = "entangle-fx/1"

_INT64 = (-(2 ** 63), 2 ** 63 - 1)


class ExportError(ValueError):
    """A graph, node or value that the graph format cannot represent."""


def _torch():
    import torch  # imported late so that `merge` works without torch

    return torch


# ---------------------------------------------------------------------------
# targets


def target_name(node):
    """The ``target`` string of a node, as spelled in docs/formats.md, Nodes."""
    torch = _torch()
    t = node.target
    if node.op != "call_function":
        return str(t)
    if t is operator.getitem:
        return "getitem"
    if isinstance(t, torch._ops.OpOverload):
        return _overload_name(t)
    packet = getattr(torch._ops, "OpOverloadPacket", None)
    if packet is not None and isinstance(t, packet):
        ns, name = t._qualified_op_name.split("::", 1)
        return f"{ns}.{name}"
    hop = getattr(torch._ops, "HigherOrderOperator", None)
    if hop is not None and isinstance(t, hop):
        return f"{getattr(t, 'namespace', 'higher_order')}.{t.name()}"
    if getattr(t, "__module__", None) in ("operator", "_operator"):
        return f"operator.{t.__name__}"
    from torch.fx.node import _get_qualified_name

    return _get_qualified_name(t)


def _overload_name(op):
    ns, name = op._schema.name.split("::", 1)
    return f"{ns}.{name}.{op._schema.overload_name or 'default'}"


# ---------------------------------------------------------------------------
# arguments


def _sym_types():
    torch = _torch()
    names = ("SymInt", "SymFloat", "SymBool", "SymIntNode", "SymFloatNode")
    types = [getattr(torch, n) for n in names if hasattr(torch, n)]
    try:
        from torch.fx.experimental import symbolic_shapes
    except ImportError:
        symbolic_shapes = None
    for n in ("PySymInt", "PySymFloat"):
        if symbolic_shapes is not None and hasattr(symbolic_shapes, n):
            types.append(getattr(symbolic_shapes, n))
    return tuple(types)


def _sym_text(v):
    node = getattr(v, "node", None)
    expr = getattr(node, "expr", None)
    return str(expr if expr is not None else v)


def _enum_name(v):
    s = str(v)
    return s[len("torch."):] if s.startswith("torch.") else s


def encode_arg(v, where="argument"):
    """Encodes one argument value (docs/formats.md, Argument encoding)."""
    torch = _torch()
    from torch.fx import Node

    if isinstance(v, Node):
        return {"node": v.name}
    if v is None or isinstance(v, (bool, str)):
        return v
    if isinstance(v, int):
        if not _INT64[0] <= v <= _INT64[1]:
            raise ExportError(f"{where}: integer {v} does not fit in 64 bits")
        return v
    if isinstance(v, float):
        if math.isnan(v):
            return {"float": "nan"}
        if math.isinf(v):
            return {"float": "inf" if v > 0 else "-inf"}
        return v
    if isinstance(v, (list, tuple)):
        return [encode_arg(x, f"{where}[{i}]") for i, x in enumerate(v)]
    if isinstance(v, torch.dtype):
        return {"dtype": _enum_name(v)}
    if isinstance(v, torch.device):
        return {"device": str(v)}
    if isinstance(v, torch.layout):
        return {"layout": _enum_name(v)}
    if isinstance(v, torch.memory_format):
        return {"memory_format": _enum_name(v)}
    if isinstance(v, _sym_types()):
        text = _sym_text(v)
        return int(text) if re.fullmatch(r"-?\d+", text) else {"sym": text}
    if isinstance(v, torch._ops.OpOverload):  # e.g. the kernel of auto_functionalized
        return _overload_name(v)
    kind = type(v).__name__
    hint = ""
    if isinstance(v, torch.Tensor):
        hint = "; tensors must be graph inputs or get_attr nodes"
    elif isinstance(v, (slice, type(Ellipsis))):
        hint = "; export an ATen-level graph (make_fx or AOTAutograd), where indexing is lowered"
    raise ExportError(f"{where}: a value of type {kind} ({v!r}) has no encoding in the format{hint}")


def _flatten_outputs(v):
    if isinstance(v, (list, tuple)):
        out = []
        for x in v:
            out.extend(_flatten_outputs(x))
        return out
    if isinstance(v, dict):
        return _flatten_outputs(list(v.values()))
    return [v]


# ---------------------------------------------------------------------------
# result types


def _dtype_name(dtype):
    return _enum_name(dtype)


def _size(s, where):
    if isinstance(s, int):
        return s
    if isinstance(s, _sym_types()):
        text = _sym_text(s)
        return int(text) if re.fullmatch(r"\d+", text) else {"sym": text}
    raise ExportError(f"{where}: size {s!r} is neither an integer nor a SymInt")


def _tensor_type(t, where):
    return {"shape": [_size(s, where) for s in t.shape], "dtype": _dtype_name(t.dtype)}


def _value_type(v, where):
    """The meta of a recorded value: a single type, or a tuple; None when unknown."""
    torch = _torch()
    if isinstance(v, torch.Tensor):
        return _tensor_type(v, where)
    if isinstance(v, (list, tuple)):
        items = []
        for i, x in enumerate(v):
            item = _value_type(x, f"{where}[{i}]")
            items.append(item if item is not None and "tuple" not in item else None)
        return {"tuple": items}
    if v is None:
        return {"tuple": []}
    if isinstance(v, bool) or (isinstance(v, _sym_types()) and "Bool" in type(v).__name__):
        return {"shape": [], "dtype": "bool"}
    if isinstance(v, int) or (isinstance(v, _sym_types()) and "Int" in type(v).__name__):
        return {"shape": [], "dtype": "int64"}
    if isinstance(v, float) or isinstance(v, _sym_types()):
        return {"shape": [], "dtype": "float64"}
    return None


def _tensor_meta_type(tm, where):
    if tm is None:
        return None
    if hasattr(tm, "shape") and hasattr(tm, "dtype"):
        return {"shape": [_size(s, where) for s in tm.shape], "dtype": _dtype_name(tm.dtype)}
    if isinstance(tm, (list, tuple)):
        items = [_tensor_meta_type(x, where) for x in tm]
        return {"tuple": [x if x is not None and "tuple" not in x else None for x in items]}
    return None


def _fetch_attr(gm, target):
    obj = gm
    for part in target.split("."):
        if not hasattr(obj, part):
            raise ExportError(f"get_attr target {target!r} does not exist on the GraphModule")
        obj = getattr(obj, part)
    return obj


def _meta_tensor(t):
    torch = _torch()
    if "tuple" in t or any(not isinstance(s, int) for s in t["shape"]):
        raise LookupError
    return torch.empty(t["shape"], dtype=getattr(torch, t["dtype"]), device="meta")


def _run_on_meta(node, types):
    """Result type of an operator call, by running it on meta tensors of its inputs' types."""
    torch = _torch()
    from torch.fx import Node

    if not isinstance(node.target, torch._ops.OpOverload):
        return None

    def meta_arg(a):
        if isinstance(a, Node):
            return _meta_tensor(types[a.name])
        if isinstance(a, (list, tuple)):
            return type(a)(meta_arg(x) for x in a)
        return a

    try:
        args = [meta_arg(a) for a in node.args]
        kwargs = {k: meta_arg(v) for k, v in node.kwargs.items()}
        kwargs = {k: (torch.device("meta") if k == "device" else v) for k, v in kwargs.items()}
        return _value_type(node.target(*args, **kwargs), node.name)
    except Exception:  # no meta kernel, or an input of unknown type: try the users next
        return None


def _from_getitem_users(node, types):
    torch = _torch()
    items = {}
    for user in node.users:
        if user.op == "call_function" and user.target is operator.getitem and \
                isinstance(user.args[1], int):
            items[user.args[1]] = user
    if not items:
        return None
    size = max(items) + 1
    if isinstance(node.target, torch._ops.OpOverload):
        size = max(size, len(node.target._schema.returns))
    out = []
    for i in range(size):
        user = items.get(i)
        t = None
        if user is not None:
            t = _recorded_type(user)
        out.append(t if t is not None and "tuple" not in t else None)
    return {"tuple": out}


def _recorded_type(node):
    if "val" in node.meta:
        t = _value_type(node.meta["val"], node.name)
        if t is not None:
            return t
    return _tensor_meta_type(node.meta.get("tensor_meta"), node.name)


def _result_type(gm, node, types):
    t = _recorded_type(node)
    if t is not None:
        return t
    torch = _torch()
    if node.op == "get_attr":
        value = _fetch_attr(gm, node.target)
        if isinstance(value, torch.Tensor):
            return _tensor_type(value, node.name)
    if node.op == "call_function":
        t = _run_on_meta(node, types)
        if t is None:
            t = _from_getitem_users(node, types)
        if t is not None:
            return t
    raise ExportError(
        f"node {node.name!r} ({node.op} {target_name(node)}) has no recorded result type"
        " (node.meta['val'] or ['tensor_meta']) and none could be computed; trace with"
        " make_fx or AOTAutograd, or run torch.fx.passes.shape_prop.ShapeProp first")


def _constant_value(gm, node):
    torch = _torch()
    value = _fetch_attr(gm, node.target)
    if not isinstance(value, torch.Tensor) or value.dim() != 0 or value.device.type == "meta":
        return None
    try:
        x = value.item()
    except Exception:  # a fake tensor has no data
        return None
    if isinstance(x, bool):
        return int(x)
    if isinstance(x, float) and (math.isinf(x) or math.isnan(x)):
        return encode_arg(x)
    return x if isinstance(x, (int, float)) else None


# ---------------------------------------------------------------------------
# tags


_SOURCE_PARTS = [
    (re.compile(r"^L\['self'\]\.?"), ""),
    (re.compile(r"_(?:modules|parameters|buffers)\['([^']+)'\]"), r"\1"),
    (re.compile(r"\['([A-Za-z0-9_]+)'\]"), r".\1"),
    (re.compile(r"\[(\d+)\]"), r".\1"),
]


def _dynamo_tag(node):
    """A TorchDynamo placeholder's parameter name, from the source it was read from."""
    grapharg = node.meta.get("grapharg")
    source = getattr(grapharg, "source", None)
    if source is None or not hasattr(source, "name"):
        return None
    text = source.name()
    if not text.startswith("L['self']"):
        return None
    for pattern, repl in _SOURCE_PARTS:
        text = pattern.sub(repl, text)
    text = text.replace("..", ".").strip(".")
    return text if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.]*", text) else None


def _tag(node):
    tag = node.meta.get("tag")
    if isinstance(tag, str) and tag:
        return tag
    if node.op == "placeholder":
        return _dynamo_tag(node)
    return None


# ---------------------------------------------------------------------------
# graphs


def _stack_trace(node):
    st = node.meta.get("stack_trace") or getattr(node, "stack_trace", None)
    return st.rstrip("\n") if isinstance(st, str) and st.strip() else None


def _unused_none_item(node, types):
    """Whether ``node`` takes an item a call left out (``None``, e.g. the input gradient of
    ``convolution_backward`` under its output mask) and nothing reads it: such a node has no
    value to export, and dropping it changes nothing."""
    if node.op != "call_function" or node.target is not operator.getitem or node.users:
        return False
    source, index = node.args[0], node.args[1]
    items = types.get(getattr(source, "name", None), {}).get("tuple")
    return isinstance(index, int) and items is not None and 0 <= index < len(items) \
        and items[index] is None


def graph_to_json(gm, name=None):
    """The graph-file object of a GraphModule or torch.fx Graph (docs/formats.md, Graph files)."""
    graph = getattr(gm, "graph", gm)
    out = {"format": FORMAT}
    if name is not None:
        out["name"] = name
    nodes = []
    types = {}
    for node in graph.nodes:
        where = f"node {node.name!r}"
        entry = {"name": node.name, "op": node.op, "target": target_name(node)}
        if node.op == "output":
            outputs = _flatten_outputs(node.args[0] if node.args else [])
            entry["args"] = [encode_arg(outputs, f"{where} args[0]")]
            nodes.append(entry)
            continue
        if _unused_none_item(node, types):
            continue
        if node.args:
            entry["args"] = [encode_arg(a, f"{where} args[{i}]") for i, a in enumerate(node.args)]
        if node.kwargs or node.op == "call_function":
            entry["kwargs"] = {k: encode_arg(v, f"{where} kwargs.{k}") for k, v in node.kwargs.items()}
        meta = dict(_result_type(gm, node, types))
        types[node.name] = meta
        st = _stack_trace(node)
        if st is not None:
            meta["stack_trace"] = st
        tag = _tag(node)
        if tag is not None:
            meta["tag"] = tag
        if node.op == "get_attr" and meta.get("shape") == []:
            value = _constant_value(gm, node)
            if value is not None:
                meta["value"] = value
        entry["meta"] = meta
        nodes.append(entry)
    out["nodes"] = nodes
    return out


def to_text(obj, indent=""):
    """JSON text with one node (or other short object) per line, for readable diffs."""
    flat = json.dumps(obj, allow_nan=False, ensure_ascii=False)
    is_node = isinstance(obj, dict) and "op" in obj and "name" in obj
    if not isinstance(obj, (dict, list)) or not obj or is_node or len(indent) + len(flat) <= 100:
        return flat
    inner = indent + " "
    if isinstance(obj, list):
        items = [inner + to_text(x, inner) for x in obj]
        return "[\n" + ",\n".join(items) + "\n" + indent + "]"
    items = [inner + json.dumps(k, ensure_ascii=False) + ": " + to_text(v, inner)
             for k, v in obj.items()]
    return "{\n" + ",\n".join(items) + "\n" + indent + "}"


def _write_json(obj, path):
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(to_text(obj) + "\n")


def export_graph(gm, path, name=None):
    """Writes ``gm`` as a graph file; ``name`` defaults to the file name without ``.json``."""
    if name is None:
        name = os.path.basename(path)
        name = name[: -len(".json")] if name.endswith(".json") else name
    obj = graph_to_json(gm, name)
    _write_json(obj, path)
    return obj


def ranks_to_json(graphs, process_groups=None):
    """The G_d object of one graph per rank, rank 0 first.

    The format is docs/formats.md, Distributed graph files.

    Each item is a GraphModule or an already converted graph object (whose
    ``format`` is dropped inside ``ranks``).
    """
    graphs = list(graphs)
    if not graphs:
        raise ExportError("a distributed graph needs at least one rank")
    ranks = []
    for g in graphs:
        obj = dict(g) if isinstance(g, dict) else graph_to_json(g)
        if obj.get("format", FORMAT) != FORMAT:
            raise ExportError(f"rank graph has format {obj.get('format')!r}, not {FORMAT!r}")
        obj.pop("format", None)
        ranks.append(obj)
    out = {"format": FORMAT, "world_size": len(ranks)}
    if process_groups:
        groups = {}
        for group, members in process_groups.items():
            members = [int(r) for r in members]
            bad = [r for r in members if not 0 <= r < len(ranks)]
            if bad or len(set(members)) != len(members):
                raise ExportError(
                    f"process group {group!r} lists ranks {members}; members must be distinct"
                    f" ranks below the world size {len(ranks)}")
            groups[str(group)] = members
        out["process_groups"] = groups
    out["ranks"] = ranks
    return out


def export_ranks(graphs, path, process_groups=None):
    """Writes one graph per rank (GraphModules or graph objects) as a G_d file."""
    obj = ranks_to_json(graphs, process_groups)
    _write_json(obj, path)
    return obj


# ---------------------------------------------------------------------------
# torch.compile backend (torch >= 2.1)


def current_process_groups():
    """The process groups this rank belongs to, by the names collectives carry: {name: ranks}."""
    import torch.distributed as dist

    if not dist.is_available() or not dist.is_initialized():
        return {}
    from torch.distributed import distributed_c10d as c10d

    groups = {}
    for pg, name in getattr(c10d._world, "pg_names", {}).items():
        name = getattr(pg, "group_name", None) or name
        try:
            groups[str(name)] = sorted(dist.get_process_group_ranks(pg))
        except Exception:  # a group this rank is not part of
            continue
    return groups


def _current_rank():
    try:
        import torch.distributed as dist

        if dist.is_available() and dist.is_initialized():
            return dist.get_rank()
    except ImportError:
        pass
    return int(os.environ.get("RANK", "0"))


def _tag_aot_placeholders(dynamo_gm, aot_gm):
    """Gives AOTAutograd's primals the parameter names of the Dynamo graph they came from."""
    names = [name for name, _ in dynamo_gm.named_parameters(remove_duplicate=False)]
    names += [name for name, _ in dynamo_gm.named_buffers(remove_duplicate=False)]
    names += [_dynamo_tag(n) for n in dynamo_gm.graph.nodes if n.op == "placeholder"]
    # AOTAutograd's flat inputs: the Dynamo graph's parameters and buffers, then its inputs.
    inputs = [n for n in aot_gm.graph.nodes if n.op == "placeholder"]
    for node, tag in zip(inputs, names):
        if tag and "tag" not in node.meta:
            node.meta["tag"] = tag


def entangle_backend(out_dir, name="model"):
    """A ``torch.compile`` backend that writes each compiled graph of this rank to ``out_dir``.

    Files: ``NAME.g<i>.fw.r<rank>.json`` (forward), ``.bw.`` (backward) and
    ``.inference.`` (no-grad), ``i`` counting the graphs TorchDynamo hands over,
    and ``process_groups.r<rank>.json``.  The graphs run unchanged afterwards.
    Needs torch >= 2.1; not tested here (see the module docstring).
    """
    from torch._dynamo.backends.common import aot_autograd
    from torch._functorch.aot_autograd import make_boxed_func

    counter = [0]

    def backend(gm, example_inputs):
        index = counter[0]
        counter[0] += 1
        rank = _current_rank()

        def writer(kind):
            def compile_graph(aot_gm, _inputs):
                if kind != "bw":
                    _tag_aot_placeholders(gm, aot_gm)
                export_graph(aot_gm, os.path.join(out_dir, f"{name}.g{index}.{kind}.r{rank}.json"))
                return make_boxed_func(aot_gm.forward)

            return compile_graph

        _write_json(current_process_groups(), os.path.join(out_dir, f"process_groups.r{rank}.json"))
        compiler = aot_autograd(fw_compiler=writer("fw"), bw_compiler=writer("bw"),
                                inference_compiler=writer("inference"))
        return compiler(gm, example_inputs)

    return backend


# ---------------------------------------------------------------------------
# command line


def _parse_group(text):
    name, sep, ranks = text.partition("=")
    if not sep or not name or not re.fullmatch(r"\d+(,\d+)*", ranks):
        raise argparse.ArgumentTypeError(f"--group takes NAME=R,R,... (e.g. tp=0,1), not {text!r}")
    return name, [int(r) for r in ranks.split(",")]


def _read_json(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except OSError as e:
        raise ExportError(f"{path}: cannot read: {e.strerror}") from e
    except json.JSONDecodeError as e:
        raise ExportError(f"{path}: not JSON (line {e.lineno}, column {e.colno}: {e.msg})") from e


def _groups_from(directory):
    groups = {}
    files = sorted(f for f in os.listdir(directory) if re.fullmatch(r"process_groups\.r\d+\.json", f))
    if not files:
        raise ExportError(f"{directory}: no process_groups.r<rank>.json files")
    for f in files:
        for group, members in _read_json(os.path.join(directory, f)).items():
            if groups.setdefault(group, members) != members:
                raise ExportError(
                    f"{directory}: ranks disagree on the members of group {group!r}:"
                    f" {groups[group]} and {members} ({f})")
    return groups


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="export_fx.py", description="Tools for entangle graph files.")
    sub = parser.add_subparsers(dest="command", required=True)
    merge = sub.add_parser("merge", help="combine one graph file per rank into a G_d file")
    merge.add_argument("ranks", nargs="+", help="the graph files of rank 0, 1, ... in order")
    merge.add_argument("-o", "--output", required=True, help="the G_d file to write")
    merge.add_argument("--group", action="append", type=_parse_group, default=[],
                       metavar="NAME=R,R,...", help="a process group and its ranks")
    merge.add_argument("--groups-from", metavar="DIR",
                       help="read process groups from the backend's process_groups.r*.json")
    args = parser.parse_args(argv)
    try:
        groups = _groups_from(args.groups_from) if args.groups_from else {}
        groups.update(dict(args.group))
        graphs = []
        for path in args.ranks:
            obj = _read_json(path)
            if not isinstance(obj, dict) or "nodes" not in obj:
                raise ExportError(f"{path}: not a graph file (no \"nodes\")")
            graphs.append(obj)
        export_ranks(graphs, args.output, groups or None)
    except ExportError as e:
        print(f"export_fx.py: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
