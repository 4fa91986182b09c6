"""Small PyTorch models, sequential and tensor/sequence parallel, for the example cases.

Every parallel module takes ``rank`` and ``world_size`` and holds only that
rank's shard of each weight, under the same qualified name as the sequential
module's full weight (``fc1.weight`` is the whole matrix in the sequential
MLP and rank k's rows of it in the parallel one).  Communication goes through
the functional collectives of :mod:`fx_collectives` on the process group
``"tp"``, so tracing one rank needs no process group.  Knobs such as
``reduce_output`` reproduce configuration mistakes for the bug cases.
"""

import math

import torch
import torch.nn.functional as F
from torch import nn

import fx_collectives as dist

GROUP = "tp"


def _shard(size, rank, world_size, what):
    if size % world_size != 0:
        raise ValueError(f"{what} of size {size} does not split over {world_size} ranks")
    part = size // world_size
    return part, rank * part


class Linear(nn.Module):
    """``weight`` [out, in] and optional ``bias`` [out]; ``style`` picks the traced form.

    ``"linear"`` calls ``F.linear`` (``t`` + ``addmm``/``mm``); ``"matmul"`` writes
    ``x @ weight.t() + bias`` (``t`` + ``mm`` + ``add``).
    """

    def __init__(self, in_features, out_features, bias=True, style="linear"):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(out_features, in_features))
        self.bias = nn.Parameter(torch.empty(out_features)) if bias else None
        self.style = style

    def forward(self, x, add_bias=True):
        bias = self.bias if add_bias else None
        if self.style == "linear":
            return F.linear(x, self.weight, bias)
        y = x @ self.weight.t()
        return y + bias if bias is not None else y


class ColumnParallelLinear(Linear):
    """Rank ``rank``'s rows of an [out, in] weight (and of its bias): a slice of the outputs."""

    def __init__(self, in_features, out_features, rank, world_size, bias=True, style="linear"):
        part, _ = _shard(out_features, rank, world_size, "out_features")
        super().__init__(in_features, part, bias, style)


class RowParallelLinear(Linear):
    """Rank ``rank``'s columns of an [out, in] weight; the bias is replicated.

    Each rank's product is partial; ``reduce`` sums them (``"all_reduce"``, or
    ``"reduce_scatter"`` leaving each rank its dim-0 chunk, or ``None``, a
    mistake), and the bias is added once after the reduction unless
    ``bias_before_reduce`` (a mistake: it is then counted once per rank).
    """

    def __init__(self, in_features, out_features, rank, world_size, style="linear",
                 reduce="all_reduce", bias_before_reduce=False):
        part, _ = _shard(in_features, rank, world_size, "in_features")
        super().__init__(part, out_features, True, style)
        self.world_size = world_size
        self.reduce = reduce
        self.bias_before_reduce = bias_before_reduce

    def forward(self, x, add_bias=True):
        y = super().forward(x, add_bias=False)
        if self.bias_before_reduce:
            y = y + self.bias
        if self.reduce == "all_reduce":
            y = dist.all_reduce(y, "sum", GROUP)
        elif self.reduce == "reduce_scatter":
            y = dist.reduce_scatter(y, self.world_size, "sum", GROUP)
        if not self.bias_before_reduce:
            y = y + self.bias
        return y


# ---------------------------------------------------------------------------
# Figure 1 of the paper: F = A @ B - E


class MatmulSub(nn.Module):
    """G_s of the paper's Figure 1: ``C = A @ B``, ``F = C - E``."""

    def forward(self, a, b, e):
        c = a @ b
        return c - e


class MatmulSubParallel(nn.Module):
    """G_d of Figure 1: A column-sharded, B and E row-sharded.

    The partial products are all-reduced into C (on every rank) and
    reduce-scattered into D, rank k's rows of C, from which F's rows are computed.
    """

    def __init__(self, rank, world_size):
        super().__init__()
        self.world_size = world_size

    def forward(self, a, b, e):
        c_partial = a @ b
        c = dist.all_reduce(c_partial, "sum", GROUP)
        d = dist.reduce_scatter(c_partial, self.world_size, "sum", GROUP)
        f = d - e
        return f, c


# ---------------------------------------------------------------------------
# Megatron-style MLP


class MLP(nn.Module):
    """``y = fc2(gelu(fc1(x)))``."""

    def __init__(self, hidden, ffn, style="linear"):
        super().__init__()
        self.fc1 = Linear(hidden, ffn, style=style)
        self.fc2 = Linear(ffn, hidden, style=style)

    def forward(self, x):
        h = F.gelu(self.fc1(x))
        return self.fc2(h)


class ParallelMLP(nn.Module):
    """Tensor-parallel MLP: fc1 column-parallel, fc2 row-parallel with an all-reduce."""

    def __init__(self, hidden, ffn, rank, world_size, style="linear", reduce="all_reduce",
                 bias_before_reduce=False):
        super().__init__()
        self.fc1 = ColumnParallelLinear(hidden, ffn, rank, world_size, style=style)
        self.fc2 = RowParallelLinear(ffn, hidden, rank, world_size, style=style, reduce=reduce,
                                     bias_before_reduce=bias_before_reduce)

    def forward(self, x):
        h = F.gelu(self.fc1(x))
        return self.fc2(h)


# ---------------------------------------------------------------------------
# Self-attention with heads split over ranks


class SelfAttention(nn.Module):
    """Multi-head self-attention over a [seq, hidden] input (one sequence, no mask)."""

    def __init__(self, hidden, heads):
        super().__init__()
        self.heads = heads
        self.head_dim = hidden // heads
        self.q_proj = Linear(hidden, hidden, bias=False)
        self.k_proj = Linear(hidden, hidden, bias=False)
        self.v_proj = Linear(hidden, hidden, bias=False)
        self.o_proj = Linear(hidden, hidden)

    def split_heads(self, x):
        seq = x.shape[0]
        return x.view(seq, -1, self.head_dim).transpose(0, 1)

    def attend(self, x):
        q = self.split_heads(self.q_proj(x))
        k = self.split_heads(self.k_proj(x))
        v = self.split_heads(self.v_proj(x))
        scores = torch.bmm(q, k.transpose(1, 2)) / math.sqrt(self.head_dim)
        probs = torch.softmax(scores, dim=-1)
        context = torch.bmm(probs, v)
        return context.transpose(0, 1).reshape(x.shape[0], -1)

    def forward(self, x):
        return self.o_proj(self.attend(x))


class ParallelSelfAttention(SelfAttention):
    """Heads split over ranks: q/k/v projections column-parallel, output projection row-parallel."""

    def __init__(self, hidden, heads, rank, world_size, reduce="all_reduce"):
        super().__init__(hidden, heads)
        _shard(heads, rank, world_size, "heads")
        self.q_proj = ColumnParallelLinear(hidden, hidden, rank, world_size, bias=False)
        self.k_proj = ColumnParallelLinear(hidden, hidden, rank, world_size, bias=False)
        self.v_proj = ColumnParallelLinear(hidden, hidden, rank, world_size, bias=False)
        self.o_proj = RowParallelLinear(hidden, hidden, rank, world_size, reduce=reduce)


# ---------------------------------------------------------------------------
# Sequence parallelism around a layer norm


class NormMLP(nn.Module):
    """``y = fc2(gelu(fc1(layer_norm(x))))`` over a [seq, hidden] input."""

    def __init__(self, hidden, ffn):
        super().__init__()
        self.norm = nn.LayerNorm(hidden)
        self.fc1 = Linear(hidden, ffn)
        self.fc2 = Linear(ffn, hidden)

    def forward(self, x):
        return self.fc2(F.gelu(self.fc1(self.norm(x))))


class SequenceParallelNormMLP(nn.Module):
    """Megatron sequence parallelism: the input and output are sharded along the sequence.

    The layer norm runs on the local rows, an all-gather rebuilds the sequence
    for the column-parallel fc1, and fc2's partial sums are reduce-scattered back
    to sequence shards.
    """

    def __init__(self, hidden, ffn, rank, world_size):
        super().__init__()
        self.world_size = world_size
        self.norm = nn.LayerNorm(hidden)
        self.fc1 = ColumnParallelLinear(hidden, ffn, rank, world_size)
        self.fc2 = RowParallelLinear(ffn, hidden, rank, world_size, reduce="reduce_scatter")

    def forward(self, x):
        h = dist.all_gather(self.norm(x), self.world_size, GROUP)
        return self.fc2(F.gelu(self.fc1(h)))


class Block(nn.Module):
    """``y = gelu(proj(x))`` over a [seq, hidden] input."""

    def __init__(self, hidden):
        super().__init__()
        self.proj = Linear(hidden, hidden)

    def forward(self, x):
        return F.gelu(self.proj(x))


class SequenceSliceBlock(Block):
    """Each rank takes its chunk of the (replicated) sequence with ``narrow``.

    ``offset_bug`` computes the chunk's start as ``rank * (chunk - 1)``, so the
    ranks' chunks overlap and the last rows are never computed.
    """

    def __init__(self, hidden, rank, world_size, offset_bug=False):
        super().__init__(hidden)
        self.rank = rank
        self.world_size = world_size
        self.offset_bug = offset_bug

    def forward(self, x):
        chunk, start = _shard(x.shape[0], self.rank, self.world_size, "the sequence")
        if self.offset_bug:
            start = self.rank * (chunk - 1)
        return super().forward(x.narrow(0, start, chunk))


# ---------------------------------------------------------------------------
# Vocabulary-parallel embedding


class Embedding(nn.Module):
    """A token embedding: ``weight`` [vocab, hidden]."""

    def __init__(self, vocab, hidden):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(vocab, hidden))

    def forward(self, ids):
        return F.embedding(ids, self.weight)


class VocabParallelEmbedding(nn.Module):
    """Rank k holds rows [k*V/n, (k+1)*V/n) of the table; other ids are masked and summed away."""

    def __init__(self, vocab, hidden, rank, world_size, reduce="all_reduce"):
        super().__init__()
        part, self.start = _shard(vocab, rank, world_size, "vocab")
        self.end = self.start + part
        self.weight = nn.Parameter(torch.empty(part, hidden))
        self.world_size = world_size
        self.reduce = reduce

    def forward(self, ids):
        mask = (ids < self.start) | (ids >= self.end)
        local = (ids - self.start).masked_fill(mask, 0)
        out = F.embedding(local, self.weight)
        out = out.masked_fill(mask.unsqueeze(-1), 0.0)
        if self.reduce == "reduce_scatter":
            return dist.reduce_scatter(out, self.world_size, "sum", GROUP)
        return dist.all_reduce(out, "sum", GROUP)


# ---------------------------------------------------------------------------
# Losses


class RegressionStep(nn.Module):
    """One training step of ``y = x @ weight^T`` under a mean squared error.

    Returns the loss and its gradient with respect to ``weight``, written out
    as explicit operators (``d loss / d y = 2 (y - target) / numel``).
    """

    def __init__(self, in_features, out_features):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(out_features, in_features))

    def step(self, x, target, scale):
        diff = F.linear(x, self.weight) - target
        loss = diff.pow(2).mean()
        grad_y = diff * (2.0 / diff.numel() * scale)
        grad_weight = grad_y.t() @ x
        return loss, grad_weight

    def forward(self, x, target):
        return self.step(x, target, 1.0)


class GradAccumulationStep(RegressionStep):
    """The same step over micro-batches, accumulating loss and gradient.

    Each micro-batch's loss (and so its gradient) is scaled by 1/micro_batches;
    ``scale_loss=False`` forgets that, so both come out micro_batches times too large.
    """

    def __init__(self, in_features, out_features, micro_batches, scale_loss=True):
        super().__init__(in_features, out_features)
        self.micro_batches = micro_batches
        self.scale_loss = scale_loss

    def forward(self, *batches):
        scale = 1.0 / self.micro_batches if self.scale_loss else 1.0
        total_loss, total_grad = None, None
        for x, target in zip(batches[0::2], batches[1::2]):
            loss, grad = self.step(x, target, scale)
            if self.scale_loss:
                loss = loss * scale
            total_loss = loss if total_loss is None else total_loss + loss
            total_grad = grad if total_grad is None else total_grad + grad
        return total_loss, total_grad


class LogitLoss(nn.Module):
    """An output layer and a loss over its logits: ``mean(logits^2)``, logits = h @ weight^T."""

    def __init__(self, hidden, vocab):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(vocab, hidden))

    def forward(self, h):
        logits = F.linear(h, self.weight)
        return logits.pow(2).sum() / logits.numel()


class VocabParallelLogitLoss(nn.Module):
    """The loss with the vocabulary split over TP ranks.

    Each rank sums its logits' squares; an all-reduce gives every rank the full
    ``loss``.  The auxiliary loss a rank back-propagates is then summed over the
    TP ranks (here by an explicit all-reduce) and must be divided by the TP size;
    ``scale_aux=False`` forgets that.
    """

    def __init__(self, hidden, vocab, rank, world_size, scale_aux=True):
        super().__init__()
        part, _ = _shard(vocab, rank, world_size, "vocab")
        self.world_size = world_size
        self.scale_aux = scale_aux
        self.weight = nn.Parameter(torch.empty(part, hidden))

    def forward(self, h):
        logits = F.linear(h, self.weight)
        partial = logits.pow(2).sum() / (logits.numel() * self.world_size)
        loss = dist.all_reduce(partial, "sum", GROUP)
        aux_loss = dist.all_reduce(loss, "sum", GROUP)
        if self.scale_aux:
            aux_loss = aux_loss / self.world_size
        return loss, aux_loss


# ---------------------------------------------------------------------------
# Paper bug 4: expert weights sharded under sequence parallelism


class Expert(nn.Module):
    """An expert MLP in the paper's notation: ``y = gelu(x @ w1) @ w2``."""

    def __init__(self, hidden, ffn):
        super().__init__()
        self.w1 = nn.Parameter(torch.empty(hidden, ffn))
        self.w2 = nn.Parameter(torch.empty(ffn, hidden))

    def forward(self, x):
        return F.gelu(x @ self.w1) @ self.w2


class ShardedExpert(Expert):
    """The expert under sequence parallelism with its weights sharded as under TP.

    The input holds rank k's sequence rows; ``w1`` holds its columns k and ``w2``
    its rows k, so the rank computes ``gelu(x_k @ w1_k) @ w2_k``: the shapes fit,
    but the products across ranks (``x_1 @ w1_2``, ...) are never formed.
    """

    def __init__(self, hidden, ffn, rank, world_size):
        super().__init__(hidden, ffn)
        part, _ = _shard(ffn, rank, world_size, "ffn")
        self.w1 = nn.Parameter(torch.empty(hidden, part))
        self.w2 = nn.Parameter(torch.empty(part, hidden))


# ---------------------------------------------------------------------------
# A Megatron-style GPT with tensor and sequence parallelism


class GPTLayer(nn.Module):
    """Pre-norm attention and MLP with residuals; with ``world_size > 1``, Megatron's TP + SP:
    norms on sequence shards, all-gather before and reduce-scatter after each parallel block."""

    def __init__(self, hidden, heads, ffn, rank=0, world_size=1):
        super().__init__()
        self.ln1 = nn.LayerNorm(hidden)
        self.ln2 = nn.LayerNorm(hidden)
        if world_size == 1:
            self.attn = SelfAttention(hidden, heads)
            self.mlp = MLP(hidden, ffn)
        else:
            self.attn = ParallelSelfAttention(hidden, heads, rank, world_size, reduce="reduce_scatter")
            self.mlp = ParallelMLP(hidden, ffn, rank, world_size, reduce="reduce_scatter")


class GPT(nn.Module):
    """Embedding, ``layers`` GPT layers, final norm, logits and Megatron's cross-entropy.

    With ``world_size > 1`` the embedding and the output layer are vocabulary-parallel and the
    loss is Megatron's vocabulary-parallel cross-entropy (max and sums all-reduced, the target
    logit picked with ``arange`` on the rank that holds it); with one rank the same formulas run
    without collectives, which is how Megatron traces the sequential model.
    """

    def __init__(self, vocab, hidden, heads, ffn, layers, rank=0, world_size=1):
        super().__init__()
        self.world_size = world_size
        if world_size == 1:
            self.embed = Embedding(vocab, hidden)
        else:
            self.embed = VocabParallelEmbedding(vocab, hidden, rank, world_size, reduce="reduce_scatter")
        self.layers = nn.ModuleList(GPTLayer(hidden, heads, ffn, rank, world_size) for _ in range(layers))
        self.norm = nn.LayerNorm(hidden)
        part, self.vocab_start = _shard(vocab, rank, world_size, "vocab")
        self.lm_head = nn.Parameter(torch.empty(part, hidden))

    def gather(self, x):
        return dist.all_gather(x, self.world_size, GROUP) if self.world_size > 1 else x

    def all_reduce(self, x, op):
        return dist.all_reduce(x, op, GROUP) if self.world_size > 1 else x

    def forward(self, ids, labels):
        h = self.embed(ids)
        for layer in self.layers:
            h = h + layer.attn.forward(self.gather(layer.ln1(h)))
            h = h + layer.mlp(self.gather(layer.ln2(h)))
        logits = F.linear(self.gather(self.norm(h)), self.lm_head)
        return self.cross_entropy(logits, labels)

    def cross_entropy(self, logits, labels):
        return vocab_parallel_cross_entropy(logits, labels, self.vocab_start, self.all_reduce)


# ---------------------------------------------------------------------------
# Paper bug 9: a sequence-parallel layer norm's weight gradients left unreduced


class LayerNormGrad(nn.Module):
    """The gradients ``(dx, dw, db)`` of a layer norm over [seq, hidden], given the upstream ``dy``."""

    def __init__(self, hidden):
        super().__init__()
        self.norm = nn.LayerNorm(hidden)

    def grads(self, x, dy):
        with torch.enable_grad():  # tracing runs under no_grad
            x = x.detach().requires_grad_(True)
            weight = self.norm.weight.detach().requires_grad_(True)
            bias = self.norm.bias.detach().requires_grad_(True)
            y = F.layer_norm(x, self.norm.normalized_shape, weight, bias, self.norm.eps)
            return torch.autograd.grad(y, (x, weight, bias), dy)

    def forward(self, x, dy):
        return self.grads(x, dy)


class SequenceParallelLayerNormGrad(LayerNormGrad):
    """The same under sequence parallelism: ``x`` and ``dy`` hold rank k's rows, so the weight and
    bias gradients are sums over the rank's rows only, which an all-reduce must add up;
    ``reduce_grads=False`` forgets it (TransformerEngine's bug, the paper's bug 9)."""

    def __init__(self, hidden, rank, world_size, reduce_grads=True):
        super().__init__(hidden)
        self.reduce_grads = reduce_grads

    def forward(self, x, dy):
        dx, dw, db = self.grads(x, dy)
        if self.reduce_grads:
            dw = dist.all_reduce(dw, "sum", GROUP)
            db = dist.all_reduce(db, "sum", GROUP)
        return dx, dw, db


# ---------------------------------------------------------------------------
# The table gradient of a vocabulary-parallel embedding


class EmbeddingGrad(Embedding):
    """The gradient of the table of an embedding lookup, given the upstream gradient ``dy``."""

    def forward(self, ids, dy):
        with torch.enable_grad():  # tracing runs under no_grad
            weight = self.weight.detach().requires_grad_(True)
            return torch.autograd.grad(F.embedding(ids, weight), weight, dy)[0]


class VocabParallelEmbeddingGrad(VocabParallelEmbedding):
    """Each rank's gradient of its rows of the table (Megatron's backward: the upstream gradient
    is the same on every rank). ``mask_output=False`` forgets to zero the looked-up rows of
    out-of-range ids, so their gradients land in the shard's row 0."""

    def __init__(self, vocab, hidden, rank, world_size, mask_output=True):
        super().__init__(vocab, hidden, rank, world_size)
        self.mask_output = mask_output

    def forward(self, ids, dy):
        with torch.enable_grad():
            weight = self.weight.detach().requires_grad_(True)
            mask = (ids < self.start) | (ids >= self.end)
            local = (ids - self.start).masked_fill(mask, 0)
            out = F.embedding(local, weight)
            if self.mask_output:
                out = out.masked_fill(mask.unsqueeze(-1), 0.0)
            return torch.autograd.grad(out, weight, dy)[0]


# ---------------------------------------------------------------------------
# A row-parallel projection of a [batch, seq, hidden] input, viewed back to 3-d before the
# all-reduce


class Projection3d(nn.Module):
    """``F.linear`` of a [batch, seq, hidden] input flattened to rows, viewed back to 3-d."""

    def __init__(self, in_features, out_features):
        super().__init__()
        self.proj = Linear(in_features, out_features)

    def forward(self, x):
        b, s, _ = x.shape
        return self.proj(x.view(b * s, -1)).view(b, s, -1)


class RowParallelProjection3d(Projection3d):
    """Rank ``rank``'s input features: the partial product is viewed to 3-d, all-reduced, and the
    replicated bias added to the 3-d sum; ``bias_before_reduce`` adds it on every rank before."""

    def __init__(self, in_features, out_features, rank, world_size, bias_before_reduce=False):
        super().__init__(in_features, out_features)
        part, _ = _shard(in_features, rank, world_size, "in_features")
        self.proj = Linear(part, out_features)
        self.bias_before_reduce = bias_before_reduce

    def forward(self, x):
        b, s, _ = x.shape
        y = self.proj(x.view(b * s, -1), add_bias=False).view(b, s, -1)
        if self.bias_before_reduce:
            return dist.all_reduce(y + self.proj.bias, "sum", GROUP)
        return dist.all_reduce(y, "sum", GROUP) + self.proj.bias


# ---------------------------------------------------------------------------
# A value every rank computes alike, averaged over the group by a sum all-reduce


class GatedScore(nn.Module):
    """``tanh(x @ w) * gate``: a small head whose inputs every rank holds whole."""

    def __init__(self, hidden, out):
        super().__init__()
        self.w = nn.Parameter(torch.empty(hidden, out))
        self.gate = nn.Parameter(torch.empty(out))

    def forward(self, x):
        return torch.tanh(x @ self.w) * self.gate


class ReplicatedGatedScore(GatedScore):
    """Every rank computes the whole score from replicated inputs, divides it by the group size
    and sums it over the group (as frameworks average a replicated value); ``divisor`` replaces the
    group size (a mistake when it differs)."""

    def __init__(self, hidden, out, rank, world_size, divisor=None):
        super().__init__(hidden, out)
        self.divisor = world_size if divisor is None else divisor

    def forward(self, x):
        return dist.all_reduce(super().forward(x) / self.divisor, "sum", GROUP)


# ---------------------------------------------------------------------------
# The mean of per-sample losses over a batch, from micro-batches


class PerSampleLoss(nn.Module):
    """``mean over samples of mean over features of (x W^T - target)^2`` and the batch mean of
    the predictions."""

    def __init__(self, in_features, out_features):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(out_features, in_features))

    def losses(self, x, target):
        pred = F.linear(x, self.weight)
        return (pred - target).pow(2).mean(dim=-1), pred.mean(dim=0, keepdim=True)

    def forward(self, x, target):
        per_sample, batch_mean = self.losses(x, target)
        return per_sample.mean(), batch_mean


class MicroBatchPerSampleLoss(PerSampleLoss):
    """The same over equal micro-batches: each micro-batch's means divided by their number and the
    results summed; ``divide=False`` forgets the division of the loss."""

    def __init__(self, in_features, out_features, micro_batches, divide=True):
        super().__init__(in_features, out_features)
        self.micro_batches = micro_batches
        self.divide = divide

    def forward(self, *batches):
        loss, batch_mean = None, None
        for x, target in zip(batches[0::2], batches[1::2]):
            per_sample, part_mean = self.losses(x, target)
            part_loss = per_sample.mean()
            if self.divide:
                part_loss = part_loss / self.micro_batches
            part_mean = part_mean / self.micro_batches
            loss = part_loss if loss is None else loss + part_loss
            batch_mean = part_mean if batch_mean is None else batch_mean + part_mean
        return loss, batch_mean


# ---------------------------------------------------------------------------
# Column-parallel weights stored transposed


class TransposedProduct(nn.Module):
    """``y = x @ W^T`` with ``W`` [out, in]."""

    def __init__(self, in_features, out_features):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(out_features, in_features))

    def forward(self, x):
        return x @ self.weight.t()


class TransposedColumnParallel(nn.Module):
    """Rank k stores its output features transposed, ``weight`` = W_k^T [in, out/n], and computes
    ``W_k^T^T X^T`` = Y_k^T; the ranks' [out/n, tokens] blocks are all-gathered along dim 0 into Y^T
    and transposed back. ``gather_rows=True`` computes Y_k = X W_k^T, gathers those along dim 0
    and views the [n * tokens, out/n] result as [tokens, out] (a mistake: the blocks interleave)."""

    def __init__(self, in_features, out_features, rank, world_size, gather_rows=False):
        super().__init__()
        part, _ = _shard(out_features, rank, world_size, "out_features")
        self.weight = nn.Parameter(torch.empty(in_features, part))
        self.world_size = world_size
        self.gather_rows = gather_rows

    def forward(self, x):
        if self.gather_rows:
            y = dist.all_gather(x @ self.weight, self.world_size, GROUP)
            return y.view(x.shape[0], -1)
        yt = self.weight.t() @ x.t()
        return dist.all_gather(yt, self.world_size, GROUP).t()


# ---------------------------------------------------------------------------
# Uneven sequence shards, padded for the all-gather


class GeluProjection(nn.Module):
    """``gelu(x W^T + b)`` over a [seq, hidden] input."""

    def __init__(self, in_features, out_features):
        super().__init__()
        self.proj = Linear(in_features, out_features)

    def forward(self, x):
        return F.gelu(self.proj(x))


class PaddedGatherColumnParallel(GeluProjection):
    """The sequence is split unevenly (``seq_sizes``, rank k's rows); each rank pads its shard to
    the longest with ``F.pad``, the padded shards are all-gathered, and rank k's padding is sliced
    away again before a column-parallel projection. ``trim_end_only=True`` takes the first
    ``sum(seq_sizes)`` rows instead (a mistake: the padding of every rank but the last is kept)."""

    def __init__(self, in_features, out_features, rank, world_size, seq_sizes, trim_end_only=False):
        super().__init__(in_features, out_features)
        part, _ = _shard(out_features, rank, world_size, "out_features")
        self.proj = Linear(in_features, part)
        self.world_size = world_size
        self.seq_sizes = seq_sizes
        self.trim_end_only = trim_end_only

    def forward(self, x):
        longest = max(self.seq_sizes)
        padded = F.pad(x, (0, 0, 0, longest - x.shape[0]))
        gathered = dist.all_gather(padded, self.world_size, GROUP)
        if self.trim_end_only:
            full = gathered[:sum(self.seq_sizes)]
        else:
            full = torch.cat([gathered[k * longest:k * longest + n] for k, n in enumerate(self.seq_sizes)])
        return super().forward(full)


# ---------------------------------------------------------------------------
# Rotary embedding over a sequence shard


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat([-x[..., half:], x[..., :half]], dim=-1)


class Rotary(nn.Module):
    """Rotary position embedding of x [seq, batch, heads, head_dim] from cos/sin tables
    [max_seq, head_dim], sliced to the sequence and broadcast over batch and heads."""

    def forward(self, x, cos_table, sin_table):
        return self.rotate(x, cos_table, sin_table, 0)

    def rotate(self, x, cos_table, sin_table, start):
        seq, dim = x.shape[0], x.shape[-1]
        cos = cos_table[start:start + seq].view(seq, 1, 1, dim)
        sin = sin_table[start:start + seq].view(seq, 1, 1, dim)
        return x * cos + rotate_half(x) * sin


class SequenceParallelRotary(Rotary):
    """Rank k holds sequence positions [k * seq/n, (k+1) * seq/n) of x and the whole tables; it
    slices the tables at its offset. ``offset_bug=True`` slices them from position 0 on every rank
    (the local positions taken for global ones)."""

    def __init__(self, rank, world_size, offset_bug=False):
        super().__init__()
        self.rank = rank
        self.offset_bug = offset_bug

    def forward(self, x, cos_table, sin_table):
        start = 0 if self.offset_bug else self.rank * x.shape[0]
        return self.rotate(x, cos_table, sin_table, start)


# ---------------------------------------------------------------------------
# A SwiGLU MLP over tensor parallelism


class SwiGLU(nn.Module):
    """``down(silu(gate(x)) * up(x))`` over a [batch, seq, hidden] input, without biases."""

    def __init__(self, hidden, ffn):
        super().__init__()
        self.gate = Linear(hidden, ffn, bias=False)
        self.up = Linear(hidden, ffn, bias=False)
        self.down = Linear(ffn, hidden, bias=False)

    def forward(self, x):
        return self.down(F.silu(self.gate(x)) * self.up(x))


class ParallelSwiGLU(SwiGLU):
    """gate and up column-parallel, down row-parallel with an all-reduce of its output.
    ``reduce_before_down=True`` all-reduces the gated activations before the down projection
    instead (a mistake: it sums different columns of the ranks)."""

    def __init__(self, hidden, ffn, rank, world_size, reduce_before_down=False):
        super().__init__(hidden, ffn)
        part, _ = _shard(ffn, rank, world_size, "ffn")
        self.gate = Linear(hidden, part, bias=False)
        self.up = Linear(hidden, part, bias=False)
        self.down = Linear(part, hidden, bias=False)
        self.reduce_before_down = reduce_before_down

    def forward(self, x):
        h = F.silu(self.gate(x)) * self.up(x)
        if self.reduce_before_down:
            return self.down(dist.all_reduce(h, "sum", GROUP))
        return dist.all_reduce(self.down(h), "sum", GROUP)


# ---------------------------------------------------------------------------
# RMSNorm under sequence parallelism, Megatron's [seq, batch, hidden] layout


class RMSNorm(nn.Module):
    """``x * rsqrt(mean(x^2 over the last dim) + eps) * weight``."""

    def __init__(self, hidden, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(hidden))
        self.eps = eps

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


class RMSNormMLP(nn.Module):
    """``fc2(gelu(fc1(rmsnorm(x))))`` over x [seq, batch, hidden]."""

    def __init__(self, hidden, ffn):
        super().__init__()
        self.norm = RMSNorm(hidden)
        self.fc1 = Linear(hidden, ffn)
        self.fc2 = Linear(ffn, hidden)

    def forward(self, x):
        return self.fc2(F.gelu(self.fc1(self.norm(x))))


class SequenceParallelRMSNormMLP(RMSNormMLP):
    """Megatron's sequence parallelism in its [seq, batch, hidden] layout: rank k holds sequence
    rows k of x, normalizes them, all-gathers the sequence (dim 0) for the column-parallel fc1, and
    reduce-scatters fc2's partial sums back to sequence rows before the bias. ``gather_batch_first=True``
    gathers the normalized rows in a [batch, seq, hidden] layout instead, where all_gather's dim 0
    is the batch, and views the result back (a mistake: sequence blocks land in the batch)."""

    def __init__(self, hidden, ffn, rank, world_size, gather_batch_first=False):
        super().__init__(hidden, ffn)
        self.world_size = world_size
        self.fc1 = ColumnParallelLinear(hidden, ffn, rank, world_size)
        self.fc2 = RowParallelLinear(ffn, hidden, rank, world_size, reduce="reduce_scatter")
        self.gather_batch_first = gather_batch_first

    def forward(self, x):
        h = self.norm(x)
        if self.gather_batch_first:
            rows, batch, hidden = h.shape
            g = dist.all_gather(h.transpose(0, 1).contiguous(), self.world_size, GROUP)
            h = g.view(batch, rows * self.world_size, hidden).transpose(0, 1)
        else:
            h = dist.all_gather(h, self.world_size, GROUP)
        return self.fc2(F.gelu(self.fc1(h)))


# ---------------------------------------------------------------------------
# Grouped-query attention with key/value heads split over ranks, causal


def causal_mask(rows, cols, row_start=0):
    """True above the diagonal: query position row_start + i may not see key position j > it."""
    return torch.arange(cols)[None, :] > torch.arange(row_start, row_start + rows)[:, None]


class GroupedQueryAttention(nn.Module):
    """Causal attention over x [seq, hidden] with ``heads`` query heads sharing
    ``kv_heads`` key/value heads. ``kv_layout`` maps query head h to a key/value head: "grouped"
    (h // (heads / kv_heads), as ``repeat_kv`` does) or "tiled" (h % kv_heads)."""

    def __init__(self, hidden, heads, kv_heads, head_dim, kv_layout="grouped"):
        super().__init__()
        self.heads, self.kv_heads, self.head_dim = heads, kv_heads, head_dim
        self.q_proj = Linear(hidden, heads * head_dim, bias=False)
        self.k_proj = Linear(hidden, kv_heads * head_dim, bias=False)
        self.v_proj = Linear(hidden, kv_heads * head_dim, bias=False)
        self.o_proj = Linear(heads * head_dim, hidden)
        self.kv_layout = kv_layout

    def split(self, t, heads):
        return t.view(t.shape[0], heads, self.head_dim).transpose(0, 1)

    def repeat_kv(self, t, heads):
        g, s, d = t.shape
        r = heads // g
        if self.kv_layout == "grouped":
            return t[:, None].expand(g, r, s, d).reshape(g * r, s, d)
        return t[None].expand(r, g, s, d).reshape(r * g, s, d)

    def attend(self, x, heads, kv_heads):
        s = x.shape[0]
        q = self.split(self.q_proj(x), heads)
        k = self.repeat_kv(self.split(self.k_proj(x), kv_heads), heads)
        v = self.repeat_kv(self.split(self.v_proj(x), kv_heads), heads)
        scores = torch.bmm(q, k.transpose(1, 2)) / math.sqrt(self.head_dim)
        scores = scores.masked_fill(causal_mask(s, s), float("-inf"))
        context = torch.bmm(torch.softmax(scores, dim=-1), v)
        return context.transpose(0, 1).reshape(s, heads * self.head_dim)

    def forward(self, x):
        return self.o_proj(self.attend(x, self.heads, self.kv_heads))


class ParallelGroupedQueryAttention(GroupedQueryAttention):
    """Query and key/value heads split over ranks (q/k/v column-parallel, each rank its
    heads/n query heads and kv_heads/n key/value heads), output projection row-parallel with an
    all-reduce, then the bias."""

    def __init__(self, hidden, heads, kv_heads, head_dim, rank, world_size, kv_layout="grouped"):
        super().__init__(hidden, heads, kv_heads, head_dim, kv_layout)
        _shard(kv_heads, rank, world_size, "kv_heads")
        self.q_proj = ColumnParallelLinear(hidden, heads * head_dim, rank, world_size, bias=False)
        self.k_proj = ColumnParallelLinear(hidden, kv_heads * head_dim, rank, world_size, bias=False)
        self.v_proj = ColumnParallelLinear(hidden, kv_heads * head_dim, rank, world_size, bias=False)
        self.o_proj = RowParallelLinear(heads * head_dim, hidden, rank, world_size)
        self.world_size = world_size

    def forward(self, x):
        n = self.world_size
        return self.o_proj(self.attend(x, self.heads // n, self.kv_heads // n))


# ---------------------------------------------------------------------------
# Forward and backward in one graph: tensor-parallel syncs as autograd functions


class _SyncForward(torch.autograd.Function):
    """All-reduce in forward, the gradient passed through (Slapo's ``sync(mode="forward")``,
    Megatron's ``reduce_from_tensor_model_parallel_region``)."""

    @staticmethod
    def forward(ctx, x):
        return dist.all_reduce(x, "sum", GROUP)

    @staticmethod
    def backward(ctx, grad):
        return grad


class _SyncBackward(torch.autograd.Function):
    """The identity in forward, an all-reduce of the gradient in backward (Slapo's
    ``sync(mode="backward")``, Megatron's ``copy_to_tensor_model_parallel_region``)."""

    @staticmethod
    def forward(ctx, x):
        return x.clone()

    @staticmethod
    def backward(ctx, grad):
        return dist.all_reduce(grad, "sum", GROUP)


def _attribute(module, qualified_name):
    for part in qualified_name.split("."):
        module = getattr(module, part)
    return module


def with_gradients(module, compute, inputs, dy):
    """``compute(params, *inputs)`` and the gradients of its output, given the upstream gradient
    ``dy``, with respect to the first input and every parameter (in ``named_parameters`` order)."""
    with torch.enable_grad():  # tracing runs under no_grad
        first = inputs[0].detach().requires_grad_(True)
        # attribute lookups, not named_parameters(): tracing substitutes the parameters there
        names = [n for n, _ in module.named_parameters()]
        params = {n: _attribute(module, n).detach().requires_grad_(True) for n in names}
        y = compute(params, first, *inputs[1:])
        grads = torch.autograd.grad(y, [first, *params.values()], dy)
    return (y.detach(), *grads)


class LinearGrad(nn.Module):
    """TrainVerify's example: ``y = x W^T``, with the gradients of x and W given the upstream ``dy``."""

    def __init__(self, in_features, out_features):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(out_features, in_features))

    def compute(self, params, x):
        return x @ params["weight"].t()

    def forward(self, x, dy):
        return with_gradients(self, self.compute, [x], dy)


class ColumnParallelLinearGrad(LinearGrad):
    """Rank k's output features of W; the input enters through a backward sync, so the input
    gradients of the ranks are all-reduced; ``sync_input_grad=False`` leaves each rank its partial
    input gradient (TrainVerify's bug)."""

    def __init__(self, in_features, out_features, rank, world_size, sync_input_grad=True):
        part, _ = _shard(out_features, rank, world_size, "out_features")
        super().__init__(in_features, part)
        self.sync_input_grad = sync_input_grad

    def compute(self, params, x):
        if self.sync_input_grad:
            x = _SyncBackward.apply(x)
        return x @ params["weight"].t()


class MLPGrad(nn.Module):
    """``fc2(gelu(fc1(x)))`` with the gradients of x and of every weight given the upstream ``dy``."""

    def __init__(self, hidden, ffn):
        super().__init__()
        self.fc1 = Linear(hidden, ffn)
        self.fc2 = Linear(ffn, hidden)

    def compute(self, p, x):
        h = F.gelu(F.linear(x, p["fc1.weight"], p["fc1.bias"]))
        return F.linear(h, p["fc2.weight"], p["fc2.bias"])

    def forward(self, x, dy):
        return with_gradients(self, self.compute, [x], dy)


class SlapoScheduledMLP(MLPGrad):
    """The MLP after a Slapo schedule for TP: ``shard(["fc1.weight", "fc1.bias"], axis=0)`` with
    ``sync(mode="backward")`` on fc1's input, and ``shard("fc2.weight", axis=1)`` with
    ``sync(mode="forward")`` on fc2's output, its bias added after. ``syncs`` lists the syncs the
    schedule inserts; leaving one out is a mistake."""

    def __init__(self, hidden, ffn, rank, world_size, syncs=("backward", "forward")):
        super().__init__(hidden, ffn)
        part, _ = _shard(ffn, rank, world_size, "ffn")
        self.fc1 = Linear(hidden, part)
        self.fc2 = Linear(part, hidden)
        self.syncs = syncs

    def compute(self, p, x):
        if "backward" in self.syncs:
            x = _SyncBackward.apply(x)
        h = F.gelu(F.linear(x, p["fc1.weight"], p["fc1.bias"]))
        y = F.linear(h, p["fc2.weight"])
        if "forward" in self.syncs:
            y = _SyncForward.apply(y)
        return y + p["fc2.bias"]


# ---------------------------------------------------------------------------
# Data parallelism and ZeRO: a regression step's loss and gradients


class RegressionGrad(nn.Module):
    """``loss = mean((x W^T + b - target)^2)`` and its gradients with respect to W and b."""

    def __init__(self, in_features, out_features):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(out_features, in_features))
        self.bias = nn.Parameter(torch.empty(out_features))

    def loss_and_grads(self, weight, bias, x, target):
        with torch.enable_grad():  # tracing runs under no_grad
            weight = weight.detach().requires_grad_(True)
            bias = bias.detach().requires_grad_(True)
            loss = (F.linear(x, weight, bias) - target).pow(2).mean()
            grad_weight, grad_bias = torch.autograd.grad(loss, (weight, bias))
        return loss.detach(), grad_weight, grad_bias

    def forward(self, x, target):
        return self.loss_and_grads(self.weight, self.bias, x, target)


class DataParallelRegressionGrad(RegressionGrad):
    """Rank k holds batch rows k and the whole weights; its loss and gradients are averaged over
    the ranks by all-reduces (``avg``). ``grad_reduce_op="sum"`` sums the gradients instead (a
    mistake: they come out world_size times too large)."""

    def __init__(self, in_features, out_features, rank, world_size, grad_reduce_op="avg"):
        super().__init__(in_features, out_features)
        self.grad_reduce_op = grad_reduce_op

    def forward(self, x, target):
        loss, grad_weight, grad_bias = super().forward(x, target)
        return (dist.all_reduce(loss, "avg", GROUP), dist.all_reduce(grad_weight, self.grad_reduce_op, GROUP),
                dist.all_reduce(grad_bias, self.grad_reduce_op, GROUP))


class MSELossRegressionGrad(RegressionGrad):
    """The regression step with the loss written as users write it, ``F.mse_loss`` (mean
    reduction): ``aten.mse_loss`` and ``aten.mse_loss_backward`` in the trace."""

    def loss_and_grads(self, weight, bias, x, target):
        with torch.enable_grad():  # tracing runs under no_grad
            weight = weight.detach().requires_grad_(True)
            bias = bias.detach().requires_grad_(True)
            loss = F.mse_loss(F.linear(x, weight, bias), target)
            grad_weight, grad_bias = torch.autograd.grad(loss, (weight, bias))
        return loss.detach(), grad_weight, grad_bias


class DataParallelMSELossRegressionGrad(MSELossRegressionGrad):
    """:class:`MSELossRegressionGrad` with rank k on batch rows k, loss and gradients all-reduced
    (``avg``; ``grad_reduce_op="sum"`` sums the gradients, a mistake)."""

    def __init__(self, in_features, out_features, rank, world_size, grad_reduce_op="avg"):
        super().__init__(in_features, out_features)
        self.grad_reduce_op = grad_reduce_op

    def forward(self, x, target):
        loss, grad_weight, grad_bias = super().forward(x, target)
        return (dist.all_reduce(loss, "avg", GROUP), dist.all_reduce(grad_weight, self.grad_reduce_op, GROUP),
                dist.all_reduce(grad_bias, self.grad_reduce_op, GROUP))


class ClassifierGrad(nn.Module):
    """``loss = F.cross_entropy(x W^T + b, labels)`` (mean over the batch) and its gradients with
    respect to W and b: ``_log_softmax``, ``nll_loss_forward`` and their backwards in the trace."""

    def __init__(self, in_features, classes):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(classes, in_features))
        self.bias = nn.Parameter(torch.empty(classes))

    def forward(self, x, labels):
        with torch.enable_grad():  # tracing runs under no_grad
            weight = self.weight.detach().requires_grad_(True)
            bias = self.bias.detach().requires_grad_(True)
            loss = F.cross_entropy(F.linear(x, weight, bias), labels)
            grad_weight, grad_bias = torch.autograd.grad(loss, (weight, bias))
        return loss.detach(), grad_weight, grad_bias


class DataParallelClassifierGrad(ClassifierGrad):
    """:class:`ClassifierGrad` with rank k on batch rows k, loss and gradients all-reduced
    (``avg``; ``grad_reduce_op="sum"`` sums the gradients, a mistake)."""

    def __init__(self, in_features, classes, rank, world_size, grad_reduce_op="avg"):
        super().__init__(in_features, classes)
        self.grad_reduce_op = grad_reduce_op

    def forward(self, x, labels):
        loss, grad_weight, grad_bias = super().forward(x, labels)
        return (dist.all_reduce(loss, "avg", GROUP), dist.all_reduce(grad_weight, self.grad_reduce_op, GROUP),
                dist.all_reduce(grad_bias, self.grad_reduce_op, GROUP))


class ZeroRegressionGrad(RegressionGrad):
    """ZeRO-3 / FSDP2 over data parallelism: rank k holds dim-0 shard k of every parameter and
    batch rows k; the parameters are all-gathered before use and their gradients reduce-scattered
    (``avg``) back to shards. ``reduce_grads=False`` keeps rank k's rows of its own gradients
    instead (a mistake: the other ranks' batches never reach them)."""

    def __init__(self, in_features, out_features, rank, world_size, reduce_grads=True):
        part, _ = _shard(out_features, rank, world_size, "out_features")
        super().__init__(in_features, part)
        self.rank = rank
        self.world_size = world_size
        self.reduce_grads = reduce_grads

    def forward(self, x, target):
        n = self.world_size
        weight = dist.all_gather(self.weight, n, GROUP)
        bias = dist.all_gather(self.bias, n, GROUP)
        loss, grad_weight, grad_bias = self.loss_and_grads(weight, bias, x, target)
        if self.reduce_grads:
            grads = [dist.reduce_scatter(g, n, "avg", GROUP) for g in (grad_weight, grad_bias)]
        else:
            grads = [g.chunk(n)[self.rank] for g in (grad_weight, grad_bias)]
        return (dist.all_reduce(loss, "avg", GROUP), *grads)


# ---------------------------------------------------------------------------
# Expert parallelism: all_to_all dispatch and combine


class ConvBlock(nn.Module):
    """``relu(conv2d(x, weight, bias, padding=1))``: [N, C, H, W] to [N, O, H, W] with 3x3 filters."""

    def __init__(self, in_channels, out_channels, bias=True):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(out_channels, in_channels, 3, 3))
        self.bias = nn.Parameter(torch.empty(out_channels)) if bias else None

    def forward(self, x):
        return F.relu(F.conv2d(x, self.weight, self.bias, padding=1))


class OutChannelParallelConv(ConvBlock):
    """Rank k's filters (and bias entries) of :class:`ConvBlock`: its block of output channels,
    all-gathered along the channels. ``interleave=True`` views the gathered ranks' blocks as
    channels without moving them (a mistake: the batch and channel blocks mix)."""

    def __init__(self, in_channels, out_channels, rank, world_size, interleave=False):
        part, _ = _shard(out_channels, rank, world_size, "out_channels")
        super().__init__(in_channels, part)
        self.world_size = world_size
        self.interleave = interleave

    def forward(self, x):
        y = super().forward(x)
        if self.interleave:
            return dist.all_gather(y, self.world_size, GROUP).view(y.shape[0], -1, *y.shape[2:])
        return torch.cat(dist.all_gather(y, self.world_size, GROUP).chunk(self.world_size), dim=1)


class InChannelParallelConv(ConvBlock):
    """Rank k's input channels of the input and of every filter (a row-parallel convolution): the
    partial results summed by an all-reduce, then the replicated bias and relu. Two mistakes:
    ``bias_before_reduce`` adds the bias on every rank before the sum (counted once per rank),
    ``relu_before_reduce`` applies relu to the partial results before the sum."""

    def __init__(self, in_channels, out_channels, rank, world_size, bias_before_reduce=False,
                 relu_before_reduce=False):
        part, _ = _shard(in_channels, rank, world_size, "in_channels")
        super().__init__(part, out_channels)
        self.bias_before_reduce = bias_before_reduce
        self.relu_before_reduce = relu_before_reduce

    def forward(self, x):
        if self.bias_before_reduce:
            partial = F.conv2d(x, self.weight, self.bias, padding=1)
        else:
            partial = F.conv2d(x, self.weight, padding=1)
        if self.relu_before_reduce:
            partial = F.relu(partial)
        y = dist.all_reduce(partial, "sum", GROUP)
        if not self.bias_before_reduce:
            y = y + self.bias.view(1, -1, 1, 1)
        return y if self.relu_before_reduce else F.relu(y)


class ConvRegressionGrad(nn.Module):
    """``F.mse_loss(conv2d(x, weight, bias, padding=1), target)`` and its gradients with respect
    to the filters and the bias: ``convolution`` and ``convolution_backward`` in the trace."""

    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(out_channels, in_channels, 3, 3))
        self.bias = nn.Parameter(torch.empty(out_channels))

    def forward(self, x, target):
        with torch.enable_grad():  # tracing runs under no_grad
            weight = self.weight.detach().requires_grad_(True)
            bias = self.bias.detach().requires_grad_(True)
            loss = F.mse_loss(F.conv2d(x, weight, bias, padding=1), target)
            grad_weight, grad_bias = torch.autograd.grad(loss, (weight, bias))
        return loss.detach(), grad_weight, grad_bias


class DataParallelConvRegressionGrad(ConvRegressionGrad):
    """:class:`ConvRegressionGrad` with rank k on batch samples k, loss and gradients all-reduced
    (``avg``; ``grad_reduce_op="sum"`` sums the gradients, a mistake)."""

    def __init__(self, in_channels, out_channels, rank, world_size, grad_reduce_op="avg"):
        super().__init__(in_channels, out_channels)
        self.grad_reduce_op = grad_reduce_op

    def forward(self, x, target):
        loss, grad_weight, grad_bias = super().forward(x, target)
        return (dist.all_reduce(loss, "avg", GROUP),
                dist.all_reduce(grad_weight, self.grad_reduce_op, GROUP),
                dist.all_reduce(grad_bias, self.grad_reduce_op, GROUP))


class SmallCNN(nn.Module):
    """conv3x3 -> relu -> max_pool2d(3, 2, 1) -> global average pool: [N, C, H, W] to [N, O]."""

    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.conv = ConvBlock(in_channels, out_channels)

    def forward(self, x):
        h = F.max_pool2d(self.conv(x), 3, 2, 1)
        return F.adaptive_avg_pool2d(h, 1).flatten(1)


class OutChannelParallelCNN(SmallCNN):
    """Rank k's filters of :class:`SmallCNN`: every layer after the convolution is per channel,
    so each rank pools its own channels and the features are all-gathered at the end.
    ``view_gathered`` views the ranks' gathered rows as features without moving them (a mistake:
    samples and channel blocks mix)."""

    def __init__(self, in_channels, out_channels, rank, world_size, view_gathered=False):
        part, _ = _shard(out_channels, rank, world_size, "out_channels")
        super().__init__(in_channels, part)
        self.world_size = world_size
        self.view_gathered = view_gathered

    def forward(self, x):
        features = super().forward(x)
        if self.view_gathered:
            return dist.all_gather(features, self.world_size, GROUP).view(features.shape[0], -1)
        return torch.cat(dist.all_gather(features, self.world_size, GROUP).chunk(self.world_size), dim=1)


class CNNRegressionGrad(nn.Module):
    """A training step of conv3x3 -> relu -> global average pool -> linear under ``F.mse_loss``:
    the loss and the gradients of the filters and of the linear weight (``convolution_backward``
    through the pool's and relu's gradients)."""

    def __init__(self, in_channels, channels, out_features):
        super().__init__()
        self.conv_weight = nn.Parameter(torch.empty(channels, in_channels, 3, 3))
        self.fc_weight = nn.Parameter(torch.empty(out_features, channels))

    def forward(self, x, target):
        with torch.enable_grad():  # tracing runs under no_grad
            conv_weight = self.conv_weight.detach().requires_grad_(True)
            fc_weight = self.fc_weight.detach().requires_grad_(True)
            h = F.relu(F.conv2d(x, conv_weight, padding=1))
            loss = F.mse_loss(F.linear(self.pool(h).flatten(1), fc_weight), target)
            grad_conv, grad_fc = torch.autograd.grad(loss, (conv_weight, fc_weight))
        return loss.detach(), grad_conv, grad_fc

    def pool(self, h):
        return F.adaptive_avg_pool2d(h, 1)


class DataParallelCNNRegressionGrad(CNNRegressionGrad):
    """:class:`CNNRegressionGrad` with rank k on samples k, loss and gradients all-reduced with
    ``avg``; ``reduce_conv_grad=False`` leaves the filters' gradient unreduced (a mistake: each
    rank keeps the gradient of its own samples)."""

    def __init__(self, in_channels, channels, out_features, rank, world_size, reduce_conv_grad=True):
        super().__init__(in_channels, channels, out_features)
        self.reduce_conv_grad = reduce_conv_grad

    def forward(self, x, target):
        loss, grad_conv, grad_fc = super().forward(x, target)
        if self.reduce_conv_grad:
            grad_conv = dist.all_reduce(grad_conv, "avg", GROUP)
        return dist.all_reduce(loss, "avg", GROUP), grad_conv, dist.all_reduce(grad_fc, "avg", GROUP)


class StaticMoE(nn.Module):
    """Experts ``gelu(t @ w1[e]) @ w2[e]`` over tokens routed ahead of time: the tokens come in
    source shards (rows of x, in order), and ``counts[s][e]`` rows of shard s, grouped by expert,
    go to expert e. Each expert processes its rows of every shard at once (as a sorted MoE does),
    and the results return to their positions."""

    def __init__(self, hidden, ffn, counts):
        super().__init__()
        self.counts = counts
        experts = len(counts[0])
        self.w1 = nn.Parameter(torch.empty(experts, hidden, ffn))
        self.w2 = nn.Parameter(torch.empty(experts, ffn, hidden))

    def expert(self, e, t, local_e=None):
        e = e if local_e is None else local_e
        return F.gelu(t @ self.w1[e]) @ self.w2[e]

    def forward(self, x):
        counts = self.counts
        blocks, at = {}, 0
        for s, row in enumerate(counts):
            for e, n in enumerate(row):
                blocks[s, e] = x[at:at + n]
                at += n
        outs = {}
        for e in range(len(counts[0])):
            out = self.expert(e, torch.cat([blocks[s, e] for s in range(len(counts))]))
            outs.update({(s, e): part for s, part in
                         enumerate(out.split([counts[s][e] for s in range(len(counts))]))})
        return torch.cat([outs[s, e] for s in range(len(counts)) for e in range(len(counts[0]))])


class ExpertParallelMoE(StaticMoE):
    """Rank k holds expert k and source shard k of the tokens: an all_to_all_single sends each
    expert its rows (input splits ``counts[k]``, output splits ``counts[s][k]`` for every source
    s), the expert runs, and a second all_to_all_single returns the rows (the splits swapped).
    ``transposed_splits=True`` takes both split lists from the transposed count matrix (a mistake
    the ranks agree on: rows go to the wrong experts)."""

    def __init__(self, hidden, ffn, counts, rank, world_size, transposed_splits=False):
        super().__init__(hidden, ffn, counts)
        if len(counts) != world_size or len(counts[0]) != world_size:
            raise ValueError("one source shard and one expert per rank")
        self.w1 = nn.Parameter(torch.empty(1, hidden, ffn))
        self.w2 = nn.Parameter(torch.empty(1, ffn, hidden))
        self.rank = rank
        if transposed_splits:
            counts = [list(col) for col in zip(*counts)]
        self.send = list(counts[rank])
        self.recv = [row[rank] for row in counts]

    def forward(self, x):
        routed = dist.all_to_all(x, self.recv, self.send, GROUP)
        out = self.expert(self.rank, routed, local_e=0)
        return dist.all_to_all(out, self.send, self.recv, GROUP)


# ---------------------------------------------------------------------------
# Context parallelism: queries sharded by sequence, keys and values all-gathered


class CausalAttentionCore(nn.Module):
    """``softmax(q k^T / sqrt(d), causal) v`` over q, k, v [heads, seq, head_dim]."""

    def forward(self, q, k, v):
        return self.attend(q, k, v, 0)

    def attend(self, q, k, v, row_start):
        scores = q @ k.transpose(1, 2) / math.sqrt(q.shape[-1])
        scores = scores.masked_fill(causal_mask(q.shape[1], k.shape[1], row_start), float("-inf"))
        return torch.softmax(scores, dim=-1) @ v


class ContextParallelAttention(CausalAttentionCore):
    """Rank k holds sequence positions k of q, k and v; keys and values are all-gathered along
    the sequence, and the causal mask of the local queries starts at the rank's offset, either as
    ``arange(start, start + rows)`` or, with ``shifted_arange=True``, as ``arange(rows) + start``.
    ``offset_bug=True`` builds the mask as if the local queries started at position 0."""

    def __init__(self, rank, world_size, offset_bug=False, shifted_arange=False):
        super().__init__()
        self.rank = rank
        self.world_size = world_size
        self.offset_bug = offset_bug
        self.shifted_arange = shifted_arange

    def gather_sequence(self, t):
        return dist.all_gather(t.transpose(0, 1).contiguous(), self.world_size, GROUP).transpose(0, 1)

    def attend(self, q, k, v, row_start):
        if not self.shifted_arange:
            return super().attend(q, k, v, row_start)
        scores = q @ k.transpose(1, 2) / math.sqrt(q.shape[-1])
        rows = torch.arange(q.shape[1]) + row_start
        scores = scores.masked_fill(torch.arange(k.shape[1])[None, :] > rows[:, None], float("-inf"))
        return torch.softmax(scores, dim=-1) @ v

    def forward(self, q, k, v):
        start = 0 if self.offset_bug else self.rank * q.shape[1]
        return self.attend(q, self.gather_sequence(k), self.gather_sequence(v), start)


class MLPRegressionGrad(nn.Module):
    """``loss = mean((fc2(gelu(fc1(x))) - target)^2)`` and the gradients of every weight."""

    def __init__(self, hidden, ffn, out):
        super().__init__()
        self.fc1 = Linear(hidden, ffn)
        self.fc2 = Linear(ffn, out)

    def loss_and_grads(self, x, target):
        with torch.enable_grad():  # tracing runs under no_grad
            names = [n for n, _ in self.named_parameters()]
            p = {n: _attribute(self, n).detach().requires_grad_(True) for n in names}
            h = F.gelu(F.linear(x, p["fc1.weight"], p["fc1.bias"]))
            loss = (F.linear(h, p["fc2.weight"], p["fc2.bias"]) - target).pow(2).mean()
            grads = torch.autograd.grad(loss, list(p.values()))
        return (loss.detach(), *grads)

    def forward(self, x, target):
        return self.loss_and_grads(x, target)


class DataParallelMLPRegressionGrad(MLPRegressionGrad):
    """Rank k holds batch rows k and the whole MLP; loss and gradients are averaged over the ranks
    by all-reduces (``avg``)."""

    def __init__(self, hidden, ffn, out, rank, world_size):
        super().__init__(hidden, ffn, out)

    def forward(self, x, target):
        return tuple(dist.all_reduce(v, "avg", GROUP) for v in self.loss_and_grads(x, target))


class FlatZeroRegressionGrad(RegressionGrad):
    """ZeRO (DeepSpeed) or FSDP1 flat parameters over data parallelism: rank k holds chunk k of
    the flattened weight and of the bias and batch rows k; the chunks are all-gathered and viewed
    as the parameters before use, the gradients flattened and reduce-scattered (``avg``) back to
    chunks."""

    def __init__(self, in_features, out_features, rank, world_size):
        super().__init__(in_features, out_features)
        wpart, _ = _shard(out_features * in_features, rank, world_size, "the flat weight")
        bpart, _ = _shard(out_features, rank, world_size, "the bias")
        self.weight = nn.Parameter(torch.empty(wpart))
        self.bias = nn.Parameter(torch.empty(bpart))
        self.world_size = world_size
        self.shape = (out_features, in_features)

    def forward(self, x, target):
        n = self.world_size
        weight = dist.all_gather(self.weight, n, GROUP).view(*self.shape)
        bias = dist.all_gather(self.bias, n, GROUP)
        loss, grad_weight, grad_bias = self.loss_and_grads(weight, bias, x, target)
        grad_weight = dist.reduce_scatter(grad_weight.reshape(-1), n, "avg", GROUP)
        grad_bias = dist.reduce_scatter(grad_bias, n, "avg", GROUP)
        return dist.all_reduce(loss, "avg", GROUP), grad_weight, grad_bias


# ---------------------------------------------------------------------------
# A Llama-style decoder: RMSNorm, rotary embedding from one cos/sin table shared by all layers,
# grouped-query attention, SwiGLU; tensor parallelism with optional sequence parallelism


def _sum_partials(y, reduce, world_size):
    """The sum over the ranks of a row-parallel projection's partial results: ``"all_reduce"``
    (every rank the whole sum), ``"reduce_scatter"`` (rank k its dim-0 chunk of it) or ``None``
    (one rank: ``y`` is the whole result)."""
    if reduce == "all_reduce":
        return _SyncForward.apply(y)
    if reduce == "reduce_scatter":
        return _ReduceScatterToSequence.apply(y, world_size)
    return y


class _ReduceScatterToSequence(torch.autograd.Function):
    """Reduce-scatter along dim 0 in forward, an all-gather of the gradient in backward
    (Megatron's ``reduce_scatter_to_sequence_parallel_region``)."""

    @staticmethod
    def forward(ctx, x, world_size):
        ctx.world_size = world_size
        return dist.reduce_scatter(x, world_size, "sum", GROUP)

    @staticmethod
    def backward(ctx, grad):
        return dist.all_gather(grad, ctx.world_size, GROUP), None


class _GatherFromSequence(torch.autograd.Function):
    """All-gather along dim 0 in forward, a reduce-scatter of the gradient in backward (Megatron's
    ``gather_from_sequence_parallel_region`` before a column-parallel layer)."""

    @staticmethod
    def forward(ctx, x, world_size):
        ctx.world_size = world_size
        return dist.all_gather(x, world_size, GROUP)

    @staticmethod
    def backward(ctx, grad):
        return dist.reduce_scatter(grad, ctx.world_size, "sum", GROUP), None


def repeat_kv(t, repeats):
    """[kv_heads, seq, head_dim] to [kv_heads * repeats, seq, head_dim], each key/value head
    repeated for its group of query heads (HF Llama's ``repeat_kv``)."""
    g, s, d = t.shape
    return t[:, None].expand(g, repeats, s, d).reshape(g * repeats, s, d)


class LlamaAttention(nn.Module):
    """Causal grouped-query attention over x [seq, hidden] without biases; queries and keys are
    rotated by the model's cos/sin tables [max_seq, head_dim], sliced to the sequence
    (``cos[:seq]``, as HF Llama's rotary cache). With ``world_size > 1`` a rank holds heads/n query
    and kv_heads/n key/value heads (q/k/v column-parallel) and the matching columns of o_proj
    (row-parallel), whose partial results ``reduce`` sums (see ``_sum_partials``). With fewer
    key/value heads than ranks, each rank holds one key/value head, replicated on
    ``world_size // kv_heads`` consecutive ranks."""

    def __init__(self, hidden, heads, kv_heads, head_dim, rank=0, world_size=1, reduce=None):
        super().__init__()
        self.heads, _ = _shard(heads, rank, world_size, "heads")
        if kv_heads >= world_size:
            self.kv_heads, _ = _shard(kv_heads, rank, world_size, "kv_heads")
        elif world_size % kv_heads == 0:
            # fewer key/value heads than ranks (Megatron, vLLM): rank r holds key/value head
            # r // (world_size // kv_heads), replicated on that many consecutive ranks
            self.kv_heads = 1
        else:
            raise ValueError(f"{kv_heads} key/value heads do not split over {world_size} ranks")
        self.head_dim = head_dim
        self.q_proj = Linear(hidden, self.heads * head_dim, bias=False)
        self.k_proj = Linear(hidden, self.kv_heads * head_dim, bias=False)
        self.v_proj = Linear(hidden, self.kv_heads * head_dim, bias=False)
        self.o_proj = Linear(self.heads * head_dim, hidden, bias=False)
        self.world_size = world_size
        self.reduce = reduce

    def split(self, t, heads):
        return t.view(t.shape[0], heads, self.head_dim).transpose(0, 1)

    def forward(self, x, cos_table, sin_table):
        s = x.shape[0]
        cos = cos_table[:s].unsqueeze(0)
        sin = sin_table[:s].unsqueeze(0)
        q = self.split(self.q_proj(x), self.heads)
        k = self.split(self.k_proj(x), self.kv_heads)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        k = repeat_kv(k, self.heads // self.kv_heads)
        v = repeat_kv(self.split(self.v_proj(x), self.kv_heads), self.heads // self.kv_heads)
        scores = torch.bmm(q, k.transpose(1, 2)) / math.sqrt(self.head_dim)
        scores = scores.masked_fill(causal_mask(s, s), float("-inf"))
        context = torch.bmm(torch.softmax(scores, dim=-1), v)
        y = self.o_proj(context.transpose(0, 1).reshape(s, self.heads * self.head_dim))
        return _sum_partials(y, self.reduce, self.world_size)


class LlamaMLP(nn.Module):
    """SwiGLU ``down_proj(silu(gate_proj(x)) * up_proj(x))`` without biases; with
    ``world_size > 1`` gate/up column-parallel and down row-parallel, its partial results summed
    by ``reduce``."""

    def __init__(self, hidden, ffn, rank=0, world_size=1, reduce=None):
        super().__init__()
        part, _ = _shard(ffn, rank, world_size, "ffn")
        self.gate_proj = Linear(hidden, part, bias=False)
        self.up_proj = Linear(hidden, part, bias=False)
        self.down_proj = Linear(part, hidden, bias=False)
        self.rank = rank
        self.world_size = world_size
        self.reduce = reduce

    def forward(self, x):
        y = self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))
        if self.reduce == "own_rows":
            # a bug: the rank's rows of its own partial result, never summed over the ranks
            return y.chunk(self.world_size)[self.rank]
        return _sum_partials(y, self.reduce, self.world_size)


class LlamaLayer(nn.Module):
    """Pre-norm attention and MLP with residuals (applied by ``Llama.forward``), RMSNorms."""

    def __init__(self, hidden, heads, kv_heads, head_dim, ffn, rank=0, world_size=1, reduce=None):
        super().__init__()
        self.input_layernorm = RMSNorm(hidden)
        self.self_attn = LlamaAttention(hidden, heads, kv_heads, head_dim, rank, world_size, reduce)
        self.post_attention_layernorm = RMSNorm(hidden)
        self.mlp = LlamaMLP(hidden, ffn, rank, world_size, reduce)


class Llama(nn.Module):
    """Embedding, ``layers`` Llama layers, final RMSNorm, logits and the loss, over one sequence
    of ``ids`` [seq]; ``cos`` and ``sin`` [max_seq, head_dim] are the rotary tables, one input
    every layer slices.

    With ``world_size > 1``: vocabulary-parallel embedding and output layer with GPT's
    vocabulary-parallel cross-entropy, and tensor parallelism in each layer. Without
    ``sequence_parallel`` the activations are replicated and the row-parallel results (and the
    embedding) all-reduced; with it they are sequence shards: RMSNorms on the rank's rows, an
    all-gather before each column-parallel block, reduce-scatters after the row-parallel ones.
    ``bug_layer`` drops the reduction after that layer's MLP on every rank.

    The collectives are Megatron's autograd functions, so that under ``torch.enable_grad`` the
    backward has its collectives too (``LlamaTrainingStep``): a row-parallel sum's gradient passes
    through, a column-parallel input's gradient is all-reduced (without sequence parallelism) or
    reduce-scattered (with it), a reduce-scatter's gradient is all-gathered; the row maximum of the
    cross-entropy carries no gradient. Traced without gradients, the graphs are the same as with
    plain collectives.
    """

    def __init__(self, vocab, hidden, heads, kv_heads, head_dim, ffn, layers, rank=0, world_size=1,
                 sequence_parallel=False, bug_layer=None):
        super().__init__()
        self.world_size = world_size
        self.sequence_parallel = sequence_parallel and world_size > 1
        reduce = None
        if world_size > 1:
            reduce = "reduce_scatter" if self.sequence_parallel else "all_reduce"
        if world_size == 1:
            self.embed = Embedding(vocab, hidden)
        else:
            self.embed = SummedVocabParallelEmbedding(vocab, hidden, rank, world_size, reduce=reduce)
        self.layers = nn.ModuleList(LlamaLayer(hidden, heads, kv_heads, head_dim, ffn, rank, world_size, reduce)
                                    for _ in range(layers))
        if bug_layer is not None and world_size > 1:
            # the bug: that layer's MLP leaves its row-parallel partial results unreduced
            self.layers[bug_layer].mlp.reduce = "own_rows" if self.sequence_parallel else None
        self.norm = RMSNorm(hidden)
        part, self.vocab_start = _shard(vocab, rank, world_size, "vocab")
        self.lm_head = nn.Parameter(torch.empty(part, hidden))

    def gather(self, x):
        """The input of a column-parallel block: the sequence shards all-gathered (sequence
        parallelism), or x itself, whose gradient the backward all-reduces."""
        if self.sequence_parallel:
            return _GatherFromSequence.apply(x, self.world_size)
        if self.world_size > 1 and torch.is_grad_enabled():
            return _SyncBackward.apply(x)
        return x

    def all_reduce(self, x, op):
        if self.world_size == 1:
            return x
        return _SyncForward.apply(x) if op == "sum" else dist.all_reduce(x, op, GROUP)

    def cross_entropy(self, logits, labels):
        return vocab_parallel_cross_entropy(logits, labels, self.vocab_start, self.all_reduce)

    def forward(self, ids, labels, cos, sin):
        return self.cross_entropy(self.logits(ids, cos, sin), labels)

    def logits(self, ids, cos, sin):
        """The rank's vocabulary shard of the logits [seq, vocab / world_size]."""
        h = self.embed(ids)
        for layer in self.layers:
            h = h + layer.self_attn(self.gather(layer.input_layernorm(h)), cos, sin)
            h = h + layer.mlp(self.gather(layer.post_attention_layernorm(h)))
        return F.linear(self.gather(self.norm(h)), self.lm_head)


class SummedVocabParallelEmbedding(VocabParallelEmbedding):
    """The vocabulary-parallel embedding whose partial lookups ``_sum_partials`` sums, so that
    the reduction has its backward (an all-reduce's gradient passes through, a reduce-scatter's is
    all-gathered)."""

    def forward(self, ids):
        mask = (ids < self.start) | (ids >= self.end)
        local = (ids - self.start).masked_fill(mask, 0)
        out = F.embedding(local, self.weight)
        out = out.masked_fill(mask.unsqueeze(-1), 0.0)
        return _sum_partials(out, self.reduce, self.world_size)


NORM_WEIGHTS = ("input_layernorm.weight", "post_attention_layernorm.weight")


def kv_replica_group(rank, world_size, kv_heads):
    """The process group of the ranks that hold the same key/value head as ``rank`` when there
    are fewer key/value heads than ranks (``kv<J>``, J the head), else None."""
    if kv_heads >= world_size:
        return None
    return f"kv{rank // (world_size // kv_heads)}"


class LlamaTrainingStep(Llama):
    """A training step of the Llama-style decoder, forward and backward in one graph: the loss and
    the gradient of every parameter (``named_parameters`` order), as Megatron computes them. The
    loss is the mean of the squared logits (their vocabulary shards' sums of squares all-reduced):
    the backward of the cross-entropy's target pick is an ``index_put`` that the checker does not
    lower (``LlamaCrossEntropyStep`` keeps it, for the record of what is missing). Besides
    the backward collectives of ``Llama``: under sequence parallelism the gradients of the RMSNorm
    weights (replicated, but each rank sees only its rows) are all-reduced over the ranks, and a
    key/value projection replicated on several ranks (fewer key/value heads than ranks) has its
    gradient all-reduced over its replicas (the group ``kv_replica_group`` names)."""

    def __init__(self, vocab, hidden, heads, kv_heads, head_dim, ffn, layers, rank=0, world_size=1,
                 sequence_parallel=False, bug_layer=None):
        super().__init__(vocab, hidden, heads, kv_heads, head_dim, ffn, layers, rank, world_size,
                         sequence_parallel, bug_layer)
        self.kv_group = kv_replica_group(rank, world_size, kv_heads)

    def forward(self, ids, labels, cos, sin):
        names = [n for n, _ in self.named_parameters()]
        with torch.enable_grad():  # tracing runs under no_grad
            loss = self.loss(self.logits(ids, cos, sin), labels)
            # attribute lookups, not named_parameters(): tracing substitutes the parameters there
            grads = torch.autograd.grad(loss, [_attribute(self, n) for n in names])
        return (loss.detach(), *(self.sync_gradient(n, g) for n, g in zip(names, grads)))

    def sync_gradient(self, name, grad):
        if self.sequence_parallel and (name == "norm.weight" or name.endswith(NORM_WEIGHTS)):
            return dist.all_reduce(grad, "sum", GROUP)
        if self.kv_group and name.endswith(("self_attn.k_proj.weight", "self_attn.v_proj.weight")):
            return dist.all_reduce(grad, "sum", self.kv_group)
        return grad

    def loss(self, logits, labels):
        """The mean of the squares of the logits (labels unused)."""
        total = self.all_reduce(logits.pow(2).sum(), "sum")
        return total / (logits.numel() * self.world_size)


class LlamaCrossEntropyStep(LlamaTrainingStep):
    """The training step with the model's cross-entropy as the loss (its backward picks the
    target logits' gradients with ``index_put(..., accumulate=True)``)."""

    def loss(self, logits, labels):
        return self.cross_entropy(logits, labels)


# ---------------------------------------------------------------------------
# The linear algebra of sums across ranks: shares of a bias, a term added on one rank, averages


class Affine(nn.Module):
    """``y = x W^T + b``."""

    def __init__(self, in_features, out_features):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(out_features, in_features))
        self.bias = nn.Parameter(torch.empty(out_features))

    def forward(self, x):
        return x @ self.weight.t() + self.bias


class BiasShareRowParallelAffine(Affine):
    """Row-parallel ``x W^T + b`` whose replicated bias every rank adds divided by the world size
    before the sum all-reduce, as DTensor's row-wise sharding lays a bias out (a partial placement,
    ``b / world_size`` on each rank). ``divide=False`` adds the whole bias on every rank (a mistake:
    the all-reduce counts it once per rank)."""

    def __init__(self, in_features, out_features, rank, world_size, divide=True):
        part, _ = _shard(in_features, rank, world_size, "in_features")
        super().__init__(part, out_features)
        self.world_size = world_size
        self.divide = divide

    def forward(self, x):
        share = self.bias / self.world_size if self.divide else self.bias
        return dist.all_reduce(x @ self.weight.t() + share, "sum", GROUP)


class RankZeroBiasRowParallelAffine(Affine):
    """Row-parallel ``x W^T + b`` whose bias only rank 0 adds before the sum all-reduce (Megatron's
    row-parallel linear with ``skip_bias_add`` undone on one rank). ``every_rank=True`` drops the
    rank test (a mistake: the bias is counted once per rank)."""

    def __init__(self, in_features, out_features, rank, world_size, every_rank=False):
        part, _ = _shard(in_features, rank, world_size, "in_features")
        super().__init__(part, out_features)
        self.rank = rank
        self.every_rank = every_rank

    def forward(self, x):
        y = x @ self.weight.t()
        if self.rank == 0 or self.every_rank:
            y = y + self.bias
        return dist.all_reduce(y, "sum", GROUP)


class SummedLossRegressionGrad(RegressionGrad):
    """The regression step with the squared errors summed instead of averaged (``reduction="sum"``
    where the sequential model has the mean: a mistake)."""

    def loss_and_grads(self, weight, bias, x, target):
        with torch.enable_grad():  # tracing runs under no_grad
            weight = weight.detach().requires_grad_(True)
            bias = bias.detach().requires_grad_(True)
            loss = (F.linear(x, weight, bias) - target).pow(2).sum()
            grad_weight, grad_bias = torch.autograd.grad(loss, (weight, bias))
        return loss.detach(), grad_weight, grad_bias


# Ulysses sequence parallelism: all_to_all from sequence shards to head shards and back


class HeadAttention(nn.Module):
    """``softmax(q k^T / sqrt(d)) v`` per head over q, k, v [seq, heads * head_dim] (the outputs of
    the projections), the result [seq, heads * head_dim]."""

    def __init__(self, heads):
        super().__init__()
        self.heads = heads

    def attend(self, q, k, v):
        scores = q @ k.transpose(1, 2) / math.sqrt(q.shape[-1])
        return torch.softmax(scores, dim=-1) @ v

    def forward(self, q, k, v):
        seq = q.shape[0]
        split = [t.view(seq, self.heads, -1).transpose(0, 1) for t in (q, k, v)]
        return self.attend(*split).transpose(0, 1).reshape(seq, -1)


class UlyssesAttention(HeadAttention):
    """DeepSpeed Ulysses: rank k holds sequence positions k of q, k and v; an all_to_all_single
    over the heads (viewed and transposed heads first) gives each rank all positions of its heads,
    attention runs, and a second all_to_all_single returns the positions. ``bug="order"``
    reassembles the received sequence chunks starting at the rank's own chunk; ``bug="split"``
    leaves out the transpose, so the all_to_all splits the sequence instead of the heads."""

    def __init__(self, heads, rank, world_size, bug=None):
        super().__init__(heads)
        self.rank = rank
        self.n = world_size
        self.bug = bug

    def to_heads(self, t):
        s, n, h = t.shape[0], self.n, self.heads
        if self.bug == "split":
            x = t.view(s, h, -1).contiguous()
            y = dist.all_to_all(x, [s // n] * n, [s // n] * n, GROUP)
            return y.view(h // n, s * n, -1)
        x = t.view(s, h, -1).transpose(0, 1).contiguous()
        y = dist.all_to_all(x, [h // n] * n, [h // n] * n, GROUP)
        chunks = list(y.view(n, h // n, s, -1).unbind(0))
        if self.bug == "order":
            chunks = chunks[self.rank:] + chunks[:self.rank]
        return torch.cat(chunks, dim=1)

    def to_sequence(self, o):
        hl, seq, n = o.shape[0], o.shape[1], self.n
        x = o.view(hl, n, seq // n, -1).transpose(0, 1).contiguous()
        y = dist.all_to_all(x, [1] * n, [1] * n, GROUP)
        return y.view(hl * n, seq // n, -1).transpose(0, 1).reshape(seq // n, -1)

    def forward(self, q, k, v):
        return self.to_sequence(self.attend(*(self.to_heads(t) for t in (q, k, v))))


class PooledCNNRegressionGrad(CNNRegressionGrad):
    """:class:`CNNRegressionGrad` with a 2x2 average pool (``F.avg_pool2d(h, 2)``) in place of the
    global one, on SIZE x SIZE images: the linear layer reads every pooled position, and the
    filters' gradient comes back through ``avg_pool2d_backward``."""

    SIZE = 4

    def __init__(self, in_channels, channels, out_features):
        super().__init__(in_channels, channels, out_features)
        self.fc_weight = nn.Parameter(torch.empty(out_features, channels * (self.SIZE // 2) ** 2))

    def pool(self, h):
        return F.avg_pool2d(h, 2)


class DataParallelPooledCNNRegressionGrad(DataParallelCNNRegressionGrad, PooledCNNRegressionGrad):
    """:class:`DataParallelCNNRegressionGrad` over :class:`PooledCNNRegressionGrad`: rank k on
    samples k, the loss and gradients all-reduced with ``avg`` (or the filters' left unreduced)."""


class FusedSwiGLU(nn.Module):
    """``down(silu(gate) * up)`` with gate and up one fused projection, ``[gate; up] = gate_up(x)``
    (the rows of gate's weight, then up's), split in halves along the features."""

    def __init__(self, hidden, ffn):
        super().__init__()
        self.gate_up = Linear(hidden, 2 * ffn, bias=False)
        self.down = Linear(ffn, hidden, bias=False)

    def forward(self, x):
        gate, up = self.gate_up(x).chunk(2, dim=-1)
        return self.down(F.silu(gate) * up)


class ParallelFusedSwiGLU(FusedSwiGLU):
    """:class:`FusedSwiGLU` over the ranks as vLLM's merged column-parallel layer and Megatron's
    fused fc1 store it: rank k's fused weight is the k-th block of gate's rows, then the k-th block
    of up's, so each rank's own halves are its gate and up; down row-parallel, all-reduced.
    ``swapped=True`` takes the halves in the other order (a mistake: the SiLU gates up's rows)."""

    def __init__(self, hidden, ffn, rank, world_size, swapped=False):
        super().__init__(hidden, ffn)
        part, _ = _shard(ffn, rank, world_size, "ffn")
        self.gate_up = Linear(hidden, 2 * part, bias=False)
        self.down = Linear(part, hidden, bias=False)
        self.swapped = swapped

    def forward(self, x):
        gate, up = self.gate_up(x).chunk(2, dim=-1)
        if self.swapped:
            gate, up = up, gate
        return dist.all_reduce(self.down(F.silu(gate) * up), "sum", GROUP)


class FusedQKVAttention(GroupedQueryAttention):
    """:class:`GroupedQueryAttention` with q, k and v one fused projection, ``[q; k; v] =
    qkv_proj(x)`` (the rows of q's weight, then k's, then v's), split by their widths."""

    def __init__(self, hidden, heads, kv_heads, head_dim, qkv_rows=None):
        nn.Module.__init__(self)
        self.heads, self.kv_heads, self.head_dim, self.kv_layout = heads, kv_heads, head_dim, "grouped"
        self.qkv_proj = Linear(hidden, qkv_rows or (heads + 2 * kv_heads) * head_dim, bias=False)
        self.o_proj = Linear(heads * head_dim, hidden)

    def attend(self, x, heads, kv_heads):
        d = self.head_dim
        self.qkv = self.qkv_proj(x).split([heads * d, kv_heads * d, kv_heads * d], dim=-1)
        return super().attend(x, heads, kv_heads)

    def q_proj(self, x):
        return self.qkv[0]

    def k_proj(self, x):
        return self.qkv[1]

    def v_proj(self, x):
        return self.qkv[2]


class ParallelFusedQKVAttention(FusedQKVAttention):
    """:class:`FusedQKVAttention` over the ranks as vLLM's QKVParallelLinear stores it: rank k's
    fused weight is its block of q's rows, then of k's, then of v's; each rank splits its output
    by its own widths; output projection row-parallel with an all-reduce, then the bias."""

    def __init__(self, hidden, heads, kv_heads, head_dim, rank, world_size):
        _shard(kv_heads, rank, world_size, "kv_heads")
        rows = (heads + 2 * kv_heads) * head_dim // world_size
        super().__init__(hidden, heads, kv_heads, head_dim, rows)
        self.o_proj = RowParallelLinear(heads * head_dim, hidden, rank, world_size)
        self.world_size = world_size

    def forward(self, x):
        n = self.world_size
        return self.o_proj(self.attend(x, self.heads // n, self.kv_heads // n))


class VocabParallelClassifierGrad(nn.Module):
    """:class:`ClassifierGrad` with the classes split over TP ranks (rank k holds rows k of the
    weight and the bias), computed as Megatron's vocabulary-parallel cross-entropy computes it, by
    hand in both directions: the row maximum all-reduced (max), the exponentials' sums and the
    target logits all-reduced (sum), each rank picking the targets in its own range; the logits'
    gradient ``softmax - onehot`` divided by the batch, the one-hot zeroed where the target lies in
    another rank's range. No rank ever computes the log-softmax of the whole logits.
    ``mask_grad=False`` forgets that zeroing (a mistake: every rank subtracts 1 at its column 0 for
    each target outside its range)."""

    def __init__(self, in_features, classes, rank, world_size, mask_grad=True):
        super().__init__()
        part, self.start = _shard(classes, rank, world_size, "classes")
        self.mask_grad = mask_grad
        self.weight = nn.Parameter(torch.empty(part, in_features))
        self.bias = nn.Parameter(torch.empty(part))

    def forward(self, x, labels):
        logits = F.linear(x, self.weight, self.bias)
        part = logits.shape[-1]
        logits = logits - dist.all_reduce(logits.amax(dim=-1), "max", GROUP).unsqueeze(-1)
        exp = logits.exp()
        sum_exp = dist.all_reduce(exp.sum(dim=-1), "sum", GROUP)
        outside = (labels < self.start) | (labels >= self.start + part)
        target = (labels - self.start).masked_fill(outside, 0)
        predicted = logits.gather(1, target.unsqueeze(-1)).squeeze(-1).masked_fill(outside, 0.0)
        predicted = dist.all_reduce(predicted, "sum", GROUP)
        loss = (sum_exp.log() - predicted).mean()
        onehot = (target.unsqueeze(-1) == torch.arange(part)).to(x.dtype)
        if self.mask_grad:
            onehot = onehot * (~outside).to(x.dtype).unsqueeze(-1)
        grad = (exp / sum_exp.unsqueeze(-1) - onehot) / x.shape[0]
        return loss, grad.t() @ x, grad.sum(dim=0)


# ---------------------------------------------------------------------------
# LoRA adapters on tensor-parallel linears


class LoRALinear(Linear):
    """A frozen linear with a low-rank adapter, as PEFT's LoRA computes it: ``x W^T + b + s (x
    A^T) B^T``, ``lora_A`` [r, in], ``lora_B`` [out, r] and ``s = alpha / r``."""

    def __init__(self, in_features, out_features, r, alpha, bias=True):
        super().__init__(in_features, out_features, bias)
        self.lora_A = nn.Parameter(torch.empty(r, in_features))
        self.lora_B = nn.Parameter(torch.empty(out_features, r))
        self.scaling = alpha / r

    def adapter(self, x):
        return F.linear(F.linear(x, self.lora_A), self.lora_B) * self.scaling

    def forward(self, x):
        return super().forward(x) + self.adapter(x)


class LoRAMLP(nn.Module):
    """``fc2(gelu(fc1(x)))`` with a LoRA adapter on both linears."""

    def __init__(self, hidden, ffn, r, alpha):
        super().__init__()
        self.fc1 = LoRALinear(hidden, ffn, r, alpha)
        self.fc2 = LoRALinear(ffn, hidden, r, alpha)

    def forward(self, x):
        return self.fc2(F.gelu(self.fc1(x)))


class ParallelLoRAMLP(LoRAMLP):
    """:class:`LoRAMLP` over TP ranks as PEFT adapts Megatron's parallel linears. fc1 is
    column-parallel: its weight, bias and ``lora_B`` hold the rank's rows, ``lora_A`` is replicated.
    fc2 is row-parallel: its weight and ``lora_A`` hold the rank's columns, ``lora_B`` and the bias
    are replicated. ``reduce="separate"`` all-reduces the base product and ``lora_A``'s product
    each (PEFT's RowParallelLinear adapter); ``"fused"`` adds the adapter's partial product to the
    base one and all-reduces once (``lora_B`` is linear); ``None`` forgets ``lora_A``'s all-reduce
    (a mistake: each rank's adapter sees only its columns of the input)."""

    def __init__(self, hidden, ffn, r, alpha, rank, world_size, reduce="separate"):
        super().__init__(hidden, ffn, r, alpha)
        part, _ = _shard(ffn, rank, world_size, "ffn")
        self.fc1 = LoRALinear(hidden, part, r, alpha)
        self.fc2 = LoRALinear(part, hidden, r, alpha)
        self.reduce = reduce

    def forward(self, x):
        h = F.gelu(self.fc1(x))
        fc2 = self.fc2
        base = F.linear(h, fc2.weight)
        low = F.linear(h, fc2.lora_A)
        if self.reduce == "fused":
            y = dist.all_reduce(base + F.linear(low, fc2.lora_B) * fc2.scaling, "sum", GROUP)
            return y + fc2.bias
        if self.reduce == "separate":
            low = dist.all_reduce(low, "sum", GROUP)
        base = dist.all_reduce(base, "sum", GROUP) + fc2.bias
        return base + F.linear(low, fc2.lora_B) * fc2.scaling


# ---------------------------------------------------------------------------
# Gradient-norm clipping


class ClipGradNorm(nn.Module):
    """``clip_grad_norm_`` over an MLP's four gradients, out of place: each gradient times
    ``min(1, max_norm / (|g| + 1e-6))``, |g| the 2-norm of all four together."""

    def __init__(self, max_norm=1.0):
        super().__init__()
        self.max_norm = max_norm

    def squared_norm(self, fc1_weight, fc1_bias, fc2_weight, fc2_bias):
        return sum(g.pow(2).sum() for g in (fc1_weight, fc1_bias, fc2_weight, fc2_bias))

    def forward(self, fc1_weight, fc1_bias, fc2_weight, fc2_bias):
        grads = (fc1_weight, fc1_bias, fc2_weight, fc2_bias)
        norm = self.squared_norm(*grads).sqrt()
        coef = torch.clamp(self.max_norm / (norm + 1e-6), max=1.0)
        return tuple(g * coef for g in grads)


class TensorParallelClipGradNorm(ClipGradNorm):
    """:class:`ClipGradNorm` over the gradients of a Megatron MLP split over TP ranks (fc1's weight
    and bias by rows, fc2's weight by columns, fc2's bias replicated), as Megatron clips them: each
    rank sums the squares of its shards and, on rank 0 alone, of the replicated bias (a
    tensor-parallel duplicate is counted once), the sum is all-reduced, and each rank scales its
    own gradients. ``every_rank=True`` counts the replicated bias on every rank (a mistake: its
    square is counted once per rank)."""

    def __init__(self, rank, max_norm=1.0, every_rank=False):
        super().__init__(max_norm)
        self.rank = rank
        self.every_rank = every_rank

    def squared_norm(self, fc1_weight, fc1_bias, fc2_weight, fc2_bias):
        own = fc1_weight.pow(2).sum() + fc1_bias.pow(2).sum() + fc2_weight.pow(2).sum()
        if self.rank == 0 or self.every_rank:
            own = own + fc2_bias.pow(2).sum()
        return dist.all_reduce(own, "sum", GROUP)


# ---------------------------------------------------------------------------
# A gated top-1 mixture of experts


class GatedStaticMoE(StaticMoE):
    """:class:`StaticMoE` with a softmax gate, as a top-1 (Switch) layer weighs its experts: each
    token's expert output times its largest gate probability, ``max(softmax(x wg))``; the routing
    itself is fixed ahead of time (``counts``), as in :class:`StaticMoE`."""

    def __init__(self, hidden, ffn, counts):
        super().__init__(hidden, ffn, counts)
        self.wg = nn.Parameter(torch.empty(hidden, len(counts[0])))

    def gate(self, x):
        return torch.softmax(x @ self.wg, dim=-1).max(dim=-1)[0].unsqueeze(-1)

    def forward(self, x):
        return super().forward(x) * self.gate(x)


class GatedExpertParallelMoE(ExpertParallelMoE):
    """:class:`GatedStaticMoE` over expert-parallel ranks: the gate (``wg`` replicated) weighs the
    rank's own tokens after the combining all_to_all_single. ``gate_dim=0`` takes the gate's
    softmax over the rank's tokens instead of over the experts (a mistake)."""

    def __init__(self, hidden, ffn, counts, rank, world_size, gate_dim=-1):
        super().__init__(hidden, ffn, counts, rank, world_size)
        self.wg = nn.Parameter(torch.empty(hidden, len(counts[0])))
        self.gate_dim = gate_dim

    def gate(self, x):
        return torch.softmax(x @ self.wg, dim=self.gate_dim).max(dim=-1)[0].unsqueeze(-1)

    def forward(self, x):
        return super().forward(x) * self.gate(x)


# ---------------------------------------------------------------------------
# Data parallelism with micro-batches, and a ZeRO optimizer step

class MicroBatchedDataParallelGrad(RegressionGrad):
    """:class:`RegressionGrad` under data parallelism with gradient accumulation: rank k splits its
    batch rows into ``micro`` consecutive micro-batches, scales each one's loss and gradients by
    ``1 / micro`` and adds them up, then all-reduces (``avg``) the sums. ``scale=False`` forgets
    the ``1 / micro`` (a mistake: everything comes out ``micro`` times too large)."""

    def __init__(self, in_features, out_features, micro, scale=True):
        super().__init__(in_features, out_features)
        self.micro, self.scale = micro, scale

    def forward(self, x, target):
        total = None
        for x_part, target_part in zip(x.chunk(self.micro), target.chunk(self.micro)):
            parts = self.loss_and_grads(self.weight, self.bias, x_part, target_part)
            if self.scale:
                parts = [p / self.micro for p in parts]
            total = parts if total is None else [a + b for a, b in zip(total, parts)]
        return tuple(dist.all_reduce(p, "avg", GROUP) for p in total)


class CausalAttentionHead(nn.Module):
    """One causal attention head with its output projection over a sequence ``x`` [seq, hidden]:
    ``softmax(q k^T / sqrt(d), masked where a key comes after its query) v wo^T``."""

    def __init__(self, hidden, head_dim):
        super().__init__()
        self.wq = nn.Parameter(torch.empty(head_dim, hidden))
        self.wk = nn.Parameter(torch.empty(head_dim, hidden))
        self.wv = nn.Parameter(torch.empty(head_dim, hidden))
        self.wo = nn.Parameter(torch.empty(hidden, head_dim))

    @staticmethod
    def attend(q, k, v, query_pos, key_pos):
        scores = (q @ k.t()) / math.sqrt(q.shape[-1])
        later = key_pos[None, :] > query_pos[:, None]
        return torch.softmax(scores.masked_fill(later, float("-inf")), -1) @ v

    def forward(self, x):
        pos = torch.arange(x.shape[0])
        return self.attend(x @ self.wq.t(), x @ self.wk.t(), x @ self.wv.t(), pos, pos) @ self.wo.t()


class LoadBalancedContextParallelAttention(CausalAttentionHead):
    """:class:`CausalAttentionHead` with the sequence cut into 2 * world_size chunks, rank r holding
    chunks r and 2 * world_size - 1 - r (so that each rank's causal work is the same): the ranks
    all-gather their keys and values, put the gathered chunks back in sequence order, and attend
    from their queries at their true positions. ``reorder=False`` uses the gathered chunks in the
    order they arrive (a mistake: the mask assumes sequence order)."""

    def __init__(self, hidden, head_dim, rank, world_size, reorder=True):
        super().__init__(hidden, head_dim)
        self.rank, self.world_size, self.reorder = rank, world_size, reorder

    def forward(self, x):
        n, c = self.world_size, x.shape[0] // 2
        k = dist.all_gather(x @ self.wk.t(), n, GROUP)
        v = dist.all_gather(x @ self.wv.t(), n, GROUP)
        if self.reorder:
            # sequence chunk j arrived as gathered block 2r (j = r) or 2r + 1 (j = 2n - 1 - r)
            block = [2 * j if j < n else 2 * (2 * n - 1 - j) + 1 for j in range(2 * n)]
            k = torch.cat([k[b * c:(b + 1) * c] for b in block], 0)
            v = torch.cat([v[b * c:(b + 1) * c] for b in block], 0)
        query_pos = torch.cat([self.rank * c + torch.arange(c),
                               (2 * n - 1 - self.rank) * c + torch.arange(c)])
        key_pos = torch.arange(2 * n * c)
        return self.attend(x @ self.wq.t(), k, v, query_pos, key_pos) @ self.wo.t()


class TimeConv(nn.Module):
    """Two 1-d convolutions over a signal's time axis (kernel 3, padding 1), a tanh between them,
    and a residual: ``conv2(tanh(conv1(x) + b1)) + x`` (an audio or state-space model's block)."""

    def __init__(self, channels, hidden):
        super().__init__()
        self.w1 = nn.Parameter(torch.empty(hidden, channels, 3))
        self.b1 = nn.Parameter(torch.empty(hidden))
        self.w2 = nn.Parameter(torch.empty(channels, hidden, 3))

    def forward(self, x):
        h = torch.tanh(F.conv1d(x, self.w1, self.b1, padding=1))
        return F.conv1d(h, self.w2, padding=1) + x


class HaloTimeConv(TimeConv):
    """:class:`TimeConv` with the time axis split over the ranks (spatial or context parallelism):
    before each convolution every rank all-gathers the ranks' first and last samples and convolves,
    without padding, its part with its left neighbour's last sample before it and its right
    neighbour's first after it (zeros at the signal's ends). ``halo=False`` zero-pads each part
    instead (a mistake: the samples at the parts' edges miss their neighbours)."""

    def __init__(self, channels, hidden, rank, world_size, halo=True):
        super().__init__(channels, hidden)
        self.rank, self.world_size, self.halo = rank, world_size, halo

    def conv(self, x, w, b=None):
        if not self.halo:
            return F.conv1d(x, w, b, padding=1)
        edges = dist.all_gather(torch.cat([x[:, :, :1], x[:, :, -1:]], 2).unsqueeze(0),
                                self.world_size, GROUP)
        zero = torch.zeros_like(x[:, :, :1])
        left = edges[self.rank - 1, :, :, 1:2] if self.rank > 0 else zero
        right = edges[self.rank + 1, :, :, 0:1] if self.rank < self.world_size - 1 else zero
        return F.conv1d(torch.cat([left, x, right], 2), w, b)

    def forward(self, x):
        h = torch.tanh(self.conv(x, self.w1, self.b1))
        return self.conv(h, self.w2) + x


class TanhMlpSgdStep(nn.Module):
    """One SGD step of ``y = tanh(x W1^T) W2^T`` under a mean squared error, the gradients by
    autograd: returns the new W1 and W2."""

    def __init__(self, in_features, hidden, out_features, lr=0.1):
        super().__init__()
        self.w1 = nn.Parameter(torch.empty(hidden, in_features))
        self.w2 = nn.Parameter(torch.empty(out_features, hidden))
        self.lr = lr

    def grads(self, x, target, loss_scale):
        with torch.enable_grad():  # tracing runs under no_grad
            params = [p.detach().requires_grad_(True) for p in (self.w1, self.w2)]
            y = torch.tanh(x @ params[0].t()) @ params[1].t()
            loss = ((y - target) ** 2).mean() * loss_scale
            return torch.autograd.grad(loss, params)

    def step(self, grads):
        return tuple(p - self.lr * g for p, g in zip((self.w1, self.w2), grads))

    def forward(self, x, target):
        return self.step(self.grads(x, target, 1.0))


class LossScaledAccumulationStep(TanhMlpSgdStep):
    """:class:`TanhMlpSgdStep` under data parallelism with gradient accumulation and a static loss
    scale (as mixed-precision training keeps one): each rank runs autograd on every micro-batch's
    loss times ``loss_scale``, adds the gradients, all-reduces (sum) them, and divides by
    ``loss_scale * micro * world_size`` before the step. ``unscale=False`` forgets the loss scale
    (a mistake: the update comes out ``loss_scale`` times too large)."""

    def __init__(self, in_features, hidden, out_features, micro, world_size, loss_scale=1024.0,
                 unscale=True):
        super().__init__(in_features, hidden, out_features)
        self.micro, self.world_size, self.loss_scale, self.unscale = micro, world_size, loss_scale, unscale

    def forward(self, x, target):
        total = None
        for x_part, target_part in zip(x.chunk(self.micro), target.chunk(self.micro)):
            g = self.grads(x_part, target_part, self.loss_scale)
            total = list(g) if total is None else [a + b for a, b in zip(total, g)]
        divisor = (self.loss_scale if self.unscale else 1.0) * self.micro * self.world_size
        return self.step([dist.all_reduce(a, "sum", GROUP) / divisor for a in total])


class RegressionAdamStep(RegressionGrad):
    """One step of ``torch.optim.Adam`` (bias-corrected, at step ``step``) on the regression: the
    loss, the new weight and bias, and their new first and second moments (buffers
    ``exp_avg_*`` and ``exp_avg_sq_*``)."""

    def __init__(self, in_features, out_features, lr=1e-2, betas=(0.9, 0.999), eps=1e-8, step=3):
        super().__init__(in_features, out_features)
        for name in ("weight", "bias"):
            shape = getattr(self, name).shape
            self.register_buffer(f"exp_avg_{name}", torch.empty(shape))
            self.register_buffer(f"exp_avg_sq_{name}", torch.empty(shape))
        self.lr, self.betas, self.eps, self.step = lr, betas, eps, step

    def adam(self, param, grad, exp_avg, exp_avg_sq):
        beta1, beta2 = self.betas
        exp_avg = exp_avg * beta1 + grad * (1 - beta1)
        exp_avg_sq = exp_avg_sq * beta2 + grad * grad * (1 - beta2)
        corrected = exp_avg / (1 - beta1 ** self.step)
        denominator = (exp_avg_sq / (1 - beta2 ** self.step)).sqrt() + self.eps
        return param - self.lr * corrected / denominator, exp_avg, exp_avg_sq

    def update(self, param, grad, name):
        return self.adam(param, grad, getattr(self, f"exp_avg_{name}"), getattr(self, f"exp_avg_sq_{name}"))

    def forward(self, x, target):
        loss, grad_weight, grad_bias = self.loss_and_grads(self.weight, self.bias, x, target)
        weight, *weight_moments = self.update(self.weight, grad_weight, "weight")
        bias, *bias_moments = self.update(self.bias, grad_bias, "bias")
        return (loss, weight, bias, *weight_moments, *bias_moments)


class ZeroAdamStep(RegressionAdamStep):
    """:class:`RegressionAdamStep` under ZeRO stage 2 over data parallelism: rank k holds batch
    rows k, the whole parameters, and dim-0 shard k of every Adam moment; the gradients are
    reduce-scattered (``avg``) to shards, each rank steps its shard of the parameters, and the new
    parameters are all-gathered. ``reduce_grads=False`` steps with the rank's rows of its own
    gradients instead of the reduce-scattered ones (a mistake: the other ranks' batches never reach
    them)."""

    def __init__(self, in_features, out_features, rank, world_size, reduce_grads=True):
        super().__init__(in_features, out_features)
        part, _ = _shard(out_features, rank, world_size, "out_features")
        for name in ("weight", "bias"):
            shape = (part,) + tuple(getattr(self, name).shape[1:])
            self.register_buffer(f"exp_avg_{name}", torch.empty(shape))
            self.register_buffer(f"exp_avg_sq_{name}", torch.empty(shape))
        self.rank, self.world_size, self.reduce_grads = rank, world_size, reduce_grads

    def average(self, grad):
        """The rank's shard of the ranks' average of ``grad``."""
        return dist.reduce_scatter(grad, self.world_size, "avg", GROUP)

    def average_loss(self, loss):
        return dist.all_reduce(loss, "avg", GROUP)

    def forward(self, x, target):
        n = self.world_size
        loss, grad_weight, grad_bias = self.loss_and_grads(self.weight, self.bias, x, target)
        stepped = []
        for name, grad in (("weight", grad_weight), ("bias", grad_bias)):
            shard = getattr(self, name).chunk(n)[self.rank]
            if self.reduce_grads:
                grad = self.average(grad)
            else:
                grad = grad.chunk(n)[self.rank]
            stepped.append(self.update(shard, grad, name))
        (weight, *weight_moments), (bias, *bias_moments) = stepped
        return (self.average_loss(loss), dist.all_gather(weight, n, GROUP),
                dist.all_gather(bias, n, GROUP), *weight_moments, *bias_moments)



# ---------------------------------------------------------------------------
# A two-dimensional mesh: data parallelism by tensor parallelism


class DataTensorParallelRegressionGrad(RegressionGrad):
    """:class:`RegressionGrad` on a mesh of ``dp`` by ``tp`` ranks (rank ``d * tp + t``): the weight's
    and bias's rows split over the tensor-parallel ranks, the batch rows over the data-parallel
    ones, the target both ways. Each rank's loss is the mean of the squared errors of its block, so
    the sequential mean is the average of every rank's: the loss is all-reduced (sum) over all the
    ranks and divided by their number, and each gradient all-reduced (sum) over the rank's
    data-parallel group (``dp{t}``, the ranks holding the same rows) and divided by the number of
    ranks too. ``divisor="dp"`` divides the gradients by the data-parallel degree instead (a
    mistake: they come out ``tp`` times too large)."""

    def __init__(self, in_features, out_features, rank, dp, tp, divisor="world"):
        part, _ = _shard(out_features, rank % tp, tp, "out_features")
        super().__init__(in_features, part)
        self.rank, self.dp, self.tp, self.divisor = rank, dp, tp, divisor

    def forward(self, x, target):
        loss, grad_weight, grad_bias = super().forward(x, target)
        world = self.dp * self.tp
        divide = self.dp if self.divisor == "dp" else world
        group = f"dp{self.rank % self.tp}"
        grad_weight = dist.all_reduce(grad_weight, "sum", group) / divide
        grad_bias = dist.all_reduce(grad_bias, "sum", group) / divide
        return dist.all_reduce(loss, "sum", "world") / world, grad_weight, grad_bias


# ---------------------------------------------------------------------------
# Sequence parallelism with a batch: DeepSpeed Ulysses in Megatron's [seq, batch, heads, dim] layout


class SeqBatchAttention(nn.Module):
    """``softmax(q k^T / sqrt(d)) v`` per batch row and head over q, k, v [seq, batch, heads,
    head_dim] (Megatron's layout), the result in the same layout."""

    def attend(self, q, k, v):
        qh, kh, vh = (x.permute(1, 2, 0, 3) for x in (q, k, v))
        scores = torch.matmul(qh, kh.transpose(-2, -1)) / math.sqrt(q.shape[-1])
        return torch.matmul(torch.softmax(scores, dim=-1), vh).permute(2, 0, 1, 3)

    def forward(self, q, k, v):
        return self.attend(q, k, v)


class UlyssesSeqBatchAttention(SeqBatchAttention):
    """DeepSpeed Ulysses over :class:`SeqBatchAttention`: rank k holds sequence chunk k of q, k and
    v; each is split into the ranks' head groups, moved first and sent by ``all_to_all_single``, so
    a rank gets every sequence chunk of its heads; after attention the sequence is split the same
    way and sent back, and the received head groups are put in rank order. ``interleave=True``
    orders the heads (local head, rank) on the way back instead (a mistake: the heads come back
    interleaved)."""

    def __init__(self, world_size, interleave=False):
        super().__init__()
        self.n, self.interleave = world_size, interleave

    def to_heads(self, x):
        s, b, h, d = x.shape
        n = self.n
        x = x.reshape(s, b, n, h // n, d).permute(2, 0, 1, 3, 4).contiguous()
        y = dist.all_to_all(x, [1] * n, [1] * n, GROUP)
        return y.reshape(n * s, b, h // n, d)

    def to_sequence(self, x):
        s, b, hp, d = x.shape
        n = self.n
        x = x.reshape(n, s // n, b, hp, d).contiguous()
        y = dist.all_to_all(x, [1] * n, [1] * n, GROUP)
        y = y.permute(1, 2, 3, 0, 4) if self.interleave else y.permute(1, 2, 0, 3, 4)
        return y.reshape(s // n, b, n * hp, d)

    def forward(self, q, k, v):
        return self.to_sequence(self.attend(*(self.to_heads(x) for x in (q, k, v))))


# ---------------------------------------------------------------------------
# ZeRO with the average taken by hand: a sum reduce-scatter, then a division by the ranks' count


class ZeroAdamSummedStep(ZeroAdamStep):
    """:class:`ZeroAdamStep` averaging as DeepSpeed's ZeRO does it by hand: the gradients are
    reduce-scattered with ``sum`` and the shard divided by the number of ranks, and the loss
    all-reduced with ``sum`` and divided likewise. ``divide=False`` leaves out the gradients'
    division (a mistake: the step uses the ranks' summed gradient, ``n`` times the average)."""

    def __init__(self, in_features, out_features, rank, world_size, divide=True):
        super().__init__(in_features, out_features, rank, world_size)
        self.divide = divide

    def average(self, grad):
        grad = dist.reduce_scatter(grad, self.world_size, "sum", GROUP)
        return grad / self.world_size if self.divide else grad

    def average_loss(self, loss):
        return dist.all_reduce(loss, "sum", GROUP) / self.world_size


# ---------------------------------------------------------------------------
# A fused QKV projection in two layouts: the sequential model's [q; k; v] rows (Hugging Face's),
# Megatron's rows interleaved per head ([heads / tp, 3, head_dim]) on each rank


class FusedQKVSelfAttention(SeqBatchAttention):
    """Self-attention over x [seq, batch, hidden] with q, k and v one projection whose rows are q's,
    then k's, then v's (``chunk(3)``), heads split from the hidden dim, :class:`SeqBatchAttention`,
    and an output projection."""

    def __init__(self, hidden, heads):
        super().__init__()
        self.heads, self.head_dim = heads, hidden // heads
        self.qkv = Linear(hidden, 3 * hidden, bias=False)
        self.out = Linear(hidden, hidden, bias=False)

    def forward(self, x):
        s, b, _ = x.shape
        q, k, v = (t.reshape(s, b, self.heads, self.head_dim) for t in self.qkv(x).chunk(3, dim=-1))
        return self.out(self.attend(q, k, v).reshape(s, b, -1))


class MegatronFusedQKVSelfAttention(FusedQKVSelfAttention):
    """:class:`FusedQKVSelfAttention` as Megatron shards it over ``world_size`` ranks: rank k holds
    the rows of its heads, interleaved per head (``[heads / tp, 3, head_dim]``: each head's q, k
    and v rows together), views its output so and unbinds q, k and v; the output projection is
    row-parallel, all-reduced. ``local_scale=True`` scales the scores by the square root of the
    rank's hidden width instead of the head's (a mistake: the scale is off by the heads a rank
    holds)."""

    def __init__(self, hidden, heads, rank, world_size, local_scale=False):
        super().__init__(hidden, heads)
        self.local, self.local_scale = heads // world_size, local_scale
        self.qkv = Linear(hidden, 3 * self.local * self.head_dim, bias=False)
        self.out = Linear(self.local * self.head_dim, hidden, bias=False)

    def attend(self, q, k, v):
        if not self.local_scale:
            return super().attend(q, k, v)
        q, k, v = (t.permute(1, 2, 0, 3) for t in (q, k, v))
        scores = q @ k.transpose(-1, -2) / math.sqrt(self.local * self.head_dim)
        return (torch.softmax(scores, dim=-1) @ v).permute(2, 0, 1, 3)

    def forward(self, x):
        s, b, _ = x.shape
        mixed = self.qkv(x)
        q, k, v = mixed.view(s, b, self.local, 3, self.head_dim).unbind(3)
        return dist.all_reduce(self.out(self.attend(q, k, v).reshape(s, b, -1)), "sum", GROUP)


# ---------------------------------------------------------------------------
# Vocabulary-parallel cross-entropy, forward (Megatron's vocab_parallel_cross_entropy)


class LMHeadLoss(nn.Module):
    """``F.cross_entropy(h W^T, labels)`` of an output layer over the whole vocabulary."""

    def __init__(self, hidden, vocab):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(vocab, hidden))

    def forward(self, h, labels):
        return F.cross_entropy(F.linear(h, self.weight), labels)


class VocabParallelLMHeadLoss(LMHeadLoss):
    """:class:`LMHeadLoss` with the vocabulary split over TP ranks, the loss computed by
    :func:`vocab_parallel_cross_entropy` (``mask_predicted=False``: the picks of targets outside the
    rank's range left unzeroed, a mistake)."""

    def __init__(self, hidden, vocab, rank, world_size, mask_predicted=True):
        super().__init__(hidden, vocab)
        part, self.start = _shard(vocab, rank, world_size, "vocab")
        self.mask_predicted = mask_predicted
        self.weight = nn.Parameter(torch.empty(part, hidden))

    def forward(self, h, labels):
        return vocab_parallel_cross_entropy(
            F.linear(h, self.weight), labels, self.start,
            lambda x, op: dist.all_reduce(x, op, GROUP), self.mask_predicted)


# ---------------------------------------------------------------------------
# A target log-probability picked by advanced indexing, data parallel


class PickedTargetLoss(nn.Module):
    """``-log_softmax(x W^T)[arange(rows), labels].mean()``: the targets' log-probabilities picked
    by advanced indexing (negative labels would count from the end of a row)."""

    def __init__(self, in_features, classes):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(classes, in_features))

    def forward(self, x, labels):
        logp = torch.log_softmax(F.linear(x, self.weight), dim=-1)
        return -logp[torch.arange(x.shape[0]), labels].mean()


class DataParallelPickedTargetLoss(PickedTargetLoss):
    """:class:`PickedTargetLoss` on each rank's rows, the losses averaged over the ranks
    (``reduce_op="sum"`` adds them instead, a mistake)."""

    def __init__(self, in_features, classes, reduce_op="avg"):
        super().__init__(in_features, classes)
        self.reduce_op = reduce_op

    def forward(self, x, labels):
        return dist.all_reduce(super().forward(x, labels), self.reduce_op, GROUP)


class LMHeadGatheredLoss(LMHeadLoss):
    """:class:`LMHeadLoss` written as ``-log_softmax(h W^T).gather(-1, labels[:, None]).mean()``:
    the targets' log-probabilities gathered as a [rows, 1] column and averaged over it."""

    def forward(self, h, labels):
        logp = torch.log_softmax(F.linear(h, self.weight), dim=-1)
        return -logp.gather(-1, labels.unsqueeze(-1)).mean()


def vocab_parallel_cross_entropy(logits, labels, start, all_reduce, mask_predicted=True):
    """Megatron's vocabulary-parallel cross-entropy of a rank's logits [rows, V / ranks], whose
    classes start at ``start``: the row maximum all-reduced (max) and subtracted, each rank picking
    the target logits in its own range (``logits[arange, masked_target]``, zeroed where the target
    lies in another rank's range), those and the exponentials' sums all-reduced (sum); the loss is
    ``log(sum_exp) - predicted``, averaged. ``all_reduce(x, op)`` reduces across the ranks (the
    identity on one rank: the sequential GPT and Llama run the same formulas). With gradients, the
    row maximum (which only keeps ``exp`` finite) is detached, as Megatron's backward ignores it.
    ``mask_predicted=False`` forgets to zero the picks of targets outside the rank's range (a
    mistake: each rank adds the logit at its column 0 for them)."""
    logits = logits - _no_grad(all_reduce(logits.max(dim=-1)[0], "max")).unsqueeze(-1)
    mask = (labels < start) | (labels >= start + logits.shape[-1])
    target = (labels - start).masked_fill(mask, 0)
    predicted = logits[torch.arange(logits.shape[0]), target]
    if mask_predicted:
        predicted = predicted.masked_fill(mask, 0.0)
    predicted = all_reduce(predicted, "sum")
    sum_exp = all_reduce(logits.exp().sum(dim=-1), "sum")
    return (torch.log(sum_exp) - predicted).mean()


def _no_grad(x):
    """x detached when gradients are being recorded (else as it is, so that a forward trace holds
    no detach)."""
    return x.detach() if torch.is_grad_enabled() else x


class LMHeadIndexedLoss(LMHeadLoss):
    """:class:`LMHeadLoss` written as ``-log_softmax(h W^T)[arange(rows), labels].mean()``: the
    targets' log-probabilities picked by advanced indexing, which reads a negative label as
    counting from the end of the row. Megatron's vocabulary-parallel loss gives such a label no
    rank's logit, so the two agree for labels within the vocabulary only."""

    def forward(self, h, labels):
        logp = torch.log_softmax(F.linear(h, self.weight), dim=-1)
        return -logp[torch.arange(h.shape[0]), labels].mean()


class EinsumAttentionCumsum(SelfAttention):
    """:class:`SelfAttention` over a batch [batch, seq, hidden] written with ``torch.einsum``
    (scores ``bhqd,bhkd->bhqk``, context ``bhqk,bhkd->bhqd``), then a projection whose features are
    averaged causally along the sequence (a running mean: ``cumsum`` over the sequence divided by
    the position), then the output projection."""

    def __init__(self, hidden, heads, ffn):
        super().__init__(hidden, heads)
        self.up = Linear(hidden, ffn)
        self.down = Linear(ffn, hidden)
        self.cumsum_dim = 1

    def split_heads(self, x):
        b, s, _ = x.shape
        return x.view(b, s, -1, self.head_dim).permute(0, 2, 1, 3)

    def forward(self, x):
        q = self.split_heads(self.q_proj(x))
        k = self.split_heads(self.k_proj(x))
        v = self.split_heads(self.v_proj(x))
        scores = torch.einsum("bhqd,bhkd->bhqk", q, k) / math.sqrt(self.head_dim)
        probs = torch.softmax(scores, dim=-1)
        context = torch.einsum("bhqk,bhkd->bhqd", probs, v).permute(0, 2, 1, 3)
        h = x + self.o_proj(context.reshape(x.shape[0], x.shape[1], -1))
        u = torch.relu(self.up(h))
        positions = torch.arange(1, u.shape[1] + 1, dtype=u.dtype).view(1, -1, 1)
        if self.cumsum_dim == 1:
            u = u.cumsum(dim=1) / positions
        else:
            u = u.cumsum(dim=-1) / positions  # a mistake under TP: the features are split
        return h + self.down(u)


class ParallelEinsumAttentionCumsum(EinsumAttentionCumsum):
    """Heads and the projection's features split over ranks: q/k/v and ``up`` column-parallel,
    ``o_proj`` and ``down`` row-parallel with an all-reduce. ``cumsum_dim`` -1 runs the running
    sum over the features, which each rank holds only part of."""

    def __init__(self, hidden, heads, ffn, rank, world_size, cumsum_dim=1):
        super().__init__(hidden, heads, ffn)
        _shard(heads, rank, world_size, "heads")
        self.q_proj = ColumnParallelLinear(hidden, hidden, rank, world_size, bias=False)
        self.k_proj = ColumnParallelLinear(hidden, hidden, rank, world_size, bias=False)
        self.v_proj = ColumnParallelLinear(hidden, hidden, rank, world_size, bias=False)
        self.o_proj = RowParallelLinear(hidden, hidden, rank, world_size)
        self.up = ColumnParallelLinear(hidden, ffn, rank, world_size)
        self.down = RowParallelLinear(ffn, hidden, rank, world_size)
        self.cumsum_dim = cumsum_dim


# ---------------------------------------------------------------------------
# Sequence parallelism over a batch, gathered flat and put back in order


class FlatNormMLP(NormMLP):
    """``NormMLP`` over a [batch, seq, hidden] input, its rows flattened to [batch * seq, hidden]."""

    def forward(self, x):
        b, s, h = x.shape
        return super().forward(x.reshape(b * s, h)).reshape(b, s, h)


class FlatSequenceParallelNormMLP(nn.Module):
    """Sequence parallelism over a batch, as DTensor gathers a sequence shard it views flat.

    Each rank holds its slice of the sequence, [batch, seq / n, hidden], normalizes it, and views
    it [batch * seq / n, hidden]; the all-gather stacks the ranks' rows rank by rank, so the rows
    of a batch entry are spread over the ranks' blocks. The gathered rows are put back in the
    [batch, seq] order by ``index_select`` with the order a sort of their places gives (as DTensor
    does for a strided shard). fc1 is column-parallel, fc2 row-parallel with an all-reduce.
    ``unordered`` uses the gathered rows as they come (a mistake: rows of different batch entries
    are mixed).
    """

    def __init__(self, hidden, ffn, rank, world_size, unordered=False):
        super().__init__()
        self.world_size = world_size
        self.unordered = unordered
        self.norm = nn.LayerNorm(hidden)
        self.fc1 = ColumnParallelLinear(hidden, ffn, rank, world_size)
        self.fc2 = RowParallelLinear(ffn, hidden, rank, world_size)

    def forward(self, x):
        b, c, h = x.shape
        n = self.world_size
        rows = dist.all_gather(self.norm(x).reshape(b * c, h), n, GROUP)
        if not self.unordered:
            # gathered row k is rank k // (b * c)'s row (i, j): batch entry i, position r * c + j
            places = torch.cat([torch.arange(c) + i * c * n + r * c for r in range(n) for i in range(b)])
            rows = rows.index_select(0, torch.sort(places).indices)
        return self.fc2(F.gelu(self.fc1(rows))).reshape(b, c * n, h)


# ---------------------------------------------------------------------------
# Gradients by autograd in G_s, written by hand on the ranks (no loss computed)


class RegressionGradsOnly(RegressionGrad):
    """The regression's gradients with respect to W and b by autograd, without the loss: the
    backward is seeded with ``ones_like(loss)``, which reads the loss for its shape alone."""

    def forward(self, x, target):
        _, grad_weight, grad_bias = self.loss_and_grads(self.weight, self.bias, x, target)
        return grad_weight, grad_bias


class DataParallelHandGrads(nn.Module):
    """Rank k holds its rows of the batch and the whole weights, and writes the gradients of the
    global mean-squared error by hand: ``2 / (rows * outputs * n) * e^T x`` and the column sums of
    ``e`` times the same factor, with ``e = x W^T + b - target``, summed over the ranks by
    all-reduces. It never computes the loss. ``local_mean`` divides by its own rows' count only (a
    mistake: the gradients come out n times too large)."""

    def __init__(self, in_features, out_features, world_size, local_mean=False):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(out_features, in_features))
        self.bias = nn.Parameter(torch.empty(out_features))
        self.world_size = world_size
        self.local_mean = local_mean

    def forward(self, x, target):
        e = F.linear(x, self.weight, self.bias) - target
        count = e.numel() * (1 if self.local_mean else self.world_size)
        scale = 2.0 / count
        grad_weight = dist.all_reduce(scale * (e.t() @ x), "sum", GROUP)
        grad_bias = dist.all_reduce(scale * e.sum(0), "sum", GROUP)
        return grad_weight, grad_bias
