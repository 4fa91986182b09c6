"""A vocabulary-parallel embedding: each rank holds a block of the table's rows, looks up the
ids in its block (others masked to zero) and the partial results are all-reduced."""

import torch
import torch.nn as nn
from torch.distributed.tensor import Replicate, Shard
from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel


class Embedding(nn.Module):
    def __init__(self, vocab=64, dim=16):
        super().__init__()
        self.tok = nn.Embedding(vocab, dim)

    def forward(self, ids):
        return self.tok(ids)


def build():
    return Embedding(), (torch.randint(0, 64, (2, 8)),)


def plan(mesh):
    return {"tok": RowwiseParallel(input_layouts=Replicate())}


def batch_sharded():
    """Bug with ``plan`` (as --inputs and --outputs): each rank gets a different slice of the
    batch of ids, which the plan declares replicated, so the all-reduce adds up lookups of
    different ids."""
    return [Shard(0)]


class TiedLM(nn.Module):
    """An embedding whose table is also the output layer's weight (tied, as GPT-2 ties them)."""

    def __init__(self, vocab=64, dim=16):
        super().__init__()
        self.tok = nn.Embedding(vocab, dim)
        self.head = nn.Linear(dim, vocab, bias=False)
        self.head.weight = self.tok.weight

    def forward(self, ids):
        return self.head(torch.relu(self.tok(ids)))


def build_tied():
    return TiedLM(), (torch.randint(0, 64, (2, 8)),)


def plan_tied(mesh):
    """The table's rows split for the lookup and, as the output layer's outputs, for the logits:
    parallelize_module gives the two uses tensors of their own, each holding the rank's rows."""
    return {"tok": RowwiseParallel(input_layouts=Replicate()),
            "head": ColwiseParallel(output_layouts=Replicate())}
