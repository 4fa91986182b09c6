#!/usr/bin/env python3
"""Generates the example cases in ``examples/`` from the models in ``example_models.py``.

Each case is a sequential model G_s and its distributed implementation G_d,
traced with ``make_fx`` (fake tensors; G_d one trace per rank, the model code
given that rank's ``rank`` and ``world_size``), plus an input relation and the
verdict the checker must reach::

    examples/<case>/gs.json        G_s (docs/formats.md, Graph files)
    examples/<case>/gd.json        G_d (docs/formats.md, Distributed graph files)
    examples/<case>/ri.json        the input relation (docs/formats.md, Relation files)
    examples/<case>/expected.json  {"verdict", "note"[, "operator", "gd_location"]}
    examples/README.md             the table of cases

Run from anywhere with a torch that has ``make_fx`` (1.13 or later)::

    python3 scripts/make_examples.py [--out DIR] [CASE ...]

The output is deterministic: running it again rewrites the same bytes.
"""

import argparse
import json
import math
import multiprocessing
import os
import re
import shutil
import sys

try:
    import torch
    from torch.fx.experimental.proxy_tensor import make_fx  # noqa: F401
except ImportError as e:
    sys.exit(f"make_examples.py: needs torch with make_fx (1.13 or later), which"
             f" {sys.executable} cannot import ({e}); on Debian: apt-get install python3-torch"
             " and run /usr/bin/python3 scripts/make_examples.py")

import example_models as m  # noqa: E402
import export_fx  # noqa: E402
import fx_collectives  # noqa: E402
import fx_trace  # noqa: E402

SCRIPTS = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(SCRIPTS)
MODELS_FILE = os.path.join(SCRIPTS, "example_models.py")


# ---------------------------------------------------------------------------
# helpers


def trace(module, **inputs):
    """The ATen graph of ``module`` on inputs of the given shapes (fake tensors)."""
    return fx_trace.trace_module(module, inputs, tracing_mode="fake",
                                 source_files=[MODELS_FILE], source_root=ROOT)


def trace_ranks(world_size, make_module, make_inputs):
    """One graph per rank: ``make_module(rank)`` traced on ``make_inputs(rank)``."""
    return [trace(make_module(rank), **make_inputs(rank)) for rank in range(world_size)]


_RANK_JOB = None


def _run_rank_job(rank):
    torch.set_num_threads(1)
    return _RANK_JOB(rank)


def map_ranks(world_size, job):
    """``[job(0), ..., job(world_size - 1)]``, computed by as many forked worker processes as there
    are processors (tracing is single-threaded Python); ``job`` returns something picklable, such
    as a graph's JSON object."""
    global _RANK_JOB
    workers = min(world_size, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1)
    if workers < 2 or "fork" not in multiprocessing.get_all_start_methods():
        return [job(rank) for rank in range(world_size)]
    _RANK_JOB = job
    try:
        with multiprocessing.get_context("fork").Pool(workers) as pool:
            return pool.map(_run_rank_job, range(world_size), chunksize=1)
    finally:
        _RANK_JOB = None


def t(*shape, dtype=torch.float32):
    return torch.empty(*shape, dtype=dtype)


def node_name(gm, target, n=0):
    """The name of the ``n``-th call of ``target`` (e.g. ``aten.addmm.default``) in ``gm``."""
    calls = [x.name for x in gm.graph.nodes
             if x.op == "call_function" and export_fx.target_name(x) == target]
    if len(calls) <= n:
        raise AssertionError(f"the graph has {len(calls)} calls of {target}, not {n + 1}")
    return calls[n]


def tag_outputs(gm, *tags):
    """Names the graph's outputs (``meta['tag']``) so relations and reports can say ``loss``."""
    output = next(x for x in gm.graph.nodes if x.op == "output")
    values = export_fx._flatten_outputs(output.args[0])
    if len(values) != len(tags):
        raise AssertionError(f"{len(values)} outputs for tags {tags}")
    names = {x.name for x in gm.graph.nodes}
    for value, tag in zip(values, tags):
        if tag is not None:
            if tag in names:
                raise AssertionError(f"tag {tag} is also a node name")
            value.meta["tag"] = tag
    return gm


def out_of_place(gm):
    """``gm`` with its in-place ATen calls made out of place where that changes nothing: ``op_(a,
    ...)`` whose ``a`` nothing else uses becomes ``op(a, ...)``, and ``fill_(empty_like(x), v)``
    becomes ``full_like(x, v)``. Autograd's formulas write some gradients so (silu's backward is
    ``1 - sigmoid`` into an ``empty_like`` filled with 1); the checker reads values, not
    mutations. Any other in-place call is an error."""
    for node in list(gm.graph.nodes):
        if node.op != "call_function" or not isinstance(node.target, torch._ops.OpOverload):
            continue
        packet = node.target.overloadpacket.__name__
        if not packet.endswith("_") or packet.startswith("_"):
            continue
        target = node.args[0]
        if len(target.users) != 1:
            raise AssertionError(f"{node.name}: {packet} mutates {target.name}, which other nodes read")
        if packet == "fill_" and export_fx.target_name(target) == "aten.empty_like.default" \
                and not isinstance(node.args[1], torch.fx.Node):
            with gm.graph.inserting_before(node):
                full = gm.graph.call_function(torch.ops.aten.full_like.default,
                                              (target.args[0], node.args[1]), dict(target.kwargs))
            full.meta = dict(node.meta)
            node.replace_all_uses_with(full)
            gm.graph.erase_node(node)
            gm.graph.erase_node(target)
            continue
        functional = getattr(getattr(torch.ops.aten, packet[:-1]), node.target._overloadname)
        node.target = functional
    gm.graph.lint()
    gm.recompile()
    return gm


def shard(name, dim):
    return {"gs": name, "shard": dim}


def replicate(name):
    return {"gs": name, "replicate": True}


def relate(name, expr):
    return {"gs": name, "gd": expr}


class Case:
    """One example: what it is, its graphs, its relation and the verdict to reach."""

    def __init__(self, name, what, gs, gd, relations, verdict, note, operator=None,
                 expect=None, world_size=None, process_groups=None, outputs=None):
        self.name = name
        self.what = what
        self.gs = gs
        self.gd = gd
        self.relations = relations
        self.verdict = verdict
        self.note = note
        self.operator = operator
        self.expect = expect or []
        self.world_size = world_size or len(gd)
        self.process_groups = process_groups or {}
        self.outputs = outputs


# ---------------------------------------------------------------------------
# the cases

TOKENS, HIDDEN, FFN = 4, 16, 32


def fig1_matmul():
    n = 2
    gs = trace(m.MatmulSub(), a=t(4, 8), b=t(8, 6), e=t(4, 6))
    gd = trace_ranks(n, lambda r: m.MatmulSubParallel(r, n),
                     lambda r: dict(a=t(4, 8 // n), b=t(8 // n, 6), e=t(4 // n, 6)))
    return Case(
        "fig1-matmul", "the paper's Figure 1: C = A @ B, F = C - E; A column-sharded, B and E"
        " row-sharded; C all-reduced, its rows reduce-scattered into D_k, F_k = D_k - E_k",
        gs, gd, [shard("a", 1), shard("b", 0), shard("e", 0)], "refines",
        "F = concat(F_0, F_1, dim=0); C = sum(C_0, C_1) = concat(D_0, D_1, dim=0)")


def mlp(name, world_size, style):
    gs = trace(m.MLP(HIDDEN, FFN, style), x=t(TOKENS, HIDDEN))
    gd = trace_ranks(world_size, lambda r: m.ParallelMLP(HIDDEN, FFN, r, world_size, style),
                     lambda r: dict(x=t(TOKENS, HIDDEN)))
    form = "F.linear" if style == "linear" else "explicit x @ W.t() + b"
    return Case(
        name, f"Megatron MLP y = gelu(x W1^T + b1) W2^T + b2 over TP={world_size} ({form}):"
        " W1/b1 column-parallel, W2 row-parallel, all-reduce, then b2",
        gs, gd, mlp_relations(), "refines",
        "y equals the all-reduced output on any rank; relations name weights by their tags")


def mlp_relations():
    return [replicate("x"), shard("fc1.weight", 0), shard("fc1.bias", 0),
            shard("fc2.weight", 1), replicate("fc2.bias")]


def attention_heads(n=2):
    heads = 4
    gs = trace(m.SelfAttention(HIDDEN, heads), x=t(TOKENS, HIDDEN))
    gd = trace_ranks(n, lambda r: m.ParallelSelfAttention(HIDDEN, heads, r, n),
                     lambda r: dict(x=t(TOKENS, HIDDEN)))
    relations = [replicate("x")]
    relations += [shard(f"{p}_proj_weight", 0) for p in "qkv"]
    relations += [shard("o_proj_weight", 1), replicate("o_proj_bias")]
    return Case(
        f"attention-heads-tp{n}", f"multi-head self-attention, 4 heads split {heads // n} per rank: q/k/v"
        " column-parallel, softmax(QK^T/sqrt(d))V per head, output projection row-parallel +"
        " all-reduce", gs, gd, relations, "refines",
        "the heads' contexts concatenate along the hidden dim; the output is the all-reduce")


def sp_layernorm(n=2):
    seq = 8
    gs = trace(m.NormMLP(HIDDEN, FFN), x=t(seq, HIDDEN))
    gd = trace_ranks(n, lambda r: m.SequenceParallelNormMLP(HIDDEN, FFN, r, n),
                     lambda r: dict(x=t(seq // n, HIDDEN)))
    relations = [shard("x", 0), replicate("norm_weight"), replicate("norm_bias"),
                 shard("fc1_weight", 0), shard("fc1_bias", 0), shard("fc2_weight", 1),
                 replicate("fc2_bias")]
    return Case(
        f"sp-layernorm-tp{n}", "sequence parallelism: input sharded along the sequence, layer norm"
        " per shard, all-gather (dim 0), column-parallel fc1, row-parallel fc2, reduce-scatter"
        " back to sequence shards, then the bias", gs, gd, relations, "refines",
        "y = concat(y_0, ..., dim=0)")


def sp_flat_rows(name, n, unordered=False):
    batch, seq = 2, 8
    gs = trace(m.FlatNormMLP(HIDDEN, FFN), x=t(batch, seq, HIDDEN))
    gd = trace_ranks(n, lambda r: m.FlatSequenceParallelNormMLP(HIDDEN, FFN, r, n, unordered),
                     lambda r: dict(x=t(batch, seq // n, HIDDEN)))
    relations = [shard("x", 1), replicate("norm_weight"), replicate("norm_bias"),
                 shard("fc1_weight", 0), shard("fc1_bias", 0), shard("fc2_weight", 1),
                 replicate("fc2_bias")]
    if unordered:
        return Case(
            name, f"sp-flat-rows-tp{n} using the gathered rows in the order they come: each rank's"
            " rows of both batch entries stacked rank by rank", gs, gd, relations, "not-refined",
            "fc1's input mixes the batch entries' rows, so no G_d value holds the rows in G_s's"
            " order", operator=node_name(gs, "aten.addmm.default"))
    return Case(
        name, "sequence parallelism over a batch of 2: each rank normalizes its slice of the"
        f" sequence, views it flat, and the all-gather stacks the {n} ranks' rows rank by rank;"
        " index_select with the order a sort of the rows' places gives (DTensor's reorder of a"
        " strided shard) puts them back in [batch, seq] order; column-parallel fc1, row-parallel fc2",
        gs, gd, relations, "refines",
        "the sort and the selection are read as slices of the gathered rows (their indices are"
        " computed from constants); y is every rank's output")


def sp_narrow_tp2():
    n, seq = 2, 8
    gs = trace(m.Block(HIDDEN), x=t(seq, HIDDEN))
    gd = trace_ranks(n, lambda r: m.SequenceSliceBlock(HIDDEN, r, n),
                     lambda r: dict(x=t(seq, HIDDEN)))
    return Case(
        "sp-narrow-tp2", "each rank narrows its chunk of a replicated sequence (rows 4k..4k+3)"
        " and applies gelu(x W^T + b)", gs, gd, narrow_relations(), "refines",
        "y = concat(y_0, y_1, dim=0); the correct twin of bug-wrong-slice-offset")


def narrow_relations():
    return [replicate("x"), replicate("proj_weight"), replicate("proj_bias")]


def vocab_embedding(n=2):
    vocab, dim = 16, 8
    gs = trace(m.Embedding(vocab, dim), ids=t(2, 4, dtype=torch.int64))
    gd = trace_ranks(n, lambda r: m.VocabParallelEmbedding(vocab, dim, r, n),
                     lambda r: dict(ids=t(2, 4, dtype=torch.int64)))
    return Case(
        f"vocab-embedding-tp{n}", "vocabulary-parallel embedding: rank k holds table rows"
        f" [{vocab // n}k, {vocab // n}k+{vocab // n}); ids shifted by the offset, out-of-range ids masked (lt/ge, bitwise_or) and"
        " set to 0, embedded, masked rows zeroed (masked_fill), all-reduce sum", gs, gd,
        [replicate("ids"), shard("weight", 0)], "refines",
        "the embedding equals the all-reduced sum of the masked partial embeddings")


def gpt(n, layers, seq=24, vocab=48, hidden=24, heads=12, ffn=48):
    ids = dict(ids=t(seq, dtype=torch.int64), labels=t(seq, dtype=torch.int64))
    gs = tag_outputs(trace(m.GPT(vocab, hidden, heads, ffn, layers), **ids), "loss")
    gd = [tag_outputs(g, "loss") for g in
          trace_ranks(n, lambda r: m.GPT(vocab, hidden, heads, ffn, layers, r, n), lambda r: ids)]
    relations = [replicate("ids"), replicate("labels"), shard("embed.weight", 0), shard("lm_head", 0),
                 replicate("norm.weight"), replicate("norm.bias")]
    for i in range(layers):
        p = f"layers.{i}."
        relations += [replicate(p + w) for w in ("ln1.weight", "ln1.bias", "ln2.weight", "ln2.bias",
                                                 "attn.o_proj.bias", "mlp.fc2.bias")]
        relations += [shard(p + f"attn.{x}_proj.weight", 0) for x in "qkv"]
        relations += [shard(p + "attn.o_proj.weight", 1), shard(p + "mlp.fc1.weight", 0),
                      shard(p + "mlp.fc1.bias", 0), shard(p + "mlp.fc2.weight", 1)]
    return Case(
        f"gpt-tp{n}-l{layers}", f"a Megatron-style GPT, {layers} layer(s), TP={n} with sequence"
        " parallelism: vocabulary-parallel embedding reduce-scattered to sequence shards, per layer"
        " layer norms on shards, all-gather, attention and MLP (column/row parallel,"
        " reduce-scatter), residuals; final norm, all-gather, vocabulary-parallel logits and"
        " Megatron's cross-entropy (max and sums all-reduced, the target logit picked by arange)",
        gs, gd, relations, "refines", "the loss equals the loss on any rank")


def llama(n, layers, sequence_parallel=False, seq=16, vocab=64, hidden=32, heads=16, kv_heads=8,
          head_dim=4, ffn=64, max_seq=32, bug_layer=None, backward=False):
    """The Llama-style decoder of ``example_models.Llama`` at TP=n: ``llama-tpN-lL``, or with
    sequence parallelism ``llama-sp-tpN-lL``. The default sizes let 2, 4, 8 and 16 ranks divide
    the query and key/value heads, the vocabulary, the MLP and the sequence. With ``backward``,
    its training step (``example_models.LlamaTrainingStep``, the name gains ``-bwd``): the loss
    and every parameter's gradient, tagged ``NAME.grad``."""
    inputs = dict(ids=t(seq, dtype=torch.int64), labels=t(seq, dtype=torch.int64), cos=t(max_seq, head_dim),
                  sin=t(max_seq, head_dim))

    kind = m.LlamaTrainingStep if backward else m.Llama

    def model(rank=0, world_size=1):
        return kind(vocab, hidden, heads, kv_heads, head_dim, ffn, layers, rank, world_size, sequence_parallel,
                    bug_layer if world_size > 1 else None)

    outputs = ["loss"]
    if backward:
        outputs += [f"{name}.grad" for name, _ in model().named_parameters()]
    gs = tag_outputs(out_of_place(trace(model(), **inputs)), *outputs)
    # the ranks as graph JSON objects, traced in parallel: a 126-layer rank takes a minute
    gd = map_ranks(n, lambda r: export_fx.graph_to_json(tag_outputs(out_of_place(trace(model(r, n), **inputs)),
                                                                    *outputs)))
    relations = [replicate("ids"), replicate("labels"), replicate("cos"), replicate("sin"),
                 shard("embed.weight", 0), shard("lm_head", 0), replicate("norm.weight")]
    for i in range(layers):
        p = f"layers.{i}."
        relations += [replicate(p + "input_layernorm.weight"), replicate(p + "post_attention_layernorm.weight")]
        relations.append(shard(p + "self_attn.q_proj.weight", 0))
        for x in "kv":
            relations += kv_relation(p + f"self_attn.{x}_proj.weight", n, kv_heads)
        relations += [shard(p + "self_attn.o_proj.weight", 1), shard(p + "mlp.gate_proj.weight", 0),
                      shard(p + "mlp.up_proj.weight", 0), shard(p + "mlp.down_proj.weight", 1)]
    tag = "" if (heads, kv_heads) == (16, 8) else f"-h{heads}-kv{kv_heads}"
    tag += "" if bug_layer is None else f"-bug{bug_layer}"
    tag += "-bwd" if backward else ""
    expect, groups = [], {}
    if backward:
        expect, groups = llama_gradient_expectations(n, layers, sequence_parallel, kv_heads)
    if sequence_parallel:
        name, how = f"llama-sp-tp{n}-l{layers}{tag}", (
            " with sequence parallelism: the embedding reduce-scattered to sequence shards, RMSNorms on"
            " the shards, an all-gather before and a reduce-scatter after each parallel block")
    else:
        name, how = f"llama-tp{n}-l{layers}{tag}", (
            ": activations replicated, the embedding and each row-parallel result all-reduced")
    return Case(
        name, f"a Llama-style decoder, {layers} layer(s), TP={n}{how}; per layer RMSNorms, rotary"
        f" embedding from one cos/sin table [{max_seq}, {head_dim}] that every layer slices to the"
        f" sequence, grouped-query attention ({heads} query, {kv_heads} key/value heads; q/k/v"
        " column-parallel, o_proj row-parallel), SwiGLU MLP (gate/up column-parallel, down"
        " row-parallel); vocabulary-parallel embedding, logits and "
        + ("the mean of their squares as the loss" if backward else "cross-entropy")
        + ("" if kv_heads >= n else f"; each key/value head replicated on {n // kv_heads} ranks")
        + ("" if not backward else "; forward and backward of a training step: the loss and the gradient of"
           " every weight, with Megatron's backward collectives"
           + ("; the RMSNorm weights' gradients all-reduced" if sequence_parallel else "")
           + ("; each replicated key/value projection's gradient all-reduced over its replicas"
              if kv_heads < n else ""))
        + ("" if bug_layer is None else f"; the bug: layer {bug_layer}'s MLP output is not reduced"),
        gs, gd, relations, "refines" if bug_layer is None else "not-refined",
        ("the loss equals the loss on any rank" if bug_layer is None
         else f"layer {bug_layer}'s MLP output is a rank's partial sum")
        + ("; sharded weights' gradients concatenate the ranks' shards, replicated ones equal every"
           " rank's, as expected" if backward else ""), expect=expect, process_groups=groups)


def llama_gradient_expectations(n, layers, sequence_parallel, kv_heads):
    """What a training step's gradients must be on the ranks, beyond being computable: a
    replicated weight's gradient (the RMSNorms') is every rank's, and with fewer key/value heads
    than ranks, a key/value projection's gradient concatenates one rank of each replica group, any
    one (so each replica was all-reduced over its group). Also the replica groups ``kv<J>``."""
    expect, groups = [], {}
    norms = ["norm.weight"] + [f"layers.{i}.{w}" for i in range(layers) for w in m.NORM_WEIGHTS]
    for name in norms:
        expect += [relate(name + ".grad", f"r{k}.{name}.grad") for k in range(n)]
    if kv_heads < n:
        group = n // kv_heads
        groups = {f"kv{j}": list(range(j * group, (j + 1) * group)) for j in range(kv_heads)}
        for i in range(layers):
            for x in "kv":
                name = f"layers.{i}.self_attn.{x}_proj.weight"
                expect += [relate(name + ".grad", e["gd"].replace(".weight", ".weight.grad"))
                           for e in kv_relation(name, n, kv_heads)]
    return expect, groups


def kv_relation(name, n, kv_heads):
    """A key/value projection's weight: sharded by heads over the ranks, or with fewer heads than
    ranks the concatenation of one rank of each replica group (every such choice is an entry)."""
    if kv_heads >= n:
        return [shard(name, 0)]
    group = n // kv_heads
    return [relate(name, "concat(" + ", ".join(f"r{o + group * j}.{name}" for j in range(kv_heads))
                      + ", dim=0)") for o in range(group)]


def sp_layernorm_grad(name, reduce_grads):
    n, seq = 2, 8
    gs = tag_outputs(trace(m.LayerNormGrad(HIDDEN), x=t(seq, HIDDEN), dy=t(seq, HIDDEN)),
                     "grad_x", "grad_weight", "grad_bias")
    gd = [tag_outputs(g, "grad_x", "grad_weight", "grad_bias") for g in
          trace_ranks(n, lambda r: m.SequenceParallelLayerNormGrad(HIDDEN, r, n, reduce_grads),
                      lambda r: dict(x=t(seq // n, HIDDEN), dy=t(seq // n, HIDDEN)))]
    relations = [shard("x", 0), shard("dy", 0), replicate("norm.weight"), replicate("norm.bias")]
    expect = [relate(g, f"r{k}.{g}") for g in ("grad_weight", "grad_bias") for k in range(n)]
    if reduce_grads:
        return Case(
            name, "the backward of a sequence-parallel layer norm (native_layer_norm_backward): x and"
            " the upstream gradient sharded along the sequence; the weight and bias gradients"
            " all-reduced", gs, gd, relations, "refines",
            "grad_x = concat of the ranks' grad_x; the weight and bias gradients equal each rank's,"
            " as expected", expect=expect)
    return Case(
        name, "paper bug 9: sp-layernorm-grad-tp2 without the all-reduce of the weight and bias"
        " gradients", gs, gd, relations, "expectation-violated",
        "the gradients are sum(r0.grad_weight, r1.grad_weight), not each rank's as expected",
        expect=expect)


def vocab_embedding_grad(name, n, mask_output=True):
    vocab, dim = 16, 8
    gs = tag_outputs(trace(m.EmbeddingGrad(vocab, dim), ids=t(2, 4, dtype=torch.int64), dy=t(2, 4, dim)),
                     "grad_weight")
    gd = [tag_outputs(g, "grad_weight") for g in
          trace_ranks(n, lambda r: m.VocabParallelEmbeddingGrad(vocab, dim, r, n, mask_output),
                      lambda r: dict(ids=t(2, 4, dtype=torch.int64), dy=t(2, 4, dim)))]
    relations = [replicate("ids"), replicate("dy"), shard("weight", 0)]
    if mask_output:
        return Case(
            name, f"the table gradient of a vocabulary-parallel embedding over TP={n}"
            " (embedding_dense_backward on each shard, out-of-range rows zeroed first)", gs, gd,
            relations, "refines", "the table gradient is the concat of the shards' gradients")
    return Case(
        name, "vocab-embedding-grad-tp2 without zeroing the looked-up rows of out-of-range ids:"
        " their gradients land in each shard's row 0", gs, gd, relations, "not-refined",
        "row 0 of each shard also sums the gradients of the ids other shards hold",
        operator=node_name(gs, "aten.embedding_dense_backward.default"))


def vocab_parallel_cross_entropy(name, n, mask_grad=True, stated=True):
    """``stated``: the labels' range is stated in the relation (``in_range``), as the backward's
    proof needs (every target a class); False does not."""
    batch, dim_in, classes = 8, HIDDEN, 16
    outputs = ("loss", "grad_weight", "grad_bias")
    inputs = lambda: dict(x=t(batch, dim_in), labels=t(batch, dtype=torch.int64))
    gs = tag_outputs(trace(m.ClassifierGrad(dim_in, classes), **inputs()), *outputs)
    gd = [tag_outputs(g, *outputs) for g in
          trace_ranks(n, lambda r: m.VocabParallelClassifierGrad(dim_in, classes, r, n, mask_grad),
                      lambda r: inputs())]
    relations = [replicate("x"), replicate("labels"), shard("weight", 0), shard("bias", 0)]
    if stated:
        relations[1]["in_range"] = [0, classes]
    operator = node_name(gs, "aten._log_softmax.default")
    if mask_grad and stated:
        return Case(
            name, "F.cross_entropy of x W^T + b and its weight and bias gradients, the classes"
            f" split over TP={n} as Megatron's vocabulary-parallel cross-entropy computes it, forward"
            " and backward by hand, the labels' range stated (\"in_range\": [0, 16])", gs, gd,
            relations, "refines",
            "the loss from the ranks' max-shifted picks and sums; the log-softmax's gradient is the"
            " softmax minus the one-hot of the labels over the rows (every label a class), each"
            " rank's share its softmax minus its masked one-hot")
    if mask_grad:
        return Case(
            name, f"vocab-parallel-cross-entropy-tp{n} without the labels' range", gs, gd,
            relations, "unproved",
            "the loss is proved; the log-softmax's gradient is the softmax minus the one-hot of the"
            " labels only where every label is a class, which the relation does not state: both"
            " gradients equal clean expressions of G_d's outputs on numbers, and the report names"
            " the range to state",
            operator=operator)
    return Case(
        name, "vocab-parallel-cross-entropy-tp2 without zeroing the one-hot of targets in other"
        " ranks' ranges in the backward", gs, gd, relations, "not-refined",
        "each rank subtracts 1 at its column 0 for every target another rank holds: the gradients"
        " differ, so the chain from the log-softmax is not a gap but a bug", operator=operator)


def grad_accum(name, scale_loss):
    batch, dim_in, dim_out, micro = 8, HIDDEN, 4, 2
    gs = tag_outputs(trace(m.RegressionStep(dim_in, dim_out), x=t(batch, dim_in),
                           target=t(batch, dim_out)), "loss", "grad_weight")
    inputs = {}
    for i in range(micro):
        inputs[f"x_{i}"] = t(batch // micro, dim_in)
        inputs[f"target_{i}"] = t(batch // micro, dim_out)
    gd = [tag_outputs(trace(m.GradAccumulationStep(dim_in, dim_out, micro, scale_loss),
                            **inputs), "loss", "grad_weight")]
    relations = [relate("x", "concat(r0.x_0, r0.x_1, dim=0)"),
                 relate("target", "concat(r0.target_0, r0.target_1, dim=0)"),
                 relate("weight", "r0.weight")]
    if scale_loss:
        return Case(
            name, "gradient accumulation on one rank: the mean-squared-error loss and its"
            " weight gradient over a batch of 8 vs. two micro-batches of 4, each loss (and"
            " gradient) scaled by 1/2 and summed", gs, gd, relations, "refines",
            "loss and grad_weight equal G_d's accumulated loss and gradient")
    return Case(
        name, "paper bug 6: gradient accumulation whose micro-batch losses and gradients are"
        " added without the 1/2", gs, gd, relations, "not-refined",
        "the batch mean is half the sum of the micro-batch means: no clean expression",
        operator=node_name(gs, "aten.mean.default"))


def hand_grads(name, n, local_mean=False):
    batch, dim_in, dim_out = 8, 5, 4
    gs = trace(m.RegressionGradsOnly(dim_in, dim_out), x=t(batch, dim_in), target=t(batch, dim_out))
    gd = trace_ranks(n, lambda r: m.DataParallelHandGrads(dim_in, dim_out, n, local_mean),
                     lambda r: dict(x=t(batch // n, dim_in), target=t(batch // n, dim_out)))
    relations = [shard("x", 0), shard("target", 0), replicate("weight"), replicate("bias")]
    if local_mean:
        return Case(
            name, f"hand-grads-dp{n} with each rank dividing by its own rows' count: the"
            " all-reduced gradients come out n times too large", gs, gd, relations, "not-refined",
            "the weight's gradient is n times the mean's: G_d returns no multiple of it a clean"
            " expression could take back", operator=node_name(gs, "aten.t.default", 3))
    return Case(
        name, f"the gradients of a mean-squared-error regression over {n} data-parallel ranks: G_s"
        " takes them by autograd (its backward seeded with ones_like of the loss), each rank writes"
        " them by hand for its rows, scaled for the global mean, and all-reduces them; no rank"
        " computes the loss", gs, gd, relations, "refines",
        "the gradients are every rank's: the seed reads the loss for its shape alone")


def load_balanced_context_parallel(name, n, reorder=True):
    seq, hidden, head_dim = 4 * n, 4, 4
    c = seq // (2 * n)
    gs = trace(m.CausalAttentionHead(hidden, head_dim), x=t(seq, hidden))
    gd = trace_ranks(n, lambda r: m.LoadBalancedContextParallelAttention(hidden, head_dim, r, n, reorder),
                     lambda r: dict(x=t(2 * c, hidden)))
    chunks = [f"slice(r{r}.x, 0, 0, {c})" for r in range(n)]
    chunks += [f"slice(r{r}.x, 0, {c}, {2 * c})" for r in reversed(range(n))]
    relations = [relate("x", "concat(" + ", ".join(chunks) + ", dim=0)")]
    relations += [replicate(w) for w in ("wq", "wk", "wv", "wo")]
    if not reorder:
        return Case(
            name, f"load-balanced-context-parallel-cp{n} attending over the gathered keys and values"
            " in the order they arrive, with the causal mask of the sequence's order", gs, gd,
            relations, "not-refined", "the scores are the right ones with their key blocks"
            " permuted, so the causal mask hides the wrong keys",
            operator=node_name(gs, "aten.masked_fill.Scalar"))
    return Case(
        name, f"a causal attention head over a sequence cut into {2 * n} chunks, rank r holding"
        f" chunks r and {2 * n - 1} - r (load-balanced context parallelism): the ranks all-gather keys"
        " and values, put them in sequence order and mask at their queries' true positions", gs,
        gd, relations, "refines",
        "each rank's output rows are the sequential output's rows of its two chunks")


def halo_time_conv(name, n, halo=True):
    batch, channels, hidden, length = 2, 3, 4, 4 * n
    gs = trace(m.TimeConv(channels, hidden), x=t(batch, channels, length))
    gd = trace_ranks(n, lambda r: m.HaloTimeConv(channels, hidden, r, n, halo),
                     lambda r: dict(x=t(batch, channels, length // n)))
    relations = [shard("x", 2), replicate("w1"), replicate("b1"), replicate("w2")]
    if not halo:
        return Case(
            name, f"halo-time-conv-sp{n} with each rank zero-padding its own part instead of taking"
            " its neighbours' edge samples", gs, gd, relations, "not-refined",
            "the samples at the parts' edges are convolved with zeros, not their neighbours",
            operator=node_name(gs, "aten.convolution.default"))
    return Case(
        name, f"two kernel-3 convolutions over a time axis split over {n} ranks: before each, the"
        " ranks all-gather their first and last samples, and each convolves its part, unpadded,"
        " between its neighbours' edge samples (zeros at the ends)", gs, gd, relations, "refines",
        "each part's convolution with its halo is its block of the whole's")


def loss_scaled_accumulation(name, n, unscale=True):
    batch, dim_in, hidden, dim_out, micro = 8 * n, 4, 8, 3, 2
    gs = trace(m.TanhMlpSgdStep(dim_in, hidden, dim_out), x=t(batch, dim_in), target=t(batch, dim_out))
    gd = trace_ranks(n, lambda r: m.LossScaledAccumulationStep(dim_in, hidden, dim_out, micro, n,
                                                               unscale=unscale),
                     lambda r: dict(x=t(batch // n, dim_in), target=t(batch // n, dim_out)))
    relations = [shard("x", 0), shard("target", 0), replicate("w1"), replicate("w2")]
    if not unscale:
        return Case(
            name, f"loss-scaled-grad-accum-dp{n} never dividing the gradients by the loss scale"
            " (1024): the update comes out 1024 times too large", gs, gd, relations, "not-refined",
            "the step's update is 1024 times G_s's: no clean expression",
            operator=node_name(gs, "aten.mul.Tensor", 3))
    return Case(
        name, f"an SGD step of a two-layer tanh MLP over {n} data-parallel ranks with gradient"
        f" accumulation over {micro} micro-batches and a static loss scale of 1024: G_s and each"
        " micro-batch take the gradients by autograd, the ranks all-reduce their sums and divide by"
        f" 1024 * {micro} * {n}", gs, gd, relations, "refines",
        "the new weights are every rank's: each rank's gradient is a constant multiple of its rows'"
        " share, the constant computed from the loss scale and the micro-batch's count")


def bug_mlp(name, what, note, **knobs):
    n = 2
    gs = trace(m.MLP(HIDDEN, FFN), x=t(TOKENS, HIDDEN))
    gd = trace_ranks(n, lambda r: m.ParallelMLP(HIDDEN, FFN, r, n, **knobs),
                     lambda r: dict(x=t(TOKENS, HIDDEN)))
    return Case(name, what, gs, gd, mlp_relations(), "not-refined", note,
                operator=node_name(gs, "aten.addmm.default", 1))


def bug_wrong_slice_offset():
    n, seq = 2, 8
    gs = trace(m.Block(HIDDEN), x=t(seq, HIDDEN))
    gd = trace_ranks(n, lambda r: m.SequenceSliceBlock(HIDDEN, r, n, offset_bug=True),
                     lambda r: dict(x=t(seq, HIDDEN)))
    return Case(
        "bug-wrong-slice-offset", "sp-narrow-tp2 with rank 1 narrowing from row 3 instead of 4"
        " (start = rank * (chunk - 1)): row 3 computed twice, row 7 never", gs, gd,
        narrow_relations(), "not-refined",
        "the projection's last row is computed on no rank",
        operator=node_name(gs, "aten.addmm.default"))


def bug_expert_sharded():
    n, seq = 2, 8
    gs = trace(m.Expert(HIDDEN, FFN), x=t(seq, HIDDEN))
    gd = trace_ranks(n, lambda r: m.ShardedExpert(HIDDEN, FFN, r, n),
                     lambda r: dict(x=t(seq // n, HIDDEN)))
    return Case(
        "bug-expert-sharded", "paper bug 4: sequence-parallel input (sharded on the sequence)"
        " with expert weights sharded where they must be replicated: rank k computes"
        " gelu(X_k A_k) B_k, outputs concatenated", gs, gd,
        [shard("x", 0), shard("w1", 1), shard("w2", 0)], "not-refined",
        "X @ A needs the off-diagonal blocks X_1 A_2 and X_2 A_1, which no rank computes",
        operator=node_name(gs, "aten.mm.default"))


def bug_loss_not_scaled():
    n, vocab = 2, 16
    gs = tag_outputs(trace(m.LogitLoss(HIDDEN, vocab), h=t(TOKENS, HIDDEN)), "loss")
    gd = [tag_outputs(g, "loss", "aux_loss") for g in
          trace_ranks(n, lambda r: m.VocabParallelLogitLoss(HIDDEN, vocab, r, n, scale_aux=False),
                      lambda r: dict(h=t(TOKENS, HIDDEN)))]
    return Case(
        "bug-loss-not-scaled", "paper bug 2: vocabulary-parallel loss; the auxiliary loss each"
        " TP rank back-propagates is summed over the ranks but not divided by the TP size", gs,
        gd, [replicate("h"), shard("weight", 0)], "expectation-violated",
        "loss maps to r0.loss, but the expected r0.aux_loss is twice the loss",
        expect=[relate("loss", "r0.aux_loss")])


# ---------------------------------------------------------------------------
# more kinds of parallelism, each with a bug variant


def row_parallel_3d(name, n, bias_before_reduce=False):
    batch, seq, hidden, out = 2, 3, 12, 10
    gs = trace(m.Projection3d(hidden, out), x=t(batch, seq, hidden))
    gd = trace_ranks(n, lambda r: m.RowParallelProjection3d(hidden, out, r, n, bias_before_reduce),
                     lambda r: dict(x=t(batch, seq, hidden // n)))
    relations = [shard("x", 2), shard("proj.weight", 1), replicate("proj.bias")]
    if not bias_before_reduce:
        return Case(
            name, f"a row-parallel projection of a [batch, seq, hidden] input over TP={n}: the"
            " rank's features flattened to rows, multiplied, viewed back to 3-d, all-reduced, and the"
            " bias added to the 3-d sum (G_s adds it to the 2-d product, then views)", gs, gd,
            relations, "refines", "y equals the biased all-reduce on any rank")
    return Case(
        name, "row-parallel-3d at TP=3 with the bias added on every rank before the all-reduce", gs, gd, relations,
        "not-refined", "the all-reduce sums the bias once per rank",
        operator=node_name(gs, "aten.addmm.default"))


def replicated_average(name, n, divisor=None):
    tokens, hidden, out = 5, 6, 4
    gs = trace(m.GatedScore(hidden, out), x=t(tokens, hidden))
    gd = trace_ranks(n, lambda r: m.ReplicatedGatedScore(hidden, out, r, n, divisor),
                     lambda r: dict(x=t(tokens, hidden)))
    relations = [replicate("x"), replicate("w"), replicate("gate")]
    if divisor is None:
        return Case(
            name, f"every one of {n} ranks computes tanh(x w) * gate from replicated inputs, divides"
            " it by the group size and sums it over the group", gs, gd, relations, "refines",
            f"the sum of {n} equal terms, each divided by {n}, is the term")
    return Case(
        name, f"replicated-average at {n} ranks dividing by {divisor} instead of the group size", gs, gd, relations,
        "not-refined", f"the all-reduce gives {n}/{divisor} of the score",
        operator=node_name(gs, "aten.mul.Tensor"))


def micro_batch_mean(name, micro, divide=True):
    batch, dim_in, dim_out = 12, 5, 3
    gs = tag_outputs(trace(m.PerSampleLoss(dim_in, dim_out), x=t(batch, dim_in), target=t(batch, dim_out)),
                     "loss", "batch_mean")
    inputs = {}
    for i in range(micro):
        inputs[f"x_{i}"] = t(batch // micro, dim_in)
        inputs[f"target_{i}"] = t(batch // micro, dim_out)
    gd = [tag_outputs(trace(m.MicroBatchPerSampleLoss(dim_in, dim_out, micro, divide), **inputs),
                      "loss", "batch_mean")]
    parts = ", ".join(f"r0.x_{i}" for i in range(micro))
    targets = ", ".join(f"r0.target_{i}" for i in range(micro))
    relations = [relate("x", f"concat({parts}, dim=0)"), relate("target", f"concat({targets}, dim=0)"),
                 relate("weight", "r0.weight")]
    if divide:
        return Case(
            name, f"the mean over a batch of {batch} of per-sample losses, and the batch mean of the"
            f" predictions, from {micro} micro-batches of {batch // micro}: each micro-batch's means"
            f" divided by {micro} and summed", gs, gd, relations, "refines",
            "the mean over a concat of equal parts is the sum of the parts' means over their number")
    return Case(
        name, f"micro-batch-mean with {micro} micro-batches whose losses are not divided by {micro}", gs, gd, relations,
        "not-refined", f"the summed losses are {micro} times the mean",
        operator=node_name(gs, "aten.mean.default"))


def transposed_shards(name, n, gather_rows=False):
    tokens, hidden, out = 3, 8, 12
    gs = trace(m.TransposedProduct(hidden, out), x=t(tokens, hidden))
    gd = trace_ranks(n, lambda r: m.TransposedColumnParallel(hidden, out, r, n, gather_rows),
                     lambda r: dict(x=t(tokens, hidden)))
    stored = ", ".join(f"r{k}.weight" for k in range(n))
    relations = [replicate("x"), relate("weight", f"transpose(concat({stored}, dim=1), 0, 1)")]
    if not gather_rows:
        return Case(
            name, f"column-parallel weights stored transposed over TP={n}: rank k holds W_k^T and"
            " computes (W_k^T)^T X^T = Y_k^T; the blocks are all-gathered along dim 0 and transposed",
            gs, gd, relations, "refines", "y is the transpose of the gathered Y^T")
    return Case(
        name, "transposed-shards computing X W_k^T, gathering along dim 0 and viewing the"
        " [n * tokens, out/n] result as [tokens, out]: the blocks interleave", gs, gd, relations,
        "not-refined", "the view of the row-gathered blocks is no concat along the features",
        operator=node_name(gs, "aten.mm.default"))


def padded_gather(name, seq_sizes, trim_end_only=False):
    n, hidden, out = len(seq_sizes), 6, 9
    seq = sum(seq_sizes)
    gs = trace(m.GeluProjection(hidden, out), x=t(seq, hidden))
    gd = trace_ranks(n, lambda r: m.PaddedGatherColumnParallel(hidden, out, r, n, seq_sizes, trim_end_only),
                     lambda r: dict(x=t(seq_sizes[r], hidden)))
    relations = [shard("x", 0), shard("proj.weight", 0), shard("proj.bias", 0)]
    sizes = "/".join(map(str, seq_sizes))
    if not trim_end_only:
        return Case(
            name, f"a sequence of {seq} split unevenly ({sizes} rows) over {n} ranks: each shard"
            " padded to the longest (F.pad), all-gathered, its padding sliced away, then a"
            " column-parallel gelu(x W^T + b)", gs, gd, relations, "refines",
            "y = concat of the ranks' outputs along the features")
    return Case(
        name, "padded-gather trimming only the end of the gathered rows, which keeps the padding of"
        " the ranks before the last", gs, gd, relations, "not-refined",
        "the rows after the first padding are shifted",
        operator=node_name(gs, "aten.addmm.default"))


def rotary_sequence_shards(name, n, offset_bug=False):
    seq, batch, heads, dim, table = 8, 2, 3, 4, 16
    gs = trace(m.Rotary(), x=t(seq, batch, heads, dim), cos_table=t(table, dim), sin_table=t(table, dim))
    gd = trace_ranks(n, lambda r: m.SequenceParallelRotary(r, n, offset_bug),
                     lambda r: dict(x=t(seq // n, batch, heads, dim), cos_table=t(table, dim),
                                    sin_table=t(table, dim)))
    relations = [shard("x", 0), replicate("cos_table"), replicate("sin_table")]
    if not offset_bug:
        return Case(
            name, f"rotary embedding of a [seq, batch, heads, head_dim] input sharded along the"
            f" sequence over {n} ranks: each rank slices the replicated cos/sin tables at its"
            " sequence offset, views them [seq/n, 1, 1, head_dim] and broadcasts them", gs, gd,
            relations, "refines", "y = concat of the ranks' outputs along the sequence")
    return Case(
        name, "rotary-sequence-shards slicing the tables from position 0 on every rank", gs, gd, relations,
        "not-refined", "ranks past the first rotate by the wrong positions",
        operator=node_name(gs, "aten.mul.Tensor"))


def swiglu(name, n, reduce_before_down=False):
    batch, seq, hidden, ffn = 2, 3, 8, 12
    gs = trace(m.SwiGLU(hidden, ffn), x=t(batch, seq, hidden))
    gd = trace_ranks(n, lambda r: m.ParallelSwiGLU(hidden, ffn, r, n, reduce_before_down),
                     lambda r: dict(x=t(batch, seq, hidden)))
    relations = [replicate("x"), shard("gate.weight", 0), shard("up.weight", 0), shard("down.weight", 1)]
    if not reduce_before_down:
        return Case(
            name, f"a SwiGLU MLP down(silu(gate(x)) * up(x)) over TP={n} on a [batch, seq, hidden]"
            " input: gate and up column-parallel, down row-parallel, all-reduce", gs, gd, relations,
            "refines", "y equals the all-reduce on any rank")
    return Case(
        name, f"swiglu at TP={n} all-reducing the gated activations before the down projection"
        " instead of after it", gs, gd, relations, "not-refined",
        "the all-reduce sums different columns of the ranks' activations",
        operator=node_name(gs, "aten.mm.default", 2))


def fused_rows(weight, n, widths):
    """The relation of a fused weight whose ranks each hold their rows of every part, part by part
    (widths: each part's rows on one rank): the concat, part by part, of every rank's slice of it,
    as draft-relation writes it."""
    parts = []
    for i, width in enumerate(widths):
        start = sum(widths[:i])
        ranks = ", ".join(f"slice(r{k}.{weight}, 0, {start}, {start + width})" for k in range(n))
        parts.append(f"concat({ranks}, dim=0)")
    return f"concat({', '.join(parts)}, dim=0)"


def fused_swiglu(name, n, swapped=False):
    batch, seq, hidden, ffn = 2, 3, 8, 12
    gs = trace(m.FusedSwiGLU(hidden, ffn), x=t(batch, seq, hidden))
    gd = trace_ranks(n, lambda r: m.ParallelFusedSwiGLU(hidden, ffn, r, n, swapped),
                     lambda r: dict(x=t(batch, seq, hidden)))
    fused = fused_rows("gate_up.weight", n, [ffn // n, ffn // n])
    relations = [replicate("x"), relate("gate_up.weight", fused), shard("down.weight", 1)]
    if not swapped:
        return Case(
            name, f"a SwiGLU MLP with gate and up fused in one projection over TP={n}, as vLLM's"
            " merged column-parallel layer stores it: rank k's fused weight is the k-th block of"
            " gate's rows, then of up's; each rank splits its output in halves, down row-parallel,"
            " all-reduce", gs, gd, relations, "refines", "y equals the all-reduce on any rank")
    return Case(
        name, f"fused-swiglu at TP={n} taking each rank's halves in the other order: the SiLU gates"
        " up's rows and multiplies gate's", gs, gd, relations, "not-refined",
        "silu(up) * gate is not silu(gate) * up", operator=node_name(gs, "aten.silu.default"))


def fused_qkv(name, n):
    seq, hidden, heads, kv_heads, head_dim = 4, 8, 4, 2, 2
    gs = trace(m.FusedQKVAttention(hidden, heads, kv_heads, head_dim), x=t(seq, hidden))
    gd = trace_ranks(n, lambda r: m.ParallelFusedQKVAttention(hidden, heads, kv_heads, head_dim, r, n),
                     lambda r: dict(x=t(seq, hidden)))
    widths = [heads * head_dim // n, kv_heads * head_dim // n, kv_heads * head_dim // n]
    relations = [replicate("x"), relate("qkv_proj.weight", fused_rows("qkv_proj.weight", n, widths)),
                 shard("o_proj.weight", 1), replicate("o_proj.bias")]
    return Case(
        name, f"causal grouped-query attention ({heads} query, {kv_heads} key/value heads) with q, k"
        f" and v fused in one projection over TP={n}, as vLLM's QKVParallelLinear stores it: rank k's"
        " fused weight is its block of q's rows, then of k's, then of v's; each rank splits by its"
        " widths, output projection row-parallel, all-reduce", gs, gd, relations, "refines",
        "the heads' contexts concatenate; the output is the all-reduce plus the bias")


def megatron_fused_qkv(name, n, local_scale=False):
    seq, batch, hidden, heads = 4, 2, 16, 2 * n
    head_dim = hidden // heads
    gs = trace(m.FusedQKVSelfAttention(hidden, heads), x=t(seq, batch, hidden))
    gd = trace_ranks(n, lambda r: m.MegatronFusedQKVSelfAttention(hidden, heads, r, n, local_scale),
                     lambda r: dict(x=t(seq, batch, hidden)))
    shards = ", ".join(f"r{k}.qkv.weight" for k in range(n))
    qkv = (f"reshape(permute(reshape(concat({shards}, dim=0), [{heads}, 3, {head_dim}, {hidden}]),"
           f" [1, 0, 2, 3]), [{3 * hidden}, {hidden}])")
    relations = [replicate("x"), relate("qkv.weight", qkv), shard("out.weight", 1)]
    if not local_scale:
        return Case(
            name, f"self-attention with q, k and v fused in one projection, the sequential weight's"
            f" rows [q; k; v] and Megatron's shards over TP={n} interleaved per head ([heads / tp,"
            " 3, head_dim]): each rank views its output so and unbinds q, k and v; output"
            " projection row-parallel, all-reduce", gs, gd, relations, "refines",
            "the output equals the all-reduce on any rank")
    return Case(
        name, f"the same over TP={n} scaling the scores by the square root of the rank's hidden"
        " width instead of the head's", gs, gd, relations, "not-refined",
        "the scale is off by the heads a rank holds: the scaled scores are a multiple of the"
        " ranks' (a derived factor), so the softmax is the first operator with no clean expression",
        operator=node_name(gs, "aten._softmax.default"))


def sp_rmsnorm(name, n, gather_batch_first=False):
    seq, batch, hidden, ffn = 8, 2, 6, 8
    gs = trace(m.RMSNormMLP(hidden, ffn), x=t(seq, batch, hidden))
    gd = trace_ranks(n, lambda r: m.SequenceParallelRMSNormMLP(hidden, ffn, r, n, gather_batch_first),
                     lambda r: dict(x=t(seq // n, batch, hidden)))
    relations = [shard("x", 0), replicate("norm.weight"), shard("fc1.weight", 0), shard("fc1.bias", 0),
                 shard("fc2.weight", 1), replicate("fc2.bias")]
    if not gather_batch_first:
        return Case(
            name, f"RMSNorm under sequence parallelism in Megatron's [seq, batch, hidden] layout over"
            f" TP={n}: the norm on sequence shards, all-gather along the sequence, column-parallel fc1,"
            " row-parallel fc2, reduce-scatter back to sequence shards, then the bias", gs, gd,
            relations, "refines", "y = concat of the ranks' outputs along the sequence")
    return Case(
        name, f"sp-rmsnorm at TP={n} gathering the normalized shards in a [batch, seq, hidden] layout,"
        " where all_gather's dim 0 is the batch, and viewing the result back", gs, gd, relations,
        "not-refined", "the gathered sequence blocks land in the batch dim",
        operator=node_name(gs, "aten.addmm.default"))


def gqa(name, n, kv_layout="grouped"):
    seq, hidden, heads, kv_heads, head_dim = 5, 16, 8, 4, 4
    gs = trace(m.GroupedQueryAttention(hidden, heads, kv_heads, head_dim, kv_layout), x=t(seq, hidden))
    gd = trace_ranks(n, lambda r: m.ParallelGroupedQueryAttention(hidden, heads, kv_heads, head_dim, r, n,
                                                                   kv_layout),
                     lambda r: dict(x=t(seq, hidden)))
    relations = [replicate("x"), shard("q_proj.weight", 0), shard("k_proj.weight", 0),
                 shard("v_proj.weight", 0), shard("o_proj.weight", 1), replicate("o_proj.bias")]
    if kv_layout == "grouped":
        return Case(
            name, f"causal grouped-query attention, {heads} query heads sharing {kv_heads} key/value"
            f" heads (repeat_kv), over TP={n}: each rank {heads // n} query and {kv_heads // n} key/value"
            " heads (q/k/v column-parallel), causal mask from aranges, output projection row-parallel"
            " + all-reduce", gs, gd, relations, "refines", "y equals the all-reduce plus the bias on any rank")
    return Case(
        name, f"gqa whose model maps query head h to key/value head h % {kv_heads} (tiled): split"
        f" over TP={n} by contiguous heads, a rank's query heads meet other key/value heads than in G_s",
        gs, gd, relations, "not-refined", "contiguous head shards do not keep tiled groups together",
        operator=node_name(gs, "aten.bmm.default"))


def trainverify_linear(name, n, sync_input_grad=True):
    tokens, dim_in, dim_out = 3, 4, 6
    outputs = ("y", "grad_x", "grad_weight")
    gs = tag_outputs(trace(m.LinearGrad(dim_in, dim_out), x=t(tokens, dim_in), dy=t(tokens, dim_out)), *outputs)
    gd = [tag_outputs(g, *outputs) for g in
          trace_ranks(n, lambda r: m.ColumnParallelLinearGrad(dim_in, dim_out, r, n, sync_input_grad),
                      lambda r: dict(x=t(tokens, dim_in), dy=t(tokens, dim_out // n)))]
    relations = [replicate("x"), shard("dy", 1), shard("weight", 0)]
    expect = [relate("grad_x", f"r{k}.grad_x") for k in range(n)]
    if sync_input_grad:
        return Case(
            name, f"TrainVerify's example over TP={n}: a column-parallel linear y = x W^T in forward and"
            " backward (the input gradient dy W all-reduced, the weight gradient dy^T x per shard)",
            gs, gd, relations, "refines",
            "y and grad_weight concatenate the ranks' shards; grad_x equals every rank's, as expected",
            expect=expect)
    return Case(
        name, f"trainverify-linear at TP={n} without the all-reduce of the input gradient (TrainVerify's"
        " bug)", gs, gd, relations, "expectation-violated",
        "grad_x is sum(r0.grad_x, r1.grad_x), not each rank's as expected",
        operator=node_name(gs, "aten.mm.default", 2), expect=expect)


def slapo_mlp(name, n, syncs=("backward", "forward")):
    tokens, hidden, ffn = 3, 4, 8
    outputs = ("y", "grad_x", "grad_fc1_weight", "grad_fc1_bias", "grad_fc2_weight", "grad_fc2_bias")
    gs = tag_outputs(trace(m.MLPGrad(hidden, ffn), x=t(tokens, hidden), dy=t(tokens, hidden)), *outputs)
    gd = [tag_outputs(g, *outputs) for g in
          trace_ranks(n, lambda r: m.SlapoScheduledMLP(hidden, ffn, r, n, syncs),
                      lambda r: dict(x=t(tokens, hidden), dy=t(tokens, hidden)))]
    relations = [replicate("x"), replicate("dy"), shard("fc1.weight", 0), shard("fc1.bias", 0),
                 shard("fc2.weight", 1), replicate("fc2.bias")]
    expect = [relate(o, f"r{k}.{o}") for o in ("y", "grad_x", "grad_fc2_bias") for k in range(n)]
    if len(syncs) == 2:
        return Case(
            name, f"an MLP after a Slapo schedule for TP={n}, forward and backward in one graph:"
            " shard(fc1.weight/bias, axis=0) with sync(mode=backward) on its input, shard(fc2.weight,"
            " axis=1) with sync(mode=forward) on its output", gs, gd, relations, "refines",
            "y and grad_x equal every rank's, as expected; the weight gradients concatenate the ranks'"
            " shards", expect=expect)
    return Case(
        name, f"slapo-mlp at TP={n} with a schedule that forgets the backward sync of fc1's input",
        gs, gd, relations, "expectation-violated",
        "the forward still matches; grad_x is the sum of the ranks' partial input gradients, not each"
        " rank's as expected", operator=node_name(gs, "aten.mm.default", 2), expect=expect)


def data_parallel_grads(name, n, grad_reduce_op="avg"):
    batch, dim_in, dim_out = 8, 5, 3
    outputs = ("loss", "grad_weight", "grad_bias")
    gs = tag_outputs(trace(m.RegressionGrad(dim_in, dim_out), x=t(batch, dim_in), target=t(batch, dim_out)),
                     *outputs)
    gd = [tag_outputs(g, *outputs) for g in
          trace_ranks(n, lambda r: m.DataParallelRegressionGrad(dim_in, dim_out, r, n, grad_reduce_op),
                      lambda r: dict(x=t(batch // n, dim_in), target=t(batch // n, dim_out)))]
    relations = [shard("x", 0), shard("target", 0), replicate("weight"), replicate("bias")]
    expect = [relate(o, f"r{k}.{o}") for o in outputs for k in range(n)]
    if grad_reduce_op == "avg":
        return Case(
            name, f"data parallelism over {n} ranks, forward and backward in one graph: the mean"
            " squared error of x W^T + b and its weight and bias gradients, each rank on its batch"
            " rows, loss and gradients all-reduced with avg", gs, gd, relations, "refines",
            "the loss and gradients equal every rank's averages, as expected", expect=expect)
    return Case(
        name, f"data-parallel-grads over {n} ranks all-reducing the gradients with sum instead of avg",
        gs, gd, relations, "not-refined", f"the gradients come out {n} times too large: each is the"
        f" ranks' sum where G_s has 1/{n} of it, and the bias gradient's sum over the rows is the"
        " first with no clean expression", operator=node_name(gs, "aten.sum.dim_IntList"),
        expect=expect)


def bias_share_row_parallel(name, n, divide=True):
    tokens, hidden, out = 4, 8, 6
    gs = trace(m.Affine(hidden, out), x=t(tokens, hidden))
    gd = trace_ranks(n, lambda r: m.BiasShareRowParallelAffine(hidden, out, r, n, divide),
                     lambda r: dict(x=t(tokens, hidden // n)))
    relations = [shard("x", 1), shard("weight", 1), replicate("bias")]
    if divide:
        return Case(
            name, f"a row-parallel linear over TP={n} whose replicated bias every rank adds divided by"
            f" the world size before the sum all-reduce (DTensor's partial bias): {n} shares of b/{n}",
            gs, gd, relations, "refines", f"the all-reduce sums the partial products and {n} shares of"
            f" b/{n}, which make b")
    return Case(
        name, f"bias-share-row-parallel at TP={n} adding the whole bias on every rank", gs, gd,
        relations, "not-refined", f"the all-reduce counts the bias {n} times",
        operator=node_name(gs, "aten.add.Tensor"))


def rank_zero_bias_row_parallel(name, n, every_rank=False):
    tokens, hidden, out = 4, 8, 6
    gs = trace(m.Affine(hidden, out), x=t(tokens, hidden))
    gd = trace_ranks(n, lambda r: m.RankZeroBiasRowParallelAffine(hidden, out, r, n, every_rank),
                     lambda r: dict(x=t(tokens, hidden // n)))
    relations = [shard("x", 1), shard("weight", 1), replicate("bias")]
    if not every_rank:
        return Case(
            name, f"a row-parallel linear over TP={n} whose bias rank 0 alone adds to its partial"
            " product before the sum all-reduce", gs, gd, relations, "refines",
            "sum(p_0 + b, p_1, ...) is sum(p_0, p_1, ...) + b: the bias is counted once")
    return Case(
        name, f"rank-zero-bias-row-parallel at TP={n} without the rank test: every rank adds the bias",
        gs, gd, relations, "not-refined", f"the all-reduce counts the bias {n} times",
        operator=node_name(gs, "aten.add.Tensor"))


def data_parallel_local_mean(name, n, summed_loss=False):
    batch, dim_in, dim_out = 8, 5, 3
    outputs = ("loss", "grad_weight", "grad_bias")
    gs = tag_outputs(trace(m.RegressionGrad(dim_in, dim_out), x=t(batch, dim_in), target=t(batch, dim_out)),
                     *outputs)
    model = m.SummedLossRegressionGrad if summed_loss else m.RegressionGrad
    gd = [tag_outputs(g, *outputs) for g in
          trace_ranks(n, lambda r: model(dim_in, dim_out),
                      lambda r: dict(x=t(batch // n, dim_in), target=t(batch // n, dim_out)))]
    relations = [shard("x", 0), shard("target", 0), replicate("weight"), replicate("bias")]
    expect = [relate(o, "mean(" + ", ".join(f"r{k}.{o}" for k in range(n)) + ")") for o in outputs]
    if not summed_loss:
        return Case(
            name, f"data parallelism over {n} ranks before the gradient all-reduce: each rank's mean"
            " squared error of x W^T + b on its batch rows and its weight and bias gradients, related"
            f" to the sequential step by mean(...) across the {n} ranks", gs, gd, relations,
            "refines", "the loss and the gradients are the means of the ranks' local ones",
            expect=expect)
    return Case(
        name, f"data-parallel-local-mean over {n} ranks with each rank's squared errors summed"
        " instead of averaged", gs, gd, relations, "not-refined",
        f"the local losses come out {batch // n} times too large: no mean across ranks gives the"
        " sequential loss", operator=node_name(gs, "aten.mean.default"), expect=expect)


def data_parallel_loss(name, n, loss, grad_reduce_op="avg"):
    """A data-parallel training step whose loss is written with torch's own function:
    ``F.mse_loss`` (``loss="mse"``) or ``F.cross_entropy`` (``loss="cross-entropy"``)."""
    batch, dim_in, dim_out = 8, 5, 3
    outputs = ("loss", "grad_weight", "grad_bias")
    if loss == "mse":
        label = t(batch, dim_out)
        gs_module = m.MSELossRegressionGrad(dim_in, dim_out)
        make = lambda r: m.DataParallelMSELossRegressionGrad(dim_in, dim_out, r, n, grad_reduce_op)
        what, second = "F.mse_loss of x W^T + b against a target", "target"
        labels = lambda rows: t(rows, dim_out)
    else:
        gs_module = m.ClassifierGrad(dim_in, dim_out)
        make = lambda r: m.DataParallelClassifierGrad(dim_in, dim_out, r, n, grad_reduce_op)
        what, second = "F.cross_entropy of the logits x W^T + b against class labels", "labels"
        labels = lambda rows: t(rows, dtype=torch.int64)
    gs = tag_outputs(trace(gs_module, **{"x": t(batch, dim_in), second: labels(batch)}), *outputs)
    gd = [tag_outputs(g, *outputs) for g in
          trace_ranks(n, make, lambda r: {"x": t(batch // n, dim_in), second: labels(batch // n)})]
    relations = [shard("x", 0), shard(second, 0), replicate("weight"), replicate("bias")]
    expect = [relate(o, f"r{k}.{o}") for o in outputs for k in range(n)]
    if grad_reduce_op == "avg":
        return Case(
            name, f"data parallelism over {n} ranks, forward and backward in one graph: {what}"
            " (mean over the batch) and its weight and bias gradients, each rank on its batch rows,"
            " loss and gradients all-reduced with avg", gs, gd, relations, "refines",
            "the loss and gradients equal every rank's averages, as expected", expect=expect)
    return Case(
        name, f"{name.replace('bug-', '').replace('-grads-sum', '')} over {n} ranks all-reducing the"
        " gradients with sum instead of avg", gs, gd, relations, "not-refined",
        f"the gradients come out {n} times too large: each is the ranks' sum where G_s has 1/{n} of"
        f" it; the weight's gradient is 1/{n} of G_d's output, which no clean expression over G_d's"
        " outputs scales back", operator=node_name(gs, "aten.t.default", 3), expect=expect)


def conv_out_channels(name, n, interleave=False):
    batch, channels, out, size = 2, 3, 4, 5
    gs = trace(m.ConvBlock(channels, out), x=t(batch, channels, size, size))
    gd = trace_ranks(n, lambda r: m.OutChannelParallelConv(channels, out, r, n, interleave),
                     lambda r: dict(x=t(batch, channels, size, size)))
    relations = [replicate("x"), shard("weight", 0), shard("bias", 0)]
    if not interleave:
        return Case(
            name, f"a 3x3 convolution with bias and relu over TP={n} by output channels: rank k"
            " holds filters k and bias entries k, the activations all-gathered and concatenated"
            " along the channels", gs, gd, relations, "refines",
            "each rank's filters make its block of output channels")
    return Case(
        name, f"conv-out-channels at TP={n} viewing the gathered ranks' blocks as channels without"
        " moving them", gs, gd, relations, "not-refined",
        "the view mixes samples and channel blocks: no concat of the ranks' channels",
        operator=node_name(gs, "aten.relu.default"))


def conv_in_channels(name, n, bug=None):
    batch, channels, out, size = 2, 4, 3, 5
    gs = trace(m.ConvBlock(channels, out), x=t(batch, channels, size, size))
    gd = trace_ranks(n, lambda r: m.InChannelParallelConv(channels, out, r, n,
                                                          bias_before_reduce=bug == "bias",
                                                          relu_before_reduce=bug == "relu"),
                     lambda r: dict(x=t(batch, channels // n, size, size)))
    relations = [shard("x", 1), shard("weight", 1), replicate("bias")]
    if bug is None:
        return Case(
            name, f"a 3x3 convolution with bias and relu over TP={n} by input channels (row"
            " parallel): rank k holds input channels k of the input and of every filter, the"
            " partial results all-reduced, then the bias and relu", gs, gd, relations, "refines",
            "the convolution is the sum of the ranks' convolutions over their channels")
    if bug == "bias":
        return Case(
            name, f"conv-in-channels at TP={n} adding the bias on every rank before the all-reduce",
            gs, gd, relations, "not-refined", f"the all-reduce counts the bias {n} times",
            operator=node_name(gs, "aten.convolution.default"))
    return Case(
        name, f"conv-in-channels at TP={n} applying relu to each rank's partial result before the"
        " all-reduce (and the bias after it)", gs, gd, relations, "not-refined",
        "a sum of relus is not the relu of the sum: the convolution's value (with its bias) is never"
        " computed", operator=node_name(gs, "aten.convolution.default"))


def data_parallel_conv_grads(name, n, grad_reduce_op="avg"):
    batch, channels, out, size = 4, 2, 3, 4
    outputs = ("loss", "grad_weight", "grad_bias")
    gs = tag_outputs(trace(m.ConvRegressionGrad(channels, out), x=t(batch, channels, size, size),
                           target=t(batch, out, size, size)), *outputs)
    gd = [tag_outputs(g, *outputs) for g in
          trace_ranks(n, lambda r: m.DataParallelConvRegressionGrad(channels, out, r, n,
                                                                    grad_reduce_op),
                      lambda r: dict(x=t(batch // n, channels, size, size),
                                     target=t(batch // n, out, size, size)))]
    relations = [shard("x", 0), shard("target", 0), replicate("weight"), replicate("bias")]
    expect = [relate(o, f"r{k}.{o}") for o in outputs for k in range(n)]
    if grad_reduce_op == "avg":
        return Case(
            name, f"data parallelism over {n} ranks for a 3x3 convolution, forward and backward"
            " in one graph: F.mse_loss of conv2d(x) against a target and the gradients of the"
            " filters and the bias (convolution_backward), each rank on its samples, all-reduced"
            " with avg", gs, gd, relations, "refines",
            "the loss and gradients equal every rank's averages, as expected", expect=expect)
    return Case(
        name, f"dp-conv-grads over {n} ranks all-reducing the gradients with sum instead of avg",
        gs, gd, relations, "not-refined", f"the gradients come out {n} times too large",
        operator=node_name(gs, "aten.convolution_backward.default"), expect=expect)


def cnn_out_channels(name, n, view_gathered=False):
    batch, channels, out, size = 2, 3, 4, 6
    gs = trace(m.SmallCNN(channels, out), x=t(batch, channels, size, size))
    gd = trace_ranks(n, lambda r: m.OutChannelParallelCNN(channels, out, r, n, view_gathered),
                     lambda r: dict(x=t(batch, channels, size, size)))
    relations = [replicate("x"), shard("conv.weight", 0), shard("conv.bias", 0)]
    if not view_gathered:
        return Case(
            name, f"a small CNN over TP={n} by output channels: conv3x3 with bias, relu,"
            " max_pool2d(3, 2, 1) and global average pooling on each rank's channels, the features"
            " all-gathered", gs, gd, relations, "refines",
            "pooling is per channel: each rank pools its own channels")
    return Case(
        name, f"cnn-out-channels at TP={n} viewing the gathered ranks' rows as features without"
        " moving them", gs, gd, relations, "not-refined",
        "the view mixes samples and channel blocks: no concat of the ranks' features",
        operator=node_name(gs, "aten._reshape_alias.default"))


def data_parallel_cnn_grads(name, n, reduce_conv_grad=True, pooled=False):
    """The CNN's training step under data parallelism; ``pooled`` pools 2x2 (avg_pool2d) instead of
    globally."""
    batch, channels, hidden, out, size = 4, 2, 3, 2, 4
    outputs = ("loss", "grad_conv", "grad_fc")
    model, dp_model = ((m.PooledCNNRegressionGrad, m.DataParallelPooledCNNRegressionGrad) if pooled
                       else (m.CNNRegressionGrad, m.DataParallelCNNRegressionGrad))
    gs = tag_outputs(trace(model(channels, hidden, out), x=t(batch, channels, size, size),
                           target=t(batch, out)), *outputs)
    gd = [tag_outputs(g, *outputs) for g in
          trace_ranks(n, lambda r: dp_model(channels, hidden, out, r, n, reduce_conv_grad),
                      lambda r: dict(x=t(batch // n, channels, size, size), target=t(batch // n, out)))]
    relations = [shard("x", 0), shard("target", 0), replicate("conv_weight"), replicate("fc_weight")]
    expect = [relate(o, f"r{k}.{o}") for o in outputs for k in range(n)]
    pool = "2x2 average pooling (avg_pool2d)" if pooled else "global average pooling"
    if reduce_conv_grad:
        return Case(
            name, f"data parallelism over {n} ranks for a small CNN, forward and backward in one"
            f" graph: conv3x3, relu, {pool} and a linear layer under F.mse_loss,"
            " the gradients of the filters (through the pool's and relu's gradients and"
            " convolution_backward) and of the linear weight, all-reduced with avg", gs, gd,
            relations, "refines", "the loss and gradients equal every rank's averages, as expected",
            expect=expect)
    family = "dp-cnn-avgpool-grads" if pooled else "dp-cnn-grads"
    return Case(
        name, f"{family} over {n} ranks leaving the filters' gradient unreduced", gs, gd,
        relations, "not-refined", "each rank keeps the filters' gradient of its own samples",
        operator=node_name(gs, "aten.convolution_backward.default"), expect=expect)


def data_parallel_mlp_grads(name, n):
    batch, hidden, ffn, dim_out = 8, 4, 6, 3
    outputs = ("loss", "grad_fc1_weight", "grad_fc1_bias", "grad_fc2_weight", "grad_fc2_bias")
    gs = tag_outputs(trace(m.MLPRegressionGrad(hidden, ffn, dim_out), x=t(batch, hidden),
                           target=t(batch, dim_out)), *outputs)
    gd = [tag_outputs(g, *outputs) for g in
          trace_ranks(n, lambda r: m.DataParallelMLPRegressionGrad(hidden, ffn, dim_out, r, n),
                      lambda r: dict(x=t(batch // n, hidden), target=t(batch // n, dim_out)))]
    relations = [shard("x", 0), shard("target", 0)]
    relations += [replicate(p) for p in ("fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias")]
    return Case(
        name, f"data parallelism over {n} ranks for an MLP, forward and backward in one graph: the"
        " mean squared error of fc2(gelu(fc1(x))) and the gradients of every weight (through"
        " gelu_backward), each rank on its batch rows, all-reduced with avg", gs, gd, relations,
        "refines", "the loss and gradients equal every rank's averages, as expected",
        expect=[relate(o, f"r{k}.{o}") for o in outputs for k in range(n)])


def zero_grads(name, n, reduce_grads=True):
    batch, dim_in, dim_out = 8, 5, 4
    outputs = ("loss", "grad_weight", "grad_bias")
    gs = tag_outputs(trace(m.RegressionGrad(dim_in, dim_out), x=t(batch, dim_in), target=t(batch, dim_out)),
                     *outputs)
    gd = [tag_outputs(g, *outputs) for g in
          trace_ranks(n, lambda r: m.ZeroRegressionGrad(dim_in, dim_out, r, n, reduce_grads),
                      lambda r: dict(x=t(batch // n, dim_in), target=t(batch // n, dim_out)))]
    relations = [shard("x", 0), shard("target", 0), shard("weight", 0), shard("bias", 0)]
    expect = [relate("loss", f"r{k}.loss") for k in range(n)]
    if reduce_grads:
        return Case(
            name, f"ZeRO-3 (FSDP2's dim-0 shards) over {n} data-parallel ranks: parameters all-gathered"
            " before use, gradients of the gathered parameters reduce-scattered (avg) back to shards,"
            " the loss all-reduced (avg)", gs, gd, relations, "refines",
            "the gradients concatenate the ranks' gradient shards; the loss is every rank's",
            expect=expect)
    return Case(
        name, f"zero-grads over {n} ranks keeping each rank's rows of its own gradients instead of"
        " reduce-scattering them", gs, gd, relations, "not-refined",
        "a gradient shard misses the other ranks' batch rows (the whole gradient is half the sum of"
        " the ranks' own, which no rank takes: the bias's is the first with no clean expression)",
        operator=node_name(gs, "aten.sum.dim_IntList"), expect=expect)


def micro_batched_data_parallel(name, n, micro, scale=True):
    batch, dim_in, dim_out = 4 * n, 5, 3
    outputs = ("loss", "grad_weight", "grad_bias")
    gs = tag_outputs(trace(m.RegressionGrad(dim_in, dim_out), x=t(batch, dim_in), target=t(batch, dim_out)),
                     *outputs)
    gd = [tag_outputs(g, *outputs) for g in
          trace_ranks(n, lambda r: m.MicroBatchedDataParallelGrad(dim_in, dim_out, micro, scale),
                      lambda r: dict(x=t(batch // n, dim_in), target=t(batch // n, dim_out)))]
    relations = [shard("x", 0), shard("target", 0), replicate("weight"), replicate("bias")]
    expect = [relate(o, f"r{k}.{o}") for o in outputs for k in range(n)]
    if scale:
        return Case(
            name, f"micro-batched data parallelism over {n} ranks: each rank splits its batch rows into"
            f" {micro} micro-batches, accumulates their losses and gradients scaled by 1/{micro}, and"
            " all-reduces (avg) the sums", gs, gd, relations, "refines",
            "the loss and gradients are every rank's", expect=expect)
    return Case(
        name, f"micro-batched data parallelism over {n} ranks accumulating {micro} micro-batches"
        f" without the 1/{micro}", gs, gd, relations, "not-refined",
        f"the accumulated loss is {micro} times the mean", operator=node_name(gs, "aten.mean.default"),
        expect=expect)


def data_tensor_parallel(name, dp, tp, divisor="world"):
    batch, dim_in, dim_out = 4 * dp, 5, 2 * tp
    n = dp * tp
    outputs = ("loss", "grad_weight", "grad_bias")
    gs = tag_outputs(trace(m.RegressionGrad(dim_in, dim_out), x=t(batch, dim_in),
                           target=t(batch, dim_out)), *outputs)
    gd = [tag_outputs(g, *outputs) for g in
          trace_ranks(n, lambda r: m.DataTensorParallelRegressionGrad(dim_in, dim_out, r, dp, tp, divisor),
                      lambda r: dict(x=t(batch // dp, dim_in), target=t(batch // dp, dim_out // tp)))]

    def rows(name, d):  # the tensor-parallel ranks' blocks of data-parallel row block d
        return ", ".join(f"r{d * tp + k}.{name}" for k in range(tp))

    relations = [relate("x", "concat(" + ", ".join(f"r{d * tp + k}.x" for d in range(dp)) + ", dim=0)")
                 for k in range(tp)]
    relations.append(relate("target", "concat(" + ", ".join(
        f"concat({rows('target', d)}, dim=1)" for d in range(dp)) + ", dim=0)"))
    relations += [relate(p, f"concat({rows(p, d)}, dim=0)") for p in ("weight", "bias") for d in range(dp)]
    expect = [relate("loss", f"r{k}.loss") for k in range(n)]
    expect += [relate(o, f"concat({rows(o, d)}, dim=0)") for o in ("grad_weight", "grad_bias")
               for d in range(dp)]
    groups = {"world": list(range(n)), **{f"dp{k}": [d * tp + k for d in range(dp)] for k in range(tp)}}
    if divisor == "world":
        return Case(
            name, f"a training step on a {dp} x {tp} mesh, data parallelism by tensor parallelism: the"
            " weight's rows split over the tensor-parallel ranks, the batch over the data-parallel"
            " ones; each rank's loss the mean over its block, the loss all-reduced over every rank"
            " and the gradients over each data-parallel group, all divided by the number of ranks",
            gs, gd, relations, "refines", "the gradients concatenate one data-parallel row of the"
            " mesh; the loss is every rank's", expect=expect, process_groups=groups)
    return Case(
        name, f"the {dp} x {tp} mesh's training step dividing the gradients by the data-parallel"
        " degree instead of the number of ranks", gs, gd, relations, "not-refined",
        f"the gradients come out {tp} times too large: the weight gradient, half the ranks' sum"
        " where G_s has a quarter of it, is the first output with no clean expression",
        operator=node_name(gs, "aten.t.default", 3),
        expect=expect, process_groups=groups)


def zero_adam_step(name, n, reduce_grads=True, summed=None):
    """``summed`` (True or False): the gradients reduce-scattered with a sum, then divided by the
    ranks' count when True (left undivided, a bug, when False)."""
    batch, dim_in, dim_out = 8, 5, 4
    outputs = ("loss", "new_weight", "new_bias", "exp_avg_weight_new", "exp_avg_sq_weight_new",
               "exp_avg_bias_new", "exp_avg_sq_bias_new")
    gs = tag_outputs(trace(m.RegressionAdamStep(dim_in, dim_out), x=t(batch, dim_in),
                           target=t(batch, dim_out)), *outputs)
    gd = [tag_outputs(g, *outputs) for g in
          trace_ranks(n, lambda r: m.ZeroAdamStep(dim_in, dim_out, r, n, reduce_grads)
                      if summed is None else m.ZeroAdamSummedStep(dim_in, dim_out, r, n, summed),
                      lambda r: dict(x=t(batch // n, dim_in), target=t(batch // n, dim_out)))]
    relations = [shard("x", 0), shard("target", 0), replicate("weight"), replicate("bias")]
    relations += [shard(f"{moment}_{p}", 0) for moment in ("exp_avg", "exp_avg_sq") for p in ("weight", "bias")]
    expect = [relate(o, f"r{k}.{o}") for o in ("loss", "new_weight", "new_bias") for k in range(n)]
    if summed is not None:
        if summed:
            return Case(
                name, f"a ZeRO stage-2 Adam step over {n} data-parallel ranks averaging by hand: the"
                " gradients reduce-scattered with a sum and the shard divided by the ranks' count, the"
                " loss all-reduced (sum) and divided likewise", gs, gd, relations, "refines",
                "the new parameters are every rank's; the new moments concatenate the ranks' shards",
                expect=expect, outputs=outputs)
        return Case(
            name, f"the same over {n} ranks without dividing the reduce-scattered gradients by the"
            " ranks' count", gs, gd, relations, "not-refined",
            "each gradient shard is the ranks' sum, n times the average: the first moment's update"
            " (its sum of the scaled old moment and the scaled gradient) is the first operator with"
            " no clean expression", operator=node_name(gs, "aten.add.Tensor"), expect=expect,
            outputs=outputs)
    if reduce_grads:
        return Case(
            name, f"a ZeRO stage-2 Adam step over {n} data-parallel ranks: each rank's gradients on"
            " its batch rows reduce-scattered (avg) to shards, the rank's shard of the parameters and"
            " of both Adam moments stepped, the new parameters all-gathered", gs, gd, relations,
            "refines", "the new parameters are every rank's; the new moments concatenate the ranks'"
            " shards", expect=expect, outputs=outputs)
    return Case(
        name, f"the ZeRO stage-2 Adam step over {n} ranks stepping with the rank's rows of its own"
        " gradients instead of reduce-scattering them", gs, gd, relations, "not-refined",
        "a gradient shard misses the other ranks' batch rows: the first moment's update is the first"
        " operator with no clean expression", operator=node_name(gs, "aten.mul.Tensor", 2),
        expect=expect, outputs=outputs)


def flat_zero_grads(name, n):
    batch, dim_in, dim_out = 8, 5, 4
    outputs = ("loss", "grad_weight", "grad_bias")
    gs = tag_outputs(trace(m.RegressionGrad(dim_in, dim_out), x=t(batch, dim_in), target=t(batch, dim_out)),
                     *outputs)
    gd = [tag_outputs(g, *outputs) for g in
          trace_ranks(n, lambda r: m.FlatZeroRegressionGrad(dim_in, dim_out, r, n),
                      lambda r: dict(x=t(batch // n, dim_in), target=t(batch // n, dim_out)))]
    chunks = ", ".join(f"r{k}.weight" for k in range(n))
    relations = [shard("x", 0), shard("target", 0),
                 relate("weight", f"reshape(concat({chunks}, dim=0), [{dim_out}, {dim_in}])"), shard("bias", 0)]
    return Case(
        name, f"ZeRO (DeepSpeed) or FSDP1 flat parameters over {n} data-parallel ranks: each rank holds"
        " a chunk of the flattened weight, all-gathers and views it before use, and reduce-scatters"
        " (avg) its flattened gradient back to chunks", gs, gd, relations, "refines",
        "grad_weight is the reshape of the concat of the ranks' gradient chunks",
        expect=[relate("loss", f"r{k}.loss") for k in range(n)])


def lora_mlp(name, n, reduce="separate"):
    tokens, hidden, ffn, r, alpha = 4, 8, 16, 2, 4
    gs = trace(m.LoRAMLP(hidden, ffn, r, alpha), x=t(tokens, hidden))
    gd = trace_ranks(n, lambda k: m.ParallelLoRAMLP(hidden, ffn, r, alpha, k, n, reduce),
                     lambda k: dict(x=t(tokens, hidden)))
    relations = [replicate("x"), shard("fc1.weight", 0), shard("fc1.bias", 0), replicate("fc1.lora_A"),
                 shard("fc1.lora_B", 0), shard("fc2.weight", 1), shard("fc2.lora_A", 1),
                 replicate("fc2.lora_B"), replicate("fc2.bias")]
    how = {"separate": "the base product and lora_A's product all-reduced each (PEFT's adapter of a"
                       " RowParallelLinear)",
           "fused": "the adapter's partial product added to the base one before a single all-reduce"}
    if reduce is not None:
        return Case(
            name, f"LoRA adapters on a Megatron MLP over TP={n}: fc1 column-parallel (lora_A"
            " replicated, lora_B split by rows), fc2 row-parallel (lora_A split by columns, lora_B"
            f" replicated), {how[reduce]}", gs, gd, relations, "refines",
            "every rank's output is the MLP's: the adapter's sum over ranks passes through lora_B")
    return Case(
        name, f"LoRA on a row-parallel fc2 over TP={n} without lora_A's all-reduce: each rank's"
        " adapter sees only its columns of the hidden activations", gs, gd, relations, "not-refined",
        "the output adds one rank's share of the adapter's product instead of their sum",
        operator=node_name(gs, "aten.add.Tensor", 1))


def clip_grad_norm(name, n, every_rank=False):
    hidden, ffn = 4, 8
    shapes = {"fc1_weight": (ffn, hidden), "fc1_bias": (ffn,), "fc2_weight": (hidden, ffn),
              "fc2_bias": (hidden,)}
    outputs = tuple(f"clipped_{g}" for g in shapes)
    gs = tag_outputs(trace(m.ClipGradNorm(), **{g: t(*s) for g, s in shapes.items()}), *outputs)

    def local(g, s):
        dim = {"fc1_weight": 0, "fc1_bias": 0, "fc2_weight": 1}.get(g)
        return s if dim is None else s[:dim] + (s[dim] // n,) + s[dim + 1:]

    gd = [tag_outputs(g, *outputs) for g in
          trace_ranks(n, lambda k: m.TensorParallelClipGradNorm(k, every_rank=every_rank),
                      lambda k: {g: t(*local(g, s)) for g, s in shapes.items()})]
    relations = [shard("fc1_weight", 0), shard("fc1_bias", 0), shard("fc2_weight", 1),
                 replicate("fc2_bias")]
    if not every_rank:
        return Case(
            name, f"gradient-norm clipping under TP={n} as Megatron clips: each rank sums the"
            " squares of its gradient shards, rank 0 alone adds the replicated bias's, the sum is"
            " all-reduced and each rank scales its own gradients", gs, gd, relations, "refines",
            "the all-reduced sum of squares is the whole gradients' (the duplicate counted once)")
    return Case(
        name, f"gradient-norm clipping under TP={n} counting the replicated bias's square on every"
        " rank", gs, gd, relations, "not-refined",
        f"the norm counts the replicated gradient {n} times",
        operator=node_name(gs, "aten.add.Tensor", 3))


EP_COUNTS = [[1, 2, 3], [3, 1, 2], [2, 3, 1]]


def expert_parallel(name, transposed_splits=False):
    n, hidden, ffn, counts = 3, 4, 6, EP_COUNTS
    gs = trace(m.StaticMoE(hidden, ffn, counts), x=t(sum(map(sum, counts)), hidden))
    gd = trace_ranks(n, lambda r: m.ExpertParallelMoE(hidden, ffn, counts, r, n, transposed_splits),
                     lambda r: dict(x=t(sum(counts[r]), hidden)))
    relations = [shard("x", 0), shard("w1", 0), shard("w2", 0)]
    if not transposed_splits:
        return Case(
            name, f"expert parallelism over {n} ranks, one expert each: rank s holds its tokens grouped"
            f" by expert (counts {counts}), all_to_all_single dispatches them, the expert MLP runs, and"
            " all_to_all_single combines them back", gs, gd, relations, "refines",
            "y = concat of the ranks' combined tokens")
    return Case(
        name, "expert-parallel with both all_to_all_single calls taking their split sizes from the"
        " transposed count matrix: the ranks agree, but rows go to the wrong experts", gs, gd,
        relations, "not-refined", "an expert's input rows are not the rows routed to it",
        operator=node_name(gs, "aten.mm.default"))


def gated_expert_parallel(name, n, gate_dim=-1):
    hidden, ffn = 4, 6
    counts = [[1 + (s + e) % n for e in range(n)] for s in range(n)]  # uneven routing, even shards
    gs = trace(m.GatedStaticMoE(hidden, ffn, counts), x=t(sum(map(sum, counts)), hidden))
    gd = trace_ranks(n, lambda r: m.GatedExpertParallelMoE(hidden, ffn, counts, r, n, gate_dim),
                     lambda r: dict(x=t(sum(counts[r]), hidden)))
    relations = [shard("x", 0), shard("w1", 0), shard("w2", 0), replicate("wg")]
    if gate_dim == -1:
        return Case(
            name, f"a top-1 mixture of experts with a softmax gate over {n} expert-parallel ranks, one"
            f" expert each (token counts {counts}): all_to_all_single dispatches, the expert MLP runs,"
            " all_to_all_single combines, and each rank weighs its tokens by their largest gate"
            " probability (the gate weight replicated)", gs, gd, relations, "refines",
            "y = concat of the ranks' gated tokens")
    return Case(
        name, f"the gated mixture of experts over {n} ranks taking the gate's softmax over the rank's"
        " tokens instead of over the experts", gs, gd, relations, "not-refined",
        "the gate probabilities are normalized over the wrong dim",
        operator=node_name(gs, "aten._softmax.default"))


def ulysses(name, n, bug=None):
    heads, seq, dim = 2 * n, 4 * n, 3
    gs = trace(m.HeadAttention(heads), **{x: t(seq, heads * dim) for x in "qkv"})
    gd = trace_ranks(n, lambda r: m.UlyssesAttention(heads, r, n, bug),
                     lambda r: {x: t(seq // n, heads * dim) for x in "qkv"})
    relations = [shard("q", 0), shard("k", 0), shard("v", 0)]
    if bug is None:
        return Case(
            name, f"DeepSpeed-Ulysses sequence parallelism over {n} ranks: q, k and v sharded along"
            " the sequence, an all_to_all_single to head shards (viewed and transposed heads first),"
            " attention per head, an all_to_all_single back to sequence shards", gs, gd, relations,
            "refines", "the attention output = concat of the ranks' outputs along the sequence")
    what = {"order": "reassembling the received sequence chunks starting at the rank's own chunk",
            "split": "without the transpose before the all_to_all, which then splits the sequence"
                     " instead of the heads"}[bug]
    if bug == "order":
        return Case(
            name, f"Ulysses over {n} ranks {what}", gs, gd, relations, "not-refined",
            "a rank's scores are the sequential ones with its chunks rotated (a block permutation,"
            " which maps); the check stops at the softmax over them, which no law moves through a"
            " permutation of its dim's blocks", operator=node_name(gs, "aten._softmax.default"))
    return Case(
        name, f"Ulysses over {n} ranks {what}", gs, gd, relations, "not-refined",
        "a rank's attention scores pair queries and keys of the wrong positions or heads",
        operator=node_name(gs, "aten.bmm.default"))


def ulysses_batched(name, n, interleave=False):
    seq, batch, heads, dim = 4 * n, 2, 2 * n, 4
    gs = trace(m.SeqBatchAttention(), **{x: t(seq, batch, heads, dim) for x in "qkv"})
    gd = trace_ranks(n, lambda r: m.UlyssesSeqBatchAttention(n, interleave),
                     lambda r: {x: t(seq // n, batch, heads, dim) for x in "qkv"})
    relations = [shard("q", 0), shard("k", 0), shard("v", 0)]
    if not interleave:
        return Case(
            name, f"DeepSpeed-Ulysses over {n} ranks in Megatron's [seq, batch, heads, dim] layout:"
            " q, k and v sharded along the sequence, each split into the ranks' head groups and sent"
            " by an all_to_all_single, attention per batch row and head, and the sequence sent back"
            " the same way", gs, gd, relations, "refines",
            "the attention output = concat of the ranks' outputs along the sequence")
    return Case(
        name, f"Ulysses over {n} ranks ordering the returned heads (local head, rank) instead of"
        " (rank, local head)", gs, gd, relations, "not-refined",
        "the heads come back interleaved across the ranks",
        operator=node_name(gs, "aten.permute.default", 3))


def context_parallel(name, n, offset_bug=False, shifted_arange=False):
    heads, seq, dim = 2, 8, 4
    shapes = dict(q=t(heads, seq, dim), k=t(heads, seq, dim), v=t(heads, seq, dim))
    gs = trace(m.CausalAttentionCore(), **shapes)
    gd = trace_ranks(n, lambda r: m.ContextParallelAttention(r, n, offset_bug, shifted_arange),
                     lambda r: {x: t(heads, seq // n, dim) for x in "qkv"})
    relations = [shard("q", 1), shard("k", 1), shard("v", 1)]
    positions = "arange(rows) + offset" if shifted_arange else "arange(offset, offset + rows)"
    if not offset_bug:
        return Case(
            name, f"context parallelism over {n} ranks: queries, keys and values sharded along the"
            " sequence, keys and values all-gathered, the causal mask of the local queries shifted by"
            f" the rank's offset ({positions})", gs, gd, relations, "refines",
            "the attention output = concat of the ranks' outputs along the sequence")
    return Case(
        name, f"context-parallel over {n} ranks building each rank's causal mask as if its queries"
        " started at position 0", gs, gd, relations, "not-refined",
        "ranks past the first mask keys their queries may see",
        operator=node_name(gs, "aten.masked_fill.Scalar"))


def einsum_attention_cumsum(name, n, feature_cumsum=False):
    batch, seq, hidden, heads, ffn = 2, 6, 16, 4, 16
    gs = trace(m.EinsumAttentionCumsum(hidden, heads, ffn), x=t(batch, seq, hidden))
    gd = trace_ranks(n, lambda r: m.ParallelEinsumAttentionCumsum(
        hidden, heads, ffn, r, n, cumsum_dim=-1 if feature_cumsum else 1),
        lambda r: dict(x=t(batch, seq, hidden)))
    relations = [replicate("x")]
    relations += [shard(f"{p}_proj_weight", 0) for p in "qkv"]
    relations += [shard("o_proj_weight", 1), replicate("o_proj_bias")]
    relations += [shard("up_weight", 0), shard("up_bias", 0), shard("down_weight", 1),
                  replicate("down_bias")]
    if not feature_cumsum:
        return Case(
            name, f"attention written with torch.einsum over a batch, {heads} heads split"
            f" {heads // n} per rank (q/k/v column-parallel, output row-parallel), then a"
            " column-parallel projection averaged causally along the sequence (cumsum over the"
            " sequence divided by the position) and a row-parallel projection", gs, gd, relations,
            "refines", "the output = the ranks' all-reduced output (every rank's is the same)")
    return Case(
        name, f"einsum-attention-cumsum-tp{n} with the running sum taken over the features, which"
        " each rank holds only part of", gs, gd, relations, "not-refined",
        "each rank's running sum starts again at its first feature",
        operator=node_name(gs, "aten.cumsum.default"))


def vocab_parallel_lm_loss(name, n, mask_predicted=True, gathered=False, indexed=None):
    """``indexed``: the sequential loss picks by advanced indexing; True states the labels' range
    in the relation (``in_range``), False does not."""
    batch, hidden, vocab = 8, HIDDEN, 16
    inputs = lambda: dict(h=t(batch, hidden), labels=t(batch, dtype=torch.int64))
    sequential = (m.LMHeadGatheredLoss if gathered else
                  m.LMHeadIndexedLoss if indexed is not None else m.LMHeadLoss)
    gs = tag_outputs(trace(sequential(hidden, vocab), **inputs()), "loss")
    gd = [tag_outputs(g, "loss") for g in
          trace_ranks(n, lambda r: m.VocabParallelLMHeadLoss(hidden, vocab, r, n, mask_predicted),
                      lambda r: inputs())]
    relations = [replicate("h"), replicate("labels"), shard("weight", 0)]
    if indexed is not None:
        if indexed:
            relations[1]["in_range"] = [0, vocab]
            return Case(
                name, f"vocab-parallel-lm-loss-tp{n} with the sequential loss picking the targets'"
                " log-probabilities by advanced indexing (logp[arange(rows), labels]), the labels'"
                " range stated in the relation (\"in_range\": [0, 16])", gs, gd, relations,
                "refines", "loss = the ranks' loss (every rank's is the same)")
        return Case(
            name, f"vocab-parallel-lm-loss-indexed-tp{n} without the labels' range: advanced"
            " indexing reads a negative label from the end of the row, which no rank's masked pick"
            " does, so the two agree for labels within the vocabulary only", gs, gd, relations,
            "unproved", "on numbers (labels drawn within the vocabulary) the losses agree",
            operator=node_name(gs, "aten._log_softmax.default"))
    if gathered:
        return Case(
            name, f"vocab-parallel-lm-loss-tp{n} with the sequential loss written as log_softmax,"
            " a gather of the targets' column and its mean", gs, gd, relations, "refines",
            "loss = the ranks' loss (every rank's is the same)")
    if mask_predicted:
        return Case(
            name, f"F.cross_entropy of an output layer h W^T, the vocabulary split over TP={n} as"
            " Megatron's vocab_parallel_cross_entropy computes the loss: the row max all-reduced"
            " (max), each rank's target logits (masked to its range) and exponentials' sums"
            " all-reduced (sum); no rank computes the whole log-softmax", gs, gd, relations,
            "refines", "loss = the ranks' loss (every rank's is the same)")
    return Case(
        name, "vocab-parallel-lm-loss-tp2 without zeroing the picked logits of targets in other"
        " ranks' ranges", gs, gd, relations, "not-refined",
        "each rank adds its column-0 logit for every target another rank holds; the log-softmax"
        " that no rank computes starts the chain, which fails at the loss",
        operator=node_name(gs, "aten._log_softmax.default"))


def dp_picked_target_loss(name, n, reduce_op="avg"):
    batch, dim_in, classes = 8, HIDDEN, 6
    gs = tag_outputs(trace(m.PickedTargetLoss(dim_in, classes), x=t(batch, dim_in),
                           labels=t(batch, dtype=torch.int64)), "loss")
    gd = [tag_outputs(g, "loss") for g in
          trace_ranks(n, lambda r: m.DataParallelPickedTargetLoss(dim_in, classes, reduce_op),
                      lambda r: dict(x=t(batch // n, dim_in), labels=t(batch // n, dtype=torch.int64)))]
    relations = [shard("x", 0), shard("labels", 0), replicate("weight")]
    if reduce_op == "avg":
        return Case(
            name, f"a loss picking the targets' log-probabilities by advanced indexing"
            f" (logp[arange(rows), labels]), data parallel over {n} ranks, averaged", gs, gd,
            relations, "refines", "loss = the ranks' averaged loss")
    return Case(
        name, "dp-picked-target-loss-dp2 summing the ranks' mean losses instead of averaging them",
        gs, gd, relations, "not-refined", "the loss is twice the sequential one",
        operator=node_name(gs, "aten.mean.default"))


def all_cases():
    return [
        fig1_matmul(),
        mlp("mlp-tp2", 2, "linear"),
        mlp("mlp-tp4", 4, "matmul"),
        mlp("mlp-tp8", 8, "linear"),
        attention_heads(2),
        attention_heads(4),
        sp_layernorm(2),
        sp_flat_rows("sp-flat-rows-tp2", 2),
        sp_flat_rows("sp-flat-rows-tp4", 4),
        sp_flat_rows("bug-sp-flat-rows-unordered", 2, unordered=True),
        sp_layernorm(4),
        sp_layernorm(8),
        sp_narrow_tp2(),
        vocab_embedding(2),
        vocab_embedding(4),
        vocab_embedding_grad("vocab-embedding-grad-tp2", 2),
        vocab_embedding_grad("vocab-embedding-grad-tp4", 4),
        vocab_embedding_grad("bug-vocab-embedding-grad-unmasked", 2, mask_output=False),
        vocab_parallel_cross_entropy("vocab-parallel-cross-entropy-tp2", 2),
        vocab_parallel_cross_entropy("vocab-parallel-cross-entropy-tp4", 4),
        vocab_parallel_cross_entropy("vocab-parallel-cross-entropy-unstated-tp2", 2, stated=False),
        vocab_parallel_cross_entropy("bug-vocab-parallel-cross-entropy-unmasked-grad", 2, mask_grad=False),
        gpt(4, 2),
        sp_layernorm_grad("sp-layernorm-grad-tp2", True),
        sp_layernorm_grad("bug-sp-layernorm-grad-unreduced", False),
        gpt(6, 1),
        grad_accum("grad-accum", True),
        hand_grads("hand-grads-dp2", 2),
        hand_grads("hand-grads-dp4", 4),
        loss_scaled_accumulation("loss-scaled-grad-accum-dp2", 2),
        halo_time_conv("halo-time-conv-sp2", 2),
        load_balanced_context_parallel("load-balanced-context-parallel-cp2", 2),
        load_balanced_context_parallel("load-balanced-context-parallel-cp4", 4),
        halo_time_conv("halo-time-conv-sp4", 4),
        loss_scaled_accumulation("loss-scaled-grad-accum-dp4", 4),
        bug_mlp("bug-mlp-missing-allreduce", "mlp-tp2 whose row-parallel output is not"
                " all-reduced (paper bug 7): each rank adds b2 to its partial sum", 
                "fc2 needs the sum of the ranks' partial products; no rank has it",
                reduce=None),
        bug_mlp("bug-mlp-bias-before-allreduce", "mlp-tp2 adding b2 on each rank before the"
                " all-reduce, so the bias is counted twice",
                "the all-reduce gives fc2's output plus b2 once more", bias_before_reduce=True),
        bug_wrong_slice_offset(),
        bug_expert_sharded(),
        bug_loss_not_scaled(),
        grad_accum("bug-grad-accum-unscaled", False),
        hand_grads("bug-hand-grads-local-mean", 2, local_mean=True),
        loss_scaled_accumulation("bug-loss-scaled-grad-accum-unscaled", 2, unscale=False),
        halo_time_conv("bug-halo-time-conv-zero-padded", 2, halo=False),
        load_balanced_context_parallel("bug-load-balanced-context-parallel-unordered", 2, reorder=False),
        row_parallel_3d("row-parallel-3d-tp2", 2),
        row_parallel_3d("bug-row-parallel-3d-bias-before-allreduce", 3, bias_before_reduce=True),
        replicated_average("replicated-average-tp3", 3),
        replicated_average("bug-replicated-average-wrong-divisor", 2, divisor=1),
        micro_batch_mean("micro-batch-mean", 3),
        micro_batch_mean("bug-micro-batch-mean-undivided", 2, divide=False),
        transposed_shards("transposed-shards-tp2", 2),
        transposed_shards("bug-transposed-shards-row-gather", 2, gather_rows=True),
        padded_gather("padded-gather-tp3", [4, 3, 3]),
        padded_gather("bug-padded-gather-trim-end", [4, 3, 3], trim_end_only=True),
        rotary_sequence_shards("rotary-sequence-shards-tp2", 2),
        rotary_sequence_shards("bug-rotary-no-offset", 2, offset_bug=True),
        bias_share_row_parallel("bias-share-row-parallel-tp2", 2),
        bias_share_row_parallel("bias-share-row-parallel-tp4", 4),
        bias_share_row_parallel("bug-bias-share-row-parallel-undivided", 2, divide=False),
        rank_zero_bias_row_parallel("rank-zero-bias-row-parallel-tp2", 2),
        rank_zero_bias_row_parallel("rank-zero-bias-row-parallel-tp4", 4),
        rank_zero_bias_row_parallel("bug-rank-zero-bias-every-rank", 4, every_rank=True),
        data_parallel_local_mean("data-parallel-local-mean-dp2", 2),
        data_parallel_local_mean("data-parallel-local-mean-dp4", 4),
        data_parallel_local_mean("bug-data-parallel-local-summed-loss", 2, summed_loss=True),
        data_parallel_grads("data-parallel-grads-dp2", 2),
        data_parallel_grads("bug-data-parallel-grads-sum", 2, "sum"),
        data_parallel_mlp_grads("data-parallel-mlp-grads-dp4", 4),
        data_parallel_loss("dp-mse-loss-dp2", 2, "mse"),
        data_parallel_loss("bug-dp-mse-loss-grads-sum", 2, "mse", "sum"),
        data_parallel_loss("dp-cross-entropy-dp2", 2, "cross-entropy"),
        data_parallel_loss("dp-cross-entropy-dp4", 4, "cross-entropy"),
        data_parallel_loss("bug-dp-cross-entropy-grads-sum", 2, "cross-entropy", "sum"),
        conv_out_channels("conv-out-channels-tp2", 2),
        conv_out_channels("bug-conv-out-channels-interleaved", 2, interleave=True),
        conv_in_channels("conv-in-channels-tp2", 2),
        conv_in_channels("conv-in-channels-tp4", 4),
        conv_in_channels("bug-conv-in-channels-bias-before-allreduce", 2, bug="bias"),
        conv_in_channels("bug-conv-in-channels-relu-before-allreduce", 2, bug="relu"),
        data_parallel_conv_grads("dp-conv-grads-dp2", 2),
        data_parallel_conv_grads("dp-conv-grads-dp4", 4),
        data_parallel_conv_grads("bug-dp-conv-grads-sum", 2, "sum"),
        cnn_out_channels("cnn-out-channels-tp2", 2),
        cnn_out_channels("cnn-out-channels-tp4", 4),
        cnn_out_channels("bug-cnn-out-channels-viewed", 2, view_gathered=True),
        data_parallel_cnn_grads("dp-cnn-grads-dp2", 2),
        data_parallel_cnn_grads("dp-cnn-grads-dp4", 4),
        data_parallel_cnn_grads("bug-dp-cnn-grads-unreduced", 2, reduce_conv_grad=False),
        data_parallel_cnn_grads("dp-cnn-avgpool-grads-dp2", 2, pooled=True),
        data_parallel_cnn_grads("dp-cnn-avgpool-grads-dp4", 4, pooled=True),
        data_parallel_cnn_grads("bug-dp-cnn-avgpool-grads-unreduced", 2, reduce_conv_grad=False,
                                pooled=True),
        swiglu("swiglu-tp2", 2),
        swiglu("bug-swiglu-reduce-before-down", 2, reduce_before_down=True),
        fused_swiglu("fused-swiglu-tp2", 2),
        fused_swiglu("fused-swiglu-tp4", 4),
        fused_swiglu("bug-fused-swiglu-swapped-halves", 2, swapped=True),
        fused_qkv("fused-qkv-gqa-tp2", 2),
        sp_rmsnorm("sp-rmsnorm-tp2", 2),
        sp_rmsnorm("bug-sp-rmsnorm-gather-batch-first", 2, gather_batch_first=True),
        gqa("gqa-causal-tp2", 2),
        gqa("bug-gqa-tiled-kv", 2, kv_layout="tiled"),
        slapo_mlp("slapo-mlp-tp2", 2),
        slapo_mlp("bug-slapo-mlp-missing-backward-sync", 2, syncs=("forward",)),
        trainverify_linear("trainverify-linear-tp2", 2),
        trainverify_linear("bug-trainverify-linear-no-grad-sync", 2, sync_input_grad=False),
        zero_grads("zero-grads-dp2", 2),
        zero_grads("zero-grads-dp4", 4),
        zero_grads("bug-zero-grads-unreduced", 2, reduce_grads=False),
        flat_zero_grads("zero-flat-grads-dp2", 2),
        micro_batched_data_parallel("micro-batched-dp2", 2, 2),
        micro_batched_data_parallel("micro-batched-dp4", 4, 2),
        micro_batched_data_parallel("bug-micro-batched-dp-unscaled", 2, 2, scale=False),
        data_tensor_parallel("dp-tp-mesh-2x2", 2, 2),
        data_tensor_parallel("bug-dp-tp-mesh-divided-by-dp", 2, 2, divisor="dp"),
        zero_adam_step("zero-adam-step-dp2", 2),
        zero_adam_step("zero-adam-step-dp4", 4),
        zero_adam_step("bug-zero-adam-step-grads-unreduced", 2, reduce_grads=False),
        zero_adam_step("zero-adam-step-summed-dp2", 2, summed=True),
        zero_adam_step("zero-adam-step-summed-dp4", 4, summed=True),
        zero_adam_step("bug-zero-adam-step-summed-undivided", 4, summed=False),
        lora_mlp("lora-mlp-tp2", 2),
        lora_mlp("lora-mlp-tp4", 4, reduce="fused"),
        lora_mlp("bug-lora-row-parallel-unreduced", 2, reduce=None),
        clip_grad_norm("clip-grad-norm-tp2", 2),
        clip_grad_norm("clip-grad-norm-tp4", 4),
        clip_grad_norm("bug-clip-grad-norm-duplicate-counted", 2, every_rank=True),
        expert_parallel("expert-parallel-ep3"),
        expert_parallel("bug-expert-parallel-transposed-splits", transposed_splits=True),
        gated_expert_parallel("gated-moe-ep2", 2),
        gated_expert_parallel("gated-moe-ep4", 4),
        gated_expert_parallel("bug-gated-moe-softmax-over-tokens", 2, gate_dim=0),
        context_parallel("context-parallel-cp2", 2),
        context_parallel("bug-context-parallel-unshifted-mask", 2, offset_bug=True),
        context_parallel("context-parallel-cp4", 4, shifted_arange=True),
        ulysses("ulysses-attention-sp2", 2),
        ulysses("ulysses-attention-sp4", 4),
        ulysses("bug-ulysses-chunk-order", 2, bug="order"),
        ulysses("bug-ulysses-split-sequence", 4, bug="split"),
        ulysses_batched("ulysses-batched-sp2", 2),
        ulysses_batched("ulysses-batched-sp4", 4),
        ulysses_batched("bug-ulysses-batched-heads-interleaved", 4, interleave=True),
        megatron_fused_qkv("megatron-fused-qkv-tp2", 2),
        megatron_fused_qkv("megatron-fused-qkv-tp4", 4),
        megatron_fused_qkv("bug-megatron-fused-qkv-local-scale", 2, local_scale=True),
        vocab_parallel_lm_loss("vocab-parallel-lm-loss-tp2", 2),
        vocab_parallel_lm_loss("vocab-parallel-lm-loss-tp4", 4),
        vocab_parallel_lm_loss("bug-vocab-parallel-lm-loss-unmasked-pick", 2, mask_predicted=False),
        vocab_parallel_lm_loss("vocab-parallel-lm-loss-gathered-tp4", 4, gathered=True),
        vocab_parallel_lm_loss("vocab-parallel-lm-loss-indexed-tp4", 4, indexed=True),
        vocab_parallel_lm_loss("vocab-parallel-lm-loss-indexed-unstated-tp4", 4, indexed=False),
        einsum_attention_cumsum("einsum-attention-cumsum-tp2", 2),
        einsum_attention_cumsum("einsum-attention-cumsum-tp4", 4),
        einsum_attention_cumsum("bug-einsum-attention-feature-cumsum", 2, feature_cumsum=True),
        dp_picked_target_loss("dp-picked-target-loss-dp2", 2),
        dp_picked_target_loss("dp-picked-target-loss-dp4", 4),
        dp_picked_target_loss("bug-dp-picked-target-loss-summed", 2, reduce_op="sum"),
    ]


# ---------------------------------------------------------------------------
# checks and output


_INDEXES = {}  # id of a graph's node list -> (the list, its nodes by name, by tag)


def _resolve(graph, name):
    nodes = graph["nodes"]
    index = _INDEXES.get(id(nodes))
    if index is None or index[0] is not nodes:
        # one index per graph: relations of a 126-layer model name thousands of tensors
        by_tag = {}
        for node in nodes:
            by_tag.setdefault(node.get("meta", {}).get("tag"), node)
        index = (nodes, {node["name"]: node for node in nodes}, by_tag)
        _INDEXES[id(nodes)] = index
    node = index[1].get(name) or index[2].get(name)
    if node is None:
        raise AssertionError(f"{graph.get('name')}: no node or tag {name!r}")
    return node


def _shape(graph, name):
    return _resolve(graph, name)["meta"]["shape"]


def check_relations(case, gs, ranks):
    """Checks that every relation names existing tensors with fitting shapes."""
    ref = re.compile(r"r(\d+)\.([A-Za-z_][A-Za-z0-9_.]*)")
    for entry in case.relations + case.expect:
        want = _shape(gs, entry["gs"])
        if "shard" in entry:
            dim = entry["shard"]
            parts = [_shape(g, entry["gs"]) for g in ranks]
            joined = list(parts[0])
            joined[dim] = sum(p[dim] for p in parts)
            assert joined == want, f"{case.name}: shards of {entry['gs']} {parts} vs {want}"
        elif entry.get("replicate"):
            for g in ranks:
                assert _shape(g, entry["gs"]) == want, f"{case.name}: {entry['gs']} replica"
        else:
            expr = entry["gd"]
            for k, name in ref.findall(expr):
                _shape(ranks[int(k)], name)
            if entry in case.expect:
                continue  # an expectation need not hold
            shape = _expr_shape(expr, ranks)
            assert shape == want, f"{case.name}: {expr} has shape {shape}, {entry['gs']} {want}"


def _expr_shape(expr, ranks):
    """The shape of a relation expression made of rK.NAME, concat(..., dim=D), transpose(e, A, B),
    permute(e, [...]), reshape(e, [...]) and slice(e, DIM, START, END)."""
    expr = expr.strip()
    ref = re.fullmatch(r"r(\d+)\.([A-Za-z_][A-Za-z0-9_.]*)", expr)
    if ref:
        return list(_shape(ranks[int(ref.group(1))], ref.group(2)))
    call = re.fullmatch(r"(\w+)\((.*)\)", expr)
    if not call:
        raise AssertionError(f"cannot read the relation expression {expr!r}")
    args, depth, start = [], 0, 0
    for i, ch in enumerate(call.group(2) + ","):
        depth += ch in "(["
        depth -= ch in ")]"
        if ch == "," and depth == 0:
            args.append(call.group(2)[start:i].strip())
            start = i + 1
    if call.group(1) in ("mean", "sum"):
        return _expr_shape(args[0], ranks)
    if call.group(1) == "scale":
        return _expr_shape(args[0], ranks)
    if call.group(1) == "concat":
        dim = int(args[-1].split("=")[1])
        shapes = [_expr_shape(a, ranks) for a in args[:-1]]
        joined = list(shapes[0])
        joined[dim] = sum(s[dim] for s in shapes)
        return joined
    if call.group(1) == "reshape":
        shape = [int(v) for v in args[1].strip("[]").split(",")]
        numel = math.prod(_expr_shape(args[0], ranks))
        assert math.prod(shape) == numel, f"reshape of {numel} elements to {shape}"
        return shape
    if call.group(1) == "permute":
        shape = _expr_shape(args[0], ranks)
        return [shape[int(v)] for v in args[1].strip("[]").split(",")]
    if call.group(1) == "transpose":
        shape = _expr_shape(args[0], ranks)
        a, b = int(args[1]), int(args[2])
        shape[a], shape[b] = shape[b], shape[a]
        return shape
    if call.group(1) == "slice":
        shape = _expr_shape(args[0], ranks)
        dim, begin, end = int(args[1]), int(args[2]), int(args[3])
        assert 0 <= begin < end <= shape[dim], f"slice [{begin}, {end}) of a dim of {shape[dim]}"
        shape[dim] = end - begin
        return shape
    raise AssertionError(f"the relation expression {expr!r} uses {call.group(1)}, which this check does not read")


# The line of the distributed code each bug's report must name first (its expected.json's
# "gd_location"): the line's text in example_models.py and which of the lines with that text it is,
# so that the line number follows edits of the models.
GD_LOCATIONS = {
    "bug-megatron-fused-qkv-local-scale": (
        "scores = q @ k.transpose(-1, -2) / math.sqrt(self.local * self.head_dim)", 0),
    "bug-zero-adam-step-summed-undivided": (
        'grad = dist.reduce_scatter(grad, self.world_size, "sum", GROUP)', 0),
    "bug-ulysses-batched-heads-interleaved": (
        "y = y.permute(1, 2, 3, 0, 4) if self.interleave else y.permute(1, 2, 0, 3, 4)", 0),
    "bug-dp-tp-mesh-divided-by-dp": (
        'grad_weight = dist.all_reduce(grad_weight, "sum", group) / divide', 0),
    "bug-clip-grad-norm-duplicate-counted": ("own = own + fc2_bias.pow(2).sum()", 0),
    "bug-lora-row-parallel-unreduced": ("return base + F.linear(low, fc2.lora_B) * fc2.scaling", 0),
    "bug-gated-moe-softmax-over-tokens": (
        "return torch.softmax(x @ self.wg, dim=self.gate_dim).max(dim=-1)[0].unsqueeze(-1)", 0),
    "bug-zero-adam-step-grads-unreduced": ("grad = grad.chunk(n)[self.rank]", 0),
    "bug-micro-batched-dp-unscaled": (
        "parts = self.loss_and_grads(self.weight, self.bias, x_part, target_part)", 0),
    "bug-vocab-parallel-cross-entropy-unmasked-grad": ("exp = logits.exp()", 0),
    "bug-vocab-parallel-lm-loss-unmasked-pick": ("predicted = logits[torch.arange(logits.shape[0]), target]", 0),
    "bug-dp-picked-target-loss-summed": ("return dist.all_reduce(super().forward(x, labels), self.reduce_op, GROUP)", 0),
    "bug-bias-share-row-parallel-undivided": (
        'return dist.all_reduce(x @ self.weight.t() + share, "sum", GROUP)', 0),
    "bug-data-parallel-local-summed-loss": (
        "loss = (F.linear(x, weight, bias) - target).pow(2).sum()", 0),
    "bug-rank-zero-bias-every-rank": ("y = y + self.bias", 2),
    "bug-context-parallel-unshifted-mask": ("return super().attend(q, k, v, row_start)", 0),
    "bug-data-parallel-grads-sum": ("dist.all_reduce(grad_bias, self.grad_reduce_op, GROUP))", 0),
    "bug-load-balanced-context-parallel-unordered": (
        "return self.attend(x @ self.wq.t(), k, v, query_pos, key_pos) @ self.wo.t()", 0),
    "bug-halo-time-conv-zero-padded": ("h = torch.tanh(self.conv(x, self.w1, self.b1))", 0),
    "bug-loss-scaled-grad-accum-unscaled": (
        'return self.step([dist.all_reduce(a, "sum", GROUP) / divisor for a in total])', 0),
    "bug-hand-grads-local-mean": (
        'grad_weight = dist.all_reduce(scale * (e.t() @ x), "sum", GROUP)', 0),
    "bug-dp-mse-loss-grads-sum": (
        'return (dist.all_reduce(loss, "avg", GROUP), dist.all_reduce(grad_weight, self.grad_reduce_op,'
        " GROUP),", 1),
    "bug-conv-in-channels-bias-before-allreduce": (
        "partial = F.conv2d(x, self.weight, self.bias, padding=1)", 0),
    "bug-conv-in-channels-relu-before-allreduce": ("partial = F.relu(partial)", 0),
    "bug-dp-cnn-grads-unreduced": ("loss, grad_conv, grad_fc = super().forward(x, target)", 0),
    "bug-fused-swiglu-swapped-halves": (
        'return dist.all_reduce(self.down(F.silu(gate) * up), "sum", GROUP)', 0),
    "bug-dp-cnn-avgpool-grads-unreduced": (
        "loss, grad_conv, grad_fc = super().forward(x, target)", 0),
    "bug-cnn-out-channels-viewed": (
        "return dist.all_gather(features, self.world_size, GROUP).view(features.shape[0], -1)", 0),
    "bug-conv-out-channels-interleaved": (
        "return dist.all_gather(y, self.world_size, GROUP).view(y.shape[0], -1, *y.shape[2:])", 0),
    "bug-dp-conv-grads-sum": ("dist.all_reduce(grad_weight, self.grad_reduce_op, GROUP),", 0),
    "bug-dp-cross-entropy-grads-sum": (
        'return (dist.all_reduce(loss, "avg", GROUP), dist.all_reduce(grad_weight, self.grad_reduce_op,'
        " GROUP),", 2),
    "bug-expert-parallel-transposed-splits": (
        "routed = dist.all_to_all(x, self.recv, self.send, GROUP)", 0),
    "bug-expert-sharded": ("return F.gelu(x @ self.w1) @ self.w2", 0),
    "bug-gqa-tiled-kv": (
        "return self.o_proj(self.attend(x, self.heads // n, self.kv_heads // n))", 0),
    "bug-grad-accum-unscaled": ("total_loss = loss if total_loss is None else total_loss + loss", 0),
    "bug-loss-not-scaled": ('aux_loss = dist.all_reduce(loss, "sum", GROUP)', 0),
    "bug-micro-batch-mean-undivided": ("loss = part_loss if loss is None else loss + part_loss", 0),
    "bug-mlp-bias-before-allreduce": ("y = y + self.bias", 0),
    "bug-mlp-missing-allreduce": ("y = y + self.bias", 1),
    "bug-padded-gather-trim-end": ("full = gathered[:sum(self.seq_sizes)]", 0),
    "bug-replicated-average-wrong-divisor": (
        'return dist.all_reduce(super().forward(x) / self.divisor, "sum", GROUP)', 0),
    "bug-rotary-no-offset": ("return self.rotate(x, cos_table, sin_table, start)", 0),
    "bug-row-parallel-3d-bias-before-allreduce": (
        'return dist.all_reduce(y + self.proj.bias, "sum", GROUP)', 0),
    "bug-slapo-mlp-missing-backward-sync": (
        "grads = torch.autograd.grad(y, [first, *params.values()], dy)", 0),
    "bug-sp-layernorm-grad-unreduced": ("dx, dw, db = self.grads(x, dy)", 0),
    "bug-sp-flat-rows-unordered": (
        "rows = dist.all_gather(self.norm(x).reshape(b * c, h), n, GROUP)", 0),
    "bug-sp-rmsnorm-gather-batch-first": (
        "h = g.view(batch, rows * self.world_size, hidden).transpose(0, 1)", 0),
    "bug-swiglu-reduce-before-down": ('return self.down(dist.all_reduce(h, "sum", GROUP))', 0),
    "bug-trainverify-linear-no-grad-sync": (
        "grads = torch.autograd.grad(y, [first, *params.values()], dy)", 0),
    "bug-transposed-shards-row-gather": (
        "y = dist.all_gather(x @ self.weight, self.world_size, GROUP)", 0),
    "bug-vocab-embedding-grad-unmasked": ("local = (ids - self.start).masked_fill(mask, 0)", 1),
    "bug-ulysses-chunk-order": ("x = o.view(hl, n, seq // n, -1).transpose(0, 1).contiguous()", 0),
    "bug-ulysses-split-sequence": ("return y.view(h // n, s * n, -1)", 0),
    "bug-wrong-slice-offset": ("return super().forward(x.narrow(0, start, chunk))", 0),
    "bug-zero-grads-unreduced": (
        "grads = [g.chunk(n)[self.rank] for g in (grad_weight, grad_bias)]", 0),
    "bug-einsum-attention-feature-cumsum": (
        "u = u.cumsum(dim=-1) / positions  # a mistake under TP: the features are split", 0),
}


def gd_location(name):
    """``scripts/example_models.py:LINE`` of a bug's GD_LOCATIONS entry, or None."""
    if name not in GD_LOCATIONS:
        return None
    text, which = GD_LOCATIONS[name]
    with open(MODELS_FILE, encoding="utf-8") as f:
        lines = [i + 1 for i, line in enumerate(f) if line.strip() == text]
    if which >= len(lines):
        raise SystemExit(f"make_examples: {name}: example_models.py has no line {text!r} any more")
    return f"scripts/example_models.py:{lines[which]}"


def named(graph, name):
    """A graph JSON object with its ``name``, placed where ``export_fx.graph_to_json`` puts it."""
    head = {k: graph[k] for k in ("format",) if k in graph}
    return {**head, "name": name, **{k: v for k, v in graph.items() if k not in ("format", "name")}}


def case_files(case):
    """The JSON objects of one case's files, by file name."""
    gs = export_fx.graph_to_json(case.gs, name=f"{case.name}/gs")
    ranks = [named(g, f"{case.name}/gd.r{k}") if isinstance(g, dict)
             else export_fx.graph_to_json(g, name=f"{case.name}/gd.r{k}") for k, g in enumerate(case.gd)]
    groups = {"tp": list(range(case.world_size)), **case.process_groups} if case.world_size > 1 else None
    gd = export_fx.ranks_to_json(ranks, groups)
    check_relations(case, gs, ranks)
    _INDEXES.clear()
    ri = {"format": "entangle-relation/1", "relations": case.relations}
    if case.outputs:
        ri["outputs"] = list(case.outputs)
    if case.expect:
        ri["expect"] = case.expect
    expected = {"verdict": case.verdict, "note": case.note}
    if case.operator is not None:
        expected["operator"] = case.operator
    if gd_location(case.name) is not None:
        expected["gd_location"] = gd_location(case.name)
    return {"gs.json": gs, "gd.json": gd, "ri.json": ri, "expected.json": expected}


README_HEAD = """# Example cases

Small sequential models (G_s) and distributed implementations (G_d), traced from
real PyTorch modules (`scripts/example_models.py`) with `make_fx` by
`scripts/make_examples.py`; do not edit the files by hand, regenerate them with a
Python that has torch 1.13 or later (on Debian, `python3-torch` for `/usr/bin/python3`):

    /usr/bin/python3 scripts/make_examples.py

The files need no torch to be used.

Each folder holds `gs.json` and `gd.json` (graph files: docs/formats.md, Graph files
and Distributed graph files), `ri.json` (the input relation: docs/formats.md, Relation
files) and
`expected.json` (the verdict; for a bug, `operator` is the G_s node the checker
should report when the bug clearly breaks one, and `gd_location` the line of the
distributed code its report must name first, `PATH:LINE` as the G_d stack traces
record it; `ExamplesGdLocationTest` asserts it). Check a case with:

    scripts/entangle check examples/mlp-tp2/gs.json examples/mlp-tp2/gd.json \\
        --rel examples/mlp-tp2/ri.json

Collectives are `_c10d_functional.*` on the group `tp` (all ranks); G_d rank k
was traced by running the model code with `rank=k`. Parameters carry their
qualified names as `meta.tag` (`fc1.weight`), which the MLP relations use.

| case | ranks | what it is | expected |
|---|---|---|---|
"""


def readme(cases):
    rows = []
    for c in cases:
        verdict = f"`{c.verdict}`" + (f" at `{c.operator}`" if c.operator else "")
        rows.append(f"| `{c.name}` | {c.world_size} | {c.what} | {verdict} |")
    return README_HEAD + "\n".join(rows + hlo_rows()) + "\n" + (HLO_NOTE if hlo_examples() else "")


HLO_NOTE = """
The cases with a `gs.hlo` are written by hand in XLA HLO text, not generated here:
their `gs.json` and `gd.json` are what `entangle import` makes of `gs.hlo` and
`gd.hlo` with the arguments `expected.json` lists (`import_gs`, `import_gd`);
`HloExamplesTest` keeps the two in step. After editing an `.hlo` file, re-import:

    scripts/entangle import examples/hlo-linear-tp2/gs.hlo -o examples/hlo-linear-tp2/gs.json
    scripts/entangle import examples/hlo-linear-tp2/gd.hlo --ranks 2 -o examples/hlo-linear-tp2/gd.json
"""


def hlo_examples():
    """The examples written by hand in HLO text (folders of examples/ holding gs.hlo), by name."""
    folder = os.path.join(ROOT, "examples")
    return sorted(d for d in os.listdir(folder) if os.path.isfile(os.path.join(folder, d, "gs.hlo")))


def hlo_rows():
    rows = []
    for name in hlo_examples():
        with open(os.path.join(ROOT, "examples", name, "expected.json"), encoding="utf-8") as f:
            e = json.load(f)
        args = e["import_gd"]
        ranks = args[args.index("--ranks") + 1] if "--ranks" in args else len(args)
        verdict = f"`{e['verdict']}`" + (f" at `{e['operator']}`" if e.get("operator") else "")
        rows.append(f"| `{name}` | {ranks} | {e['note']} | {verdict} |")
    return rows


def write(cases, out):
    for case in cases:
        folder = os.path.join(out, case.name)
        if os.path.isdir(folder):
            shutil.rmtree(folder)
        os.makedirs(folder)
        for file_name, obj in case_files(case).items():
            export_fx._write_json(obj, os.path.join(folder, file_name))


def sizes_option(parser, option, values):
    """The (tp, layers) pairs of an option's TPxLAYERS values, both positive."""
    sizes = [v.split("x") for v in values or []]
    if not all(len(s) == 2 and all(p.isdigit() and int(p) > 0 for p in s) for s in sizes):
        parser.error(f"{option} takes TPxLAYERS, e.g. 8x4")
    return [(int(n), int(layers)) for n, layers in sizes]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=os.path.join(ROOT, "examples"),
                        help="the folder to write (default: examples/ of the project)")
    parser.add_argument("cases", nargs="*", help="only these cases (default: all)")
    parser.add_argument("--gpt-sizes", nargs="+", metavar="TPxLAYERS",
                        help="instead of the examples, the GPT of gpt-* at these sizes (e.g. 8x4),"
                        " wider so that 2, 4, 6 and 8 ranks divide it (for scripts/bench-scale)")
    parser.add_argument("--llama-sizes", nargs="+", metavar="TPxLAYERS",
                        help="instead of the examples, the Llama-style decoder at these sizes (e.g."
                        " 8x80) into llama-tpN-lL (for scripts/bench-scale); 2, 4, 8 and 16 ranks"
                        " divide it")
    parser.add_argument("--sp", action="store_true",
                        help="with --llama-sizes: with sequence parallelism, into llama-sp-tpN-lL")
    parser.add_argument("--heads", type=int, default=16,
                        help="with --llama-sizes: query heads (default 16; a multiple of TP)")
    parser.add_argument("--kv-heads", type=int, default=8,
                        help="with --llama-sizes: key/value heads (default 8); fewer than TP"
                        " replicates each on TP/K ranks; the name gains -hH-kvK when not 16/8")
    parser.add_argument("--backward", action="store_true",
                        help="with --llama-sizes: the training step, forward and backward in one graph (the"
                        " loss and every weight's gradient, with the gradient collectives); the name gains -bwd")
    parser.add_argument("--bug", type=int, metavar="LAYER",
                        help="with --llama-sizes: drop the reduction after that layer's MLP on every"
                        " rank (the name gains -bugLAYER; expected not-refined)")
    args = parser.parse_args(argv)
    llama_only = [o for o, v in (("--sp", args.sp), ("--heads", args.heads != 16),
                                 ("--kv-heads", args.kv_heads != 8), ("--bug", args.bug is not None),
                                 ("--backward", args.backward)) if v]
    if llama_only and not args.llama_sizes:
        parser.error(f"{', '.join(llama_only)} go(es) with --llama-sizes")
    if args.heads < 1 or args.kv_heads < 1 or args.heads % args.kv_heads:
        parser.error("--heads must be a positive multiple of --kv-heads")
    fx_collectives.ensure_registered()
    if args.gpt_sizes or args.llama_sizes:
        if args.cases:
            parser.error("the sizes options take no case names")
        gpt_sizes = sizes_option(parser, "--gpt-sizes", args.gpt_sizes)
        llama_sizes = sizes_option(parser, "--llama-sizes", args.llama_sizes)
        cases = [gpt(n, layers, 48, 96, 48, 24, 96) for n, layers in gpt_sizes]
        for n, layers in llama_sizes:
            if args.heads % n or (args.kv_heads % n and n % args.kv_heads):
                parser.error(f"TP={n} must divide --heads {args.heads}, and divide or be a multiple of"
                             f" --kv-heads {args.kv_heads}")
            if args.bug is not None and not 0 <= args.bug < layers:
                parser.error(f"--bug {args.bug} is not a layer of a {layers}-layer model")
        hidden = max(32, args.heads * 4 // 2)
        cases += [llama(n, layers, args.sp, heads=args.heads, kv_heads=args.kv_heads,
                        hidden=hidden if args.heads != 16 else 32, bug_layer=args.bug,
                        backward=args.backward)
                  for n, layers in llama_sizes]
        os.makedirs(args.out, exist_ok=True)
        write(cases, args.out)
        print(f"wrote {len(cases)} cases to {os.path.relpath(args.out)}")
        return 0
    cases = all_cases()
    known = {c.name for c in cases}
    unknown = [c for c in args.cases if c not in known]
    if unknown:
        parser.error(f"unknown case {', '.join(unknown)}; cases: {', '.join(sorted(known))}")
    chosen = [c for c in cases if not args.cases or c.name in args.cases]
    os.makedirs(args.out, exist_ok=True)
    write(chosen, args.out)
    if not args.cases:
        for stale in sorted(set(os.listdir(args.out)) - known - set(hlo_examples())):
            if os.path.isfile(os.path.join(args.out, stale, "expected.json")):
                shutil.rmtree(os.path.join(args.out, stale))
        with open(os.path.join(args.out, "README.md"), "w", encoding="utf-8") as f:
            f.write(readme(cases))
    print(f"wrote {len(chosen)} cases to {os.path.relpath(args.out)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
