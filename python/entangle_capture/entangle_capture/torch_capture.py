"""Captures a torch 2 module and its tensor-parallel plan as gs.json, gd.json and ri.json.

G_s is the module as written, traced with ``make_fx`` on its example inputs and decomposed to
core ATen (``torch._decomp.core_aten_decompositions``).  G_d is rank K's program: the module is
built again, parallelized with ``parallelize_module(module, mesh, plan)`` on a one-dimensional
device mesh of a *fake* process group (``torch.distributed``'s ``fake`` backend, so no other
process runs), and traced the same way with DTensor parameters made from rank K's local shards.
DTensor's redistributions appear as torch's functional collectives
(``_c10d_functional.all_reduce`` ...).  Both go through the same decompositions, so they differ
only where the plan changes the program.

The relation comes from the placements: a parameter or input placed ``Shard(d)`` on the mesh is
the concatenation of the ranks' tensors along ``d``, ``Replicate()`` is equal on every rank,
``Partial()`` is the sum of the ranks' tensors.  Tensors are named after the parameters'
qualified names (``fc1.weight``, the node's tag; the node itself is ``fc1_weight``) and the
inputs after the forward's arguments.
"""

import concurrent.futures
import fnmatch
import inspect
import logging
import multiprocessing
import os
import sys

import torch
import torch.distributed as dist
from torch._decomp import core_aten_decompositions
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.tensor import DTensor, Partial, Replicate, Shard
from torch.distributed.tensor.parallel import parallelize_module
from torch.func import functional_call
from torch.fx.experimental.proxy_tensor import make_fx
from torch.utils._pytree import tree_flatten

from . import CaptureError
from .fxjson import graph_to_json, ranks_to_json
from .relation import Placement, expectation, relation_json


def _fake_store():
    from torch.testing._internal.distributed.fake_pg import FakeStore

    return FakeStore()


def _built(build):
    torch.manual_seed(0)
    built = build()
    if not (isinstance(built, tuple) and len(built) == 2 and isinstance(built[0], torch.nn.Module)):
        raise CaptureError("the build function must return (module, example_inputs): an nn.Module and a tuple of its forward's arguments")
    module, args = built
    if isinstance(args, torch.Tensor):
        args = (args,)
    args = tuple(args)
    if not all(isinstance(a, torch.Tensor) for a in args):
        raise CaptureError("the example inputs must be tensors (one per argument of forward)")
    return module, args


def _input_names(module, args):
    params = [p for p in inspect.signature(module.forward).parameters.values() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    names = [p.name for p in params[: len(args)]]
    names += [f"input{i}" for i in range(len(names), len(args))]
    return names


def _state(module):
    """The module's parameters and buffers by qualified name, in a fixed order."""
    state = dict(module.named_parameters())
    state.update(dict(module.named_buffers()))
    return state


def _node_name(fqn):
    return fqn.replace(".", "_")


# Operators kept whole although core ATen decomposes them: the checker lowers them directly,
# while their decompositions (index_put with accumulate=True) have no meaning it can reason with.
KEPT_WHOLE = ("embedding_dense_backward",)


def decompositions():
    """The core ATen decompositions, less those of the operators in ``KEPT_WHOLE``."""
    table = dict(core_aten_decompositions())
    for name in KEPT_WHOLE:
        packet = getattr(torch.ops.aten, name)
        for overload in packet.overloads():
            table.pop(getattr(packet, overload), None)
    return table


def _trace(fn, *args):
    return make_fx(fn, decomposition_table=decompositions(), record_stack_traces=True)(*args)


def _from_placement(p):
    return {"shard": lambda: Shard(p.dim), "replicate": Replicate, "sum": Partial}[p.kind]()


def _to_placement(p, ndim, what):
    if isinstance(p, Shard):
        return Placement("shard", p.dim % ndim if ndim else p.dim)
    if isinstance(p, Replicate):
        return Placement("replicate")
    if isinstance(p, Partial):
        if p.reduce_op != "sum":
            raise CaptureError(f"{what}: Partial({p.reduce_op!r}) has no relation; only a sum Partial does")
        return Placement("sum")
    raise CaptureError(f"{what}: the placement {p!r} has no relation (Shard, Replicate or Partial(sum) do)")


def _local_input(x, placement, world, rank, what):
    if isinstance(placement, Replicate):
        return x
    if isinstance(placement, Partial):
        return x / world if x.is_floating_point() else x
    if isinstance(placement, Shard):
        chunks = torch.chunk(x, world, placement.dim)
        if len(chunks) != world:
            raise CaptureError(f"{what}: dim {placement.dim} of size {x.shape[placement.dim]} cannot be sharded over {world} ranks")
        return chunks[rank].contiguous()
    raise CaptureError(f"{what}: unsupported placement {placement!r}")


def _step(module, train):
    """The traced function of (state, args): the module's outputs, and with ``train`` after them
    the gradients of the sum of all output elements with respect to every trainable parameter
    (in state order). ``to_local`` turns the state into what the module takes (DTensors)."""

    def step(state, args, to_local=lambda o: o, to_module_state=lambda s: s):
        outs = [to_local(o) for o in tree_flatten(functional_call(module, to_module_state(state), args))[0]]
        if not train:
            return outs
        trainable = [k for k, v in state.items() if v.requires_grad]
        differentiable = [o for o in outs if o.requires_grad]
        seeds = [torch.ones_like(o) for o in differentiable]  # d(sum of all elements)/d(output)
        grads = torch.autograd.grad(differentiable, [state[k] for k in trainable], seeds, allow_unused=True)
        unused = [k for k, g in zip(trainable, grads) if g is None]
        if unused:
            raise CaptureError(f"the parameters {', '.join(unused)} do not affect the outputs; a training step needs every trainable parameter used")
        return outs + list(grads)

    return step


def _trainable(state, train, trained_by):
    """Detached copies of ``state``; with ``train``, those whose entry in ``trained_by`` (the
    module's own parameters) requires a gradient require one too."""
    out = {}
    for k, v in state.items():
        v = v.detach()
        if train and v.is_floating_point() and getattr(trained_by[k], "requires_grad", False):
            v.requires_grad_(True)
        out[k] = v
    return out


def _tied(module):
    """The names of parameters tied to another one (one Parameter under several names), each
    with the name ``named_parameters`` keeps for it (the first)."""
    first, tied = {}, {}
    for name, p in module.named_parameters(remove_duplicate=False):
        if id(p) in first:
            tied[name] = first[id(p)]
        else:
            first[id(p)] = name
    return tied


def capture_sequential(build, train=False):
    """G_s: the graph object, the input names and the names of the parameters it differentiates."""
    module, args = _built(build)
    own = _state(module)
    state = _trainable(own, train, own)
    names = _input_names(module, args)
    step = _step(module, train)

    def forward(state, args):
        return step(state, args)

    gm = _trace(forward, state, args)
    placeholders = [(_node_name(k), k) for k in state] + [(n, None) for n in names]
    return graph_to_json(gm, "gs", placeholders), names, [k for k, v in state.items() if v.requires_grad]


def _check_plan_keys(module, plan):
    """A plan entry that names no submodule is an error (torch only warns and skips it)."""
    names = [n for n, _ in module.named_modules() if n]
    for key in plan:
        pattern = key.split(".")
        found = any(len(n.split(".")) == len(pattern) and all(fnmatch.fnmatchcase(a, b) for a, b in zip(n.split("."), pattern)) for n in names)
        if not found:
            shown = ", ".join(names[:12]) + (", ..." if len(names) > 12 else "")
            raise CaptureError(f"the plan's entry {key!r} names no submodule of {type(module).__name__} (its submodules: {shown})")


def _resolve_plan(plan, mesh):
    if callable(plan):
        try:
            plan = plan(mesh) if inspect.signature(plan).parameters else plan()
        except (TypeError, ValueError):
            plan = plan(mesh)
    if not isinstance(plan, dict):
        raise CaptureError("the plan must be a dict from module names to parallel styles (ColwiseParallel(), ...), or a function of the device mesh returning one")
    return plan


def capture_rank(build, plan, world, rank, input_placements, train=False):
    """Rank ``rank``'s graph object, the placements of its tensors and its process groups."""
    # torch logs a failed shape check with its traceback before raising; the error is reported once
    logging.getLogger("torch._subclasses.fake_tensor").setLevel(logging.CRITICAL)
    hook = sys.excepthook  # init_process_group wraps it to prefix tracebacks with the rank
    dist.init_process_group("fake", store=_fake_store(), rank=rank, world_size=world)
    try:
        mesh = init_device_mesh("cpu", (world,))
        module, args = _built(build)
        plan = _resolve_plan(plan, mesh)
        _check_plan_keys(module, plan)
        parallelize_module(module, mesh, plan)
        state = _state(module)
        names = _input_names(module, args)
        if input_placements is None:
            input_placements = [Replicate()] * len(args)
        if len(input_placements) != len(args):
            raise CaptureError(f"{len(input_placements)} input placements for {len(args)} inputs")
        specs = {}
        local = {}
        placements = []
        for fqn, t in state.items():
            if isinstance(t, DTensor):
                if t.device_mesh.ndim != 1:
                    raise CaptureError(f"parameter {fqn}: a mesh of {t.device_mesh.ndim} dims; only one-dimensional meshes are supported")
                specs[fqn] = (t.device_mesh, t.placements, t.shape, t.stride())
                local[fqn] = t.to_local()
                placements.append((fqn, _to_placement(t.placements[0], t.dim(), f"parameter {fqn}")))
            else:
                local[fqn] = t
                placements.append((fqn, Placement("replicate")))
        local = _trainable(local, train, state)
        local_args = []
        for name, x, p in zip(names, args, input_placements):
            local_args.append(_local_input(x, p, world, rank, f"input {name}"))
            placements.append((name, _to_placement(p, x.dim(), f"input {name}")))

        def to_module_state(local):
            return {
                k: (DTensor.from_local(v, specs[k][0], specs[k][1], run_check=False, shape=specs[k][2], stride=specs[k][3]) if k in specs else v)
                for k, v in local.items()
            }

        step = _step(module, train)

        def forward(local, args):
            # gradients are taken with respect to the local shards, so each has its parameter's
            # placement (DTensor.from_local's backward redistributes to it)
            return step(local, args, lambda o: o.to_local() if isinstance(o, DTensor) else o, to_module_state)

        gm = _trace(forward, local, tuple(local_args))
        ph = [(_node_name(k), k) for k in local] + [(n, None) for n in names]
        graph = graph_to_json(gm, f"gd.r{rank}", ph)
        groups = _groups(mesh, graph)
        return graph, placements, groups
    finally:
        dist.destroy_process_group()
        sys.excepthook = hook


def _groups(mesh, graph):
    known = {}
    for g in [mesh.get_group(0), dist.group.WORLD]:
        known[g.group_name] = dist.get_process_group_ranks(g)
    used = {}
    for n in graph["nodes"]:
        if n["op"] == "call_function" and "c10d_functional" in n["target"]:
            for a in n["args"]:
                if isinstance(a, str) and a in known:
                    used[a] = known[a]
    return used


def _outputs(graph):
    out = [n for n in graph["nodes"] if n["op"] == "output"][0]["args"][0]
    names = []
    for a in out:
        if not (isinstance(a, dict) and "node" in a):
            raise CaptureError(f"{graph['name']}: an output that is not a tensor ({a!r}); return tensors only")
        names.append(a["node"])
    return names


def _expectations(gs, graphs, output_placements, grad_placements=()):
    gs_out = _outputs(gs)
    gd_out = [_outputs(g) for g in graphs]
    n = len(gs_out) - len(grad_placements)
    if output_placements is None:
        output_placements = [Replicate()] * n
    if len(output_placements) != n:
        raise CaptureError(f"{len(output_placements)} output placements for {n} outputs of the module")
    output_placements = list(output_placements) + list(grad_placements)
    expect = []
    for i, (name, p) in enumerate(zip(gs_out, output_placements)):
        if any(len(o) != len(gs_out) for o in gd_out):
            raise CaptureError(f"the parallelized module returns {len(gd_out[0])} tensors, the module {len(gs_out)}")
        node = next(n for n in gs["nodes"] if n["name"] == name)
        ndim = len(node["meta"].get("shape", []))
        expect += expectation(name, [o[i] for o in gd_out], _to_placement(p, ndim, f"output {i}"))
    return expect


# What tracing a rank imports on first use (torch imports them lazily: about 780 modules, most
# of a rank's time); the fork server imports them once. A name a torch version lacks is skipped.
_TRACING_MODULES = ("torch._dynamo", "torch._inductor", "torch.export", "torch._functorch.aot_autograd",
                    "torch._higher_order_ops", "torch.distributed.tensor.parallel")


def _rank_processes():
    """Where ranks are traced: processes forked from a server that imported torch, this module and
    what tracing imports (_TRACING_MODULES) once and has run nothing, so each rank starts fresh
    without importing them again; spawned processes where the platform has no fork server."""
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload([__name__, *_TRACING_MODULES])
    return context


def capture(build, plan, world, input_placements=None, output_placements=None, train=False):
    """(gs, gd, ri) objects for ``build`` parallelized over ``world`` ranks with ``plan``.

    ``input_placements`` say how each forward argument lies on the ranks (default: every rank
    has all of it); ``output_placements`` say how each output of the module should lie on the
    ranks' outputs (default: every rank returns all of it), written as the relation file's
    ``expect`` entries, so a rank that returns, say, an unreduced partial sum is reported.
    With ``train``, both graphs also return the gradients of the sum of the outputs' elements
    with respect to the parameters (forward and backward), expected placed as the parameters."""
    if world < 1:
        raise CaptureError(f"--world must be at least 1, not {world}")
    if dist.is_initialized():
        raise CaptureError("a process group is already initialized; capture in a fresh process")
    tied = _tied(_built(build)[0])
    if train and tied:
        pairs = ", ".join(f"{a} and {b}" for a, b in tied.items())
        raise CaptureError(f"the module ties {pairs}; parallelize_module gives each of them its own"
                           " tensor, so the parallelized module trains them apart: tie them again after"
                           " parallelize_module, or capture without --train")
    gs, _, trained = capture_sequential(build, train)
    # Each rank is traced in a fresh process: DTensor keeps caches keyed by the mesh but not by
    # the rank, so a second rank traced in one process can reuse the first rank's choices (seen:
    # the shard a gradient keeps after a redistribution).
    graphs, groups, placements = [], {}, None
    context = _rank_processes()
    with concurrent.futures.ProcessPoolExecutor(max_workers=min(world, os.cpu_count() or 1), mp_context=context, max_tasks_per_child=1) as pool:
        futures = [pool.submit(capture_rank, build, plan, world, rank, input_placements, train) for rank in range(world)]
        for future in futures:
            graph, placements, g = future.result()
            graphs.append(graph)
            groups.update(g)
    grads = []
    if train:
        by_name = dict(placements)
        grads = [_from_placement(by_name[k]) for k in trained]
    expect = _expectations(gs, graphs, output_placements, grads)
    return gs, ranks_to_json(graphs, groups), relation_json(placements, world, expect, tied)
