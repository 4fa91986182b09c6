"""An output layer whose vocabulary is split over the ranks and a cross-entropy taken with torch's
``loss_parallel``: the logits stay sharded by class (a DTensor), and the log-softmax is computed
per rank from the all-reduced row max and sum of exponentials."""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributed.tensor.parallel import ColwiseParallel, loss_parallel

VOCAB, DIM = 32, 16


class Head(nn.Module):
    def __init__(self, parallel_loss=True):
        super().__init__()
        self.parallel_loss = parallel_loss
        self.head = nn.Linear(DIM, VOCAB, bias=False)

    def forward(self, h, targets):
        logits = self.head(h)
        if self.parallel_loss:
            with loss_parallel():
                return F.cross_entropy(logits, targets)
        return F.cross_entropy(logits, targets)


def build():
    torch.manual_seed(0)
    return Head(), (torch.randn(8, DIM), torch.randint(0, VOCAB, (8,)))


def plan(mesh):
    """The output layer's classes split, its logits kept a DTensor sharded by class."""
    return {"head": ColwiseParallel(use_local_output=False)}
