"""Multi-head self-attention with its heads split over the ranks: q, k and v column-parallel,
the output projection row-parallel (no biases, as in Llama-style attention)."""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel


class Attention(nn.Module):
    def __init__(self, dim=32, heads=4, local_heads_from_shape=True, sdpa=False):
        super().__init__()
        self.heads, self.head_dim = heads, dim // heads
        self.local_heads_from_shape = local_heads_from_shape
        self.sdpa = sdpa
        self.q = nn.Linear(dim, dim, bias=False)
        self.k = nn.Linear(dim, dim, bias=False)
        self.v = nn.Linear(dim, dim, bias=False)
        self.o = nn.Linear(dim, dim, bias=False)

    def split_heads(self, t):
        b, s, _ = t.shape
        if self.local_heads_from_shape:
            return t.view(b, s, -1, self.head_dim).transpose(1, 2)
        return t.view(b, s, self.heads, -1).transpose(1, 2)

    def forward(self, x):
        b, s, _ = x.shape
        q, k, v = self.split_heads(self.q(x)), self.split_heads(self.k(x)), self.split_heads(self.v(x))
        if self.sdpa:
            ctx = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        else:
            scores = q @ k.transpose(-2, -1) / self.head_dim**0.5
            ctx = F.softmax(scores, dim=-1) @ v
        return self.o(ctx.transpose(1, 2).reshape(b, s, -1))


def build():
    return Attention(), (torch.randn(2, 8, 32),)


def build_global_heads():
    """Bug: the heads are split by the model's global head count, not by the head size, so on a
    rank's shard of q, k and v each "head" mixes halves of two heads."""
    return Attention(local_heads_from_shape=False), (torch.randn(2, 8, 32),)


def build_sdpa():
    """Causal attention through F.scaled_dot_product_attention: its backward is torch's CPU
    kernel's own (aten._scaled_dot_product_flash_attention_for_cpu_backward)."""
    return Attention(sdpa=True), (torch.randn(2, 8, 32),)


def build_sdpa_global_heads():
    """build_global_heads through F.scaled_dot_product_attention."""
    return Attention(local_heads_from_shape=False, sdpa=True), (torch.randn(2, 8, 32),)


def plan(mesh):
    return {"q": ColwiseParallel(), "k": ColwiseParallel(), "v": ColwiseParallel(), "o": RowwiseParallel()}
