"""A Megatron-style MLP: fc1 column-parallel, fc2 row-parallel (its output all-reduced).

``build`` has no bias on fc2, as in Llama-style MLPs. ``build_with_bias`` has one: DTensor then
adds bias / world_size on every rank before the all-reduce (it turns the replicated bias into a
partial one to match the partial product).

``build_hidden_norm`` divides the hidden activation by its norm over the hidden dim (as nGPT
normalizes). Under ``plan_hidden_dtensor`` fc1's output stays a DTensor sharded over that dim, so
the norm is DTensor's: each rank's norm, squared, all-reduced, and its square root.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributed.tensor import Partial, Shard
from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel


class MLP(nn.Module):
    def __init__(self, dim=16, hidden=32, fc2_bias=False, hidden_norm=False):
        super().__init__()
        self.fc1 = nn.Linear(dim, hidden)
        self.fc2 = nn.Linear(hidden, dim, bias=fc2_bias)
        self.hidden_norm = hidden_norm

    def forward(self, x):
        h = F.gelu(self.fc1(x))
        if self.hidden_norm:
            h = h / h.norm(dim=-1, keepdim=True)
        return self.fc2(h)


def build():
    return MLP(), (torch.randn(8, 16),)


def build_with_bias():
    return MLP(fc2_bias=True), (torch.randn(8, 16),)


def build_hidden_norm():
    return MLP(hidden_norm=True), (torch.randn(8, 16),)


def plan_hidden_dtensor(mesh):
    """fc1's output kept a DTensor (sharded over the hidden dim), so the norm reduces across ranks."""
    return {"fc1": ColwiseParallel(use_local_output=False), "fc2": RowwiseParallel()}


def plan(mesh):
    return {"fc1": ColwiseParallel(), "fc2": RowwiseParallel()}


def plan_missing_reduction(mesh):
    """Bug: fc2 keeps its partial sums (output Partial) and never all-reduces them."""
    return {"fc1": ColwiseParallel(), "fc2": RowwiseParallel(output_layouts=Partial())}


def batch_sharded():
    """Bug with ``plan`` (as --inputs and --outputs): each rank gets and returns a different
    slice of the batch, which the plan declares replicated (fc1's input layout), so fc2's
    all-reduce sums rows of different samples."""
    return [Shard(0)]
