"""Functional collectives for tracing one rank's graph without a process group.

torch 2.x records distributed communication in traced graphs as the functional
collectives ``torch.ops._c10d_functional.*`` followed by ``wait_tensor``.  Older
torch (1.13, the version Debian ships) has no such operators, so this module
defines them as custom operators through ``torch.library`` with the same names
and argument lists, which makes a graph traced with 1.13 carry the same targets
torch 2.x emits (``_c10d_functional.all_reduce.default`` and so on).

The kernels only compute result shapes (CPU kernels also copy data where that
is trivial); no communication happens.  That is all tracing needs: each rank's
graph is traced by running the model code with that rank's ``rank`` and
``world_size`` in one process.

Use :func:`ensure_registered` once before tracing, then call the helpers
(:func:`all_reduce`, :func:`all_gather`, ...) from model code; each helper
issues the collective and its ``wait_tensor``, as torch does.
"""

import importlib

import torch

NAMESPACE = "_c10d_functional"

# The schemas torch 2.x declares (torch/csrc/distributed/c10d/Functional.cpp),
# with SymInt[] spelled int[] so that torch 1.13 accepts them.
SCHEMAS = {
    "all_reduce": "all_reduce(Tensor input, str reduce_op, str group_name) -> Tensor",
    "all_gather_into_tensor":
        "all_gather_into_tensor(Tensor input, int group_size, str group_name) -> Tensor",
    "reduce_scatter_tensor":
        "reduce_scatter_tensor(Tensor input, str reduce_op, int group_size, str group_name)"
        " -> Tensor",
    "all_to_all_single":
        "all_to_all_single(Tensor input, int[] output_split_sizes, int[] input_split_sizes,"
        " str group_name) -> Tensor",
    "broadcast": "broadcast(Tensor input, int src, str group_name) -> Tensor",
    "wait_tensor": "wait_tensor(Tensor tensor) -> Tensor",
}

REDUCE_OPS = ("sum", "avg", "max", "min")

_library = None  # keeps the registration alive for the life of the process


def _check_reduce_op(op):
    if op not in REDUCE_OPS:
        raise ValueError(f"reduce_op {op!r} is not one of {', '.join(REDUCE_OPS)}")


def _check_group_size(group_size):
    if group_size < 1:
        raise ValueError(f"group_size must be positive, not {group_size}")


def _all_reduce(x, reduce_op, group_name):
    _check_reduce_op(reduce_op)
    return x.clone()


def _all_gather_into_tensor(x, group_size, group_name):
    _check_group_size(group_size)
    if x.dim() == 0:
        raise ValueError("all_gather_into_tensor needs a tensor of at least one dimension")
    return torch.cat([x] * group_size, dim=0)


def _reduce_scatter_tensor(x, reduce_op, group_size, group_name):
    _check_reduce_op(reduce_op)
    _check_group_size(group_size)
    if x.dim() == 0 or x.shape[0] % group_size != 0:
        raise ValueError(
            f"reduce_scatter_tensor scatters dim 0, whose size {tuple(x.shape)[:1]} is not a"
            f" multiple of group_size {group_size}")
    return x.narrow(0, 0, x.shape[0] // group_size).clone()


def _all_to_all_single(x, output_split_sizes, input_split_sizes, group_name):
    if input_split_sizes and sum(input_split_sizes) != x.shape[0]:
        raise ValueError(
            f"input_split_sizes {list(input_split_sizes)} do not add up to dim 0 ({x.shape[0]})")
    rows = sum(output_split_sizes) if output_split_sizes else x.shape[0]
    return x.new_zeros((rows,) + tuple(x.shape[1:]))


def _broadcast(x, src, group_name):
    return x.clone()


def _wait_tensor(x):
    return x.clone()


_KERNELS = {
    "all_reduce": _all_reduce,
    "all_gather_into_tensor": _all_gather_into_tensor,
    "reduce_scatter_tensor": _reduce_scatter_tensor,
    "all_to_all_single": _all_to_all_single,
    "broadcast": _broadcast,
    "wait_tensor": _wait_tensor,
}


def _has_op(name):
    try:
        getattr(getattr(torch.ops, NAMESPACE), name).default
        return True
    except (AttributeError, RuntimeError):
        return False


def missing_ops():
    """The collectives of :data:`SCHEMAS` that the installed torch does not define."""
    return [name for name in SCHEMAS if not _has_op(name)]


def ensure_registered():
    """Defines the functional collectives the installed torch lacks.

    Returns True when this call registered them, False when torch already had
    them all (torch >= 2.2 built with distributed support, or an earlier call).
    """
    global _library
    try:  # torch 2.x: registers the meta kernels that fake-tensor tracing uses
        importlib.import_module("torch.distributed._functional_collectives")
    except ImportError:
        pass
    missing = missing_ops()
    if not missing:
        return False
    if len(missing) != len(SCHEMAS):
        try:
            lib = torch.library.Library(NAMESPACE, "FRAGMENT")
        except ValueError as e:
            raise RuntimeError(
                f"torch {torch.__version__} defines some {NAMESPACE} collectives but not"
                f" {', '.join(missing)}, and cannot add operators to an existing namespace;"
                " use a torch that has them all") from e
    else:
        lib = torch.library.Library(NAMESPACE, "DEF")
    for name in missing:
        lib.define(SCHEMAS[name])
        for key in ("CPU", "Meta", "AutogradMeta"):  # torch 1.13 has no fallthrough for the last
            lib.impl(name, _KERNELS[name], key)
    _library = lib
    return True


def _ops():
    return getattr(torch.ops, NAMESPACE)


def wait(x):
    """``wait_tensor``: the value of an issued collective."""
    return _ops().wait_tensor(x)


def all_reduce(x, reduce_op="sum", group="tp"):
    """The reduction of ``x`` over the ranks of ``group`` (``sum``, ``avg``, ``max``, ``min``)."""
    return wait(_ops().all_reduce(x, reduce_op, group))


def all_gather(x, group_size, group="tp"):
    """The ranks' ``x`` concatenated along dim 0, in rank order."""
    return wait(_ops().all_gather_into_tensor(x, group_size, group))


def reduce_scatter(x, group_size, reduce_op="sum", group="tp"):
    """The reduction of ``x`` over the group, of which this rank keeps its dim-0 chunk."""
    return wait(_ops().reduce_scatter_tensor(x, reduce_op, group_size, group))


def all_to_all(x, output_split_sizes, input_split_sizes, group="tp"):
    """``all_to_all_single`` along dim 0 with the given split sizes."""
    return wait(_ops().all_to_all_single(x, output_split_sizes, input_split_sizes, group))


def broadcast(x, src, group="tp"):
    """Rank ``src``'s ``x`` on every rank of the group."""
    return wait(_ops().broadcast(x, src, group))
