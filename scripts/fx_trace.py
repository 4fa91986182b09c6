"""Tracing a ``torch.nn.Module`` into an ATen-level torch.fx graph with readable inputs.

:func:`trace_module` runs ``make_fx`` over the module's forward with its
parameters and buffers passed in as graph inputs, so that every weight is a
placeholder (as in the graphs TorchDynamo and AOTAutograd produce) rather than
a constant.  The placeholders are then named after what they hold:

* a parameter or buffer ``fc1.weight`` becomes the placeholder ``fc1_weight``
  with ``meta['tag'] = 'fc1.weight'`` (its qualified name, which relation files
  may use instead of the node name);
* a forward input takes the name it has in the ``inputs`` mapping.

Stack traces are recorded and cut down to the frames that lie in
``source_files`` (the model code), outermost first, with paths relative to
``source_root``, in the form torch.fx prints:
``File "model.py", line 12, in forward\\n    code``.
"""

import contextlib
import functools
import os
import re

import torch
from torch.fx.experimental.proxy_tensor import PythonKeyTracer, make_fx

_FRAME = re.compile(r'^\s*File "(?P<file>[^"]+)", line (?P<line>\d+), in (?P<fn>\S+)\s*$')


def _functional_call():
    try:
        from torch.func import functional_call  # torch >= 2.0
    except ImportError:
        from torch.nn.utils.stateless import functional_call  # torch 1.13
    return functional_call


@contextlib.contextmanager
def _recording_stack_traces():
    before = PythonKeyTracer.__dict__.get("record_stack_traces")
    PythonKeyTracer.record_stack_traces = True
    try:
        yield
    finally:
        if before is None:
            del PythonKeyTracer.record_stack_traces
        else:
            PythonKeyTracer.record_stack_traces = before


def _frames(stack_trace):
    """(file, line, function, code) for each frame of a formatted stack, in text order."""
    lines = stack_trace.splitlines()
    frames = []
    for i, text in enumerate(lines):
        m = _FRAME.match(text)
        if m:
            code = lines[i + 1].strip() if i + 1 < len(lines) and not _FRAME.match(lines[i + 1]) else ""
            frames.append((m.group("file"), int(m.group("line")), m.group("fn"), code))
    return frames


# every traced call resolves the paths of its stack's frames: the same few files, thousands of times
_realpath = functools.lru_cache(maxsize=None)(os.path.realpath)


def _innermost_first():
    # torch 1.13 formats the stack from the user frame outwards; torch 2.x formats
    # it like a traceback, innermost frame last.
    return int(torch.__version__.split(".")[0]) < 2


def user_stack_trace(stack_trace, source_files, source_root):
    """The frames of ``stack_trace`` in ``source_files``, innermost last; None when there are none."""
    if not stack_trace:
        return None
    wanted = {_realpath(f) for f in source_files}
    frames = [f for f in _frames(stack_trace) if _realpath(f[0]) in wanted]
    if _innermost_first():
        frames.reverse()
    lines = []
    for path, line, fn, code in frames:
        rel = os.path.relpath(_realpath(path), _realpath(source_root))
        lines.append(f'File "{rel}", line {line}, in {fn}' + (f"\n    {code}" if code else ""))
    return "\n".join(lines) or None


def trace_module(module, inputs, *, tracing_mode="fake", source_files=(), source_root="."):
    """Traces ``module(*inputs.values())`` with ``make_fx`` into an ATen-level GraphModule.

    Args:
        module: the model (its parameters and buffers become placeholders).
        inputs: forward's positional arguments, by the name their placeholders get.
        tracing_mode: ``make_fx``'s mode; ``"fake"`` needs no real data or kernels.
        source_files: the model's source files, for the recorded stack traces.
        source_root: the directory those traces are written relative to.
    """
    functional_call = _functional_call()
    weights = list(module.named_parameters()) + list(module.named_buffers())
    names = [qualified for qualified, _ in weights]

    def forward(weight_list, *args):
        return functional_call(module, dict(zip(names, weight_list)), tuple(args))

    with torch.no_grad(), _recording_stack_traces():
        gm = make_fx(forward, tracing_mode=tracing_mode)(
            [w for _, w in weights], *inputs.values())

    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    wanted = [q.replace(".", "_") for q in names] + list(inputs)
    if len(placeholders) != len(wanted):
        raise ValueError(
            f"make_fx produced {len(placeholders)} placeholders for {len(wanted)} inputs"
            f" ({', '.join(wanted)}); pass tensors only, one per forward argument")
    others = {n.name for n in gm.graph.nodes if n.op != "placeholder"}
    clash = sorted(others.intersection(wanted))
    if clash or len(set(wanted)) != len(wanted):
        raise ValueError(
            f"input names {clash or wanted} clash with node names of the traced graph;"
            " rename those inputs or parameters")
    for node, name in zip(placeholders, wanted):
        node.name = name
        node.target = name
    for node, qualified in zip(placeholders, names):
        node.meta["tag"] = qualified
    for node in gm.graph.nodes:
        keep = node.op not in ("placeholder", "output")
        node.stack_trace = user_stack_trace(node.stack_trace, source_files, source_root) if keep else None
    gm.recompile()
    return gm
