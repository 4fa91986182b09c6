"""Captures a jitted JAX function with input shardings as gs.hlo, gd.hlo and ri.json.

The function runs on a one-dimensional mesh of ``world`` CPU devices (axis ``tp``; XLA is told
``--xla_force_host_platform_device_count``) and is compiled once; XLA dumps the module just
before and just after its SPMD partitioning pass.  Before is G_s, the whole program on global
shapes; after is G_d, the program every device runs on its shards, with the collectives the
partitioner inserted (``entangle check gs.hlo gd.hlo --ranks N --rel ri.json`` reads both).  ``ri.json`` comes from the input
shardings: an argument whose PartitionSpec names ``tp`` at dim d is the concatenation of the
ranks' parameters along d, one that does not name it is replicated.  Tensors are named by the
parameters' ``op_name`` (the function's argument names).  The output shardings become ``expect``
entries (default: every device returns the whole output).
"""

import atexit
import glob
import inspect
import os
import re
import shutil
import sys
import tempfile

from . import CaptureError
from .hlo_text import classic_hlo, entry_outputs
from .relation import Placement, expectation, relation_json

AXIS = "tp"


# Set once this process has configured JAX for captures: (CPU devices, XLA's dump folder).
_started = None


def start(devices):
    """Configures XLA in this process for captures on up to ``devices`` CPU devices and returns
    the folder XLA dumps modules to. XLA reads both when JAX first uses a device, so this comes
    first; a process captures at any device count up to the one it started with (the command
    starts with its --world; a test process with the largest it uses)."""
    global _started
    if _started is not None:
        if _started[0] < devices:
            raise CaptureError(f"JAX started here with {_started[0]} CPU devices, {devices} asked for; capture in a fresh process (python -m entangle_capture jax ...)")
        return _started[1]
    if "jax" in sys.modules:
        raise CaptureError("jax is already imported; capture in a fresh process (python -m entangle_capture jax ...)")
    dump = tempfile.mkdtemp(prefix="entangle-capture-xla-")
    atexit.register(shutil.rmtree, dump, True)
    # the caller's other flags are kept; its own device count and dump settings (as a parent
    # process that captured would pass them on) give way to these
    ours = ("--xla_force_host_platform_device_count=", "--xla_dump_to=", "--xla_dump_hlo_pass_re=")
    flags = [f for f in os.environ.get("XLA_FLAGS", "").split() if not f.startswith(ours)]
    flags += [f"--xla_force_host_platform_device_count={devices}", f"--xla_dump_to={dump}", "--xla_dump_hlo_pass_re=spmd-partitioning"]
    os.environ["XLA_FLAGS"] = " ".join(flags)
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    _started = (devices, dump)
    return dump


def _empty(folder):
    """Removes what XLA dumped (every pass's module: read, not kept), keeping the folder."""
    for name in os.listdir(folder):
        path = os.path.join(folder, name)
        if os.path.isdir(path):
            shutil.rmtree(path, ignore_errors=True)
        else:
            os.remove(path)


def _placement(spec, ndim, what):
    """The relation placement of a PartitionSpec on the one-axis mesh."""
    if spec is None:
        return Placement("replicate")
    entries = list(spec) + [None] * (ndim - len(spec))
    dims = []
    for d, e in enumerate(entries):
        names = e if isinstance(e, tuple) else (e,)
        for n in names:
            if n is None:
                continue
            if n != AXIS:
                raise CaptureError(f"{what}: the PartitionSpec {spec} names the axis {n!r}; the capture's mesh has the one axis {AXIS!r}")
            dims.append(d)
    if not dims:
        return Placement("replicate")
    if len(dims) > 1:
        raise CaptureError(f"{what}: the PartitionSpec {spec} shards {len(dims)} dims over one axis")
    return Placement("shard", dims[0])


_PARAM = re.compile(r"^\s*%?([^\s=]+)\s*=\s*\S+\s+parameter\((\d+)\).*?op_name=\"([^\"]*)\"")


def _parameter_names(text):
    names = {}
    in_entry = False
    for line in text.split("\n"):
        if line.startswith("ENTRY "):
            in_entry = True
        elif in_entry:
            m = _PARAM.match(line)
            if m:
                names[int(m.group(2))] = m.group(3)
            elif re.match(r"^\s*%?\S+\s*=\s*\S+\s+parameter\(", line):
                raise CaptureError(f"an ENTRY parameter without op_name metadata: {line.strip()[:160]}")
    return [names[i] for i in sorted(names)]


def _new_dump(dump, before, which):
    files = sorted(set(glob.glob(os.path.join(dump, f"module_*{which}*.txt"))) - before)
    if not files:
        raise CaptureError(f"XLA dumped no module {which}; is the function jitted with shardings over more than one device?")
    with open(files[-1], encoding="utf-8") as f:
        return f.read()


def _compile(jax, fn, args, in_shardings, out_shardings, dump):
    """(module before partitioning, module after) of ``fn`` compiled with the shardings."""
    before = set(glob.glob(os.path.join(dump, "*.txt")))
    jax.clear_caches()  # a program compiled before in this process would be reused, not dumped
    jax.jit(fn, in_shardings=in_shardings, out_shardings=out_shardings).lower(*args).compile()
    return _new_dump(dump, before, "before_spmd-partitioning"), _new_dump(dump, before, "after_spmd-partitioning")


def capture(build, world, dump):
    """(G_s HLO, G_d HLO, args, in_specs, out_specs) of ``build(mesh)``, which returns
    ``(fn, args, in_specs)``, optionally followed by ``out_specs`` and ``impl``: G_s is ``fn``
    before partitioning; G_d is ``impl`` (e.g. a shard_map program computing the same) after
    partitioning, or ``fn``'s own partitioned program when there is no ``impl``."""
    import jax
    import numpy as np
    from jax.sharding import Mesh, NamedSharding, PartitionSpec

    if len(jax.devices()) < world:
        raise CaptureError(f"{len(jax.devices())} JAX devices, {world} asked for")
    mesh = Mesh(np.array(jax.devices()[:world]), (AXIS,))
    built = build(mesh)
    if not (isinstance(built, tuple) and 3 <= len(built) <= 5):
        raise CaptureError("the function must return (fn, example_args, in_specs[, out_specs[, impl]]), the specs PartitionSpecs")
    fn, args, in_specs = built[:3]
    out_specs = built[3] if len(built) > 3 else None
    impl = built[4] if len(built) > 4 else None
    if len(in_specs) != len(args):
        raise CaptureError(f"{len(in_specs)} input PartitionSpecs for {len(args)} arguments")

    def named(spec):
        return NamedSharding(mesh, spec if spec is not None else PartitionSpec())

    ins = tuple(named(s) for s in in_specs)
    outs = None if out_specs is None else jax.tree_util.tree_map(named, out_specs, is_leaf=lambda x: isinstance(x, PartitionSpec))
    gs, gd = _compile(jax, fn, args, ins, outs, dump)
    if impl is not None:
        _, gd = _compile(jax, impl, args, ins, outs, dump)
    return gs, gd, args, in_specs, out_specs


def capture_spec(spec, world):
    """Runs the capture for ``MODULE:FUNCTION``: returns the files to write, by name."""
    from .loading import load

    if world < 2:
        raise CaptureError(f"--world must be at least 2 for an SPMD partitioning, not {world}")
    dump = start(world)
    try:
        build = load(spec, "function")
        gs, gd, args, in_specs, out_specs = capture(build, world, dump)
    finally:
        _empty(dump)
    gs, gd = classic_hlo(gs), classic_hlo(gd)
    names = _parameter_names(gs)
    if len(names) != len(args):
        raise CaptureError(f"the HLO has {len(names)} parameters for {len(args)} arguments; pass arrays, one per argument")
    placements = [(n, _placement(s, a.ndim, f"argument {n}")) for n, s, a in zip(names, in_specs, args)]
    gs_out, gd_out = entry_outputs(gs), entry_outputs(gd)
    if len(gs_out) != len(gd_out):
        raise CaptureError(f"G_s returns {len(gs_out)} values and G_d {len(gd_out)}")
    specs = out_specs if isinstance(out_specs, (list, tuple)) else [out_specs] * len(gs_out)
    expect = []
    for name, gd_name, s in zip(gs_out, gd_out, specs):
        expect += expectation(name, [gd_name] * world, _placement(s, 8, f"output {name}"))
    ri = relation_json(placements, world, expect)
    return {"gs.hlo": gs, "gd.hlo": gd, "ri.json": ri}
