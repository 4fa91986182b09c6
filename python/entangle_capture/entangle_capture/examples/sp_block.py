"""A sequence-parallel LayerNorm + MLP block: the LayerNorm runs on each rank's slice of the
sequence, fc1 all-gathers it (column-parallel), fc2 reduce-scatters back to slices."""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributed.tensor import Shard
from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel, SequenceParallel


class Block(nn.Module):
    def __init__(self, dim=16, hidden=32):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.fc1 = nn.Linear(dim, hidden)
        self.fc2 = nn.Linear(hidden, dim, bias=False)

    def forward(self, x):
        return self.fc2(F.gelu(self.fc1(self.norm(x))))


def build():
    return Block(), (torch.randn(2, 8, 16),)


def plan(mesh):
    return {"norm": SequenceParallel(), "fc1": ColwiseParallel(input_layouts=Shard(1)), "fc2": RowwiseParallel(output_layouts=Shard(1))}


def plan_implicit_gather(mesh):
    """fc1 declares its input replicated and takes the norm's output, a sequence-sharded DTensor:
    DTensor all-gathers it itself (correct, as a run on gloo confirms), viewing it [batch * seq,
    hidden] and putting the gathered rows back in order through aten.sort of fixed positions,
    index_select and as_strided, which the checker reads as slices of the gathered rows."""
    return {"norm": SequenceParallel(), "fc1": ColwiseParallel(), "fc2": RowwiseParallel(output_layouts=Shard(1))}


def sequence_sharded():
    """The placements of the input and the output: sliced along the sequence (dim 1)."""
    return [Shard(1)]
