"""The models of the recipe: the sequential one and its split over ranks (copy and change)."""

import torch.nn.functional as F
from torch import nn

import fx_collectives as dist

HIDDEN, FFN = 16, 32


class TwoLayer(nn.Module):
    """The sequential model: fc2(gelu(fc1(x)))."""

    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(HIDDEN, FFN)
        self.fc2 = nn.Linear(FFN, HIDDEN)

    def forward(self, x):
        return self.fc2(F.gelu(self.fc1(x)))


class TwoLayerTensorParallel(nn.Module):
    """Rank ``rank`` of the split model; ``all_reduce=False`` is the bug."""

    def __init__(self, rank, world_size, all_reduce=True):
        super().__init__()
        self.fc1 = nn.Linear(HIDDEN, FFN // world_size)  # rows of fc1.weight and fc1.bias
        self.fc2 = nn.Linear(FFN // world_size, HIDDEN)  # columns of fc2.weight; whole bias
        self.all_reduce = all_reduce

    def forward(self, x):
        h = F.gelu(self.fc1(x))
        partial = F.linear(h, self.fc2.weight)  # this rank's share of fc2's product
        if self.all_reduce:
            partial = dist.all_reduce(partial, "sum", "tp")
        return partial + self.fc2.bias
