"""DeepSpeed-Ulysses sequence parallelism in JAX: causal multi-head self-attention whose input is
sharded along the sequence over the mesh axis ``tp`` (the capture's one axis).

``build_manual`` is the per-device program written with shard_map: each device projects its
sequence chunk, an all-to-all trades the chunk's heads for the whole sequence of the device's heads,
the device attends, and a second all-to-all trades back. With as many devices as heads each device
holds one head. ``build_manual_local`` leaves out the all-to-alls, so each device attends within
its own chunk only (keys of other chunks unseen)."""

import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P
from entangle_capture.examples.per_device import per_device

SEQ, DIM, HEADS = 16, 16, 4
HEAD_DIM = DIM // HEADS


def _attend(q, k, v, heads):
    s = q.shape[0]

    def split(t):
        return t.reshape(s, heads, HEAD_DIM).transpose(1, 0, 2)

    q, k, v = split(q), split(k), split(v)
    scores = jnp.einsum("hqd,hkd->hqk", q, k) / jnp.sqrt(jnp.float32(HEAD_DIM))
    scores = jnp.where(jnp.tril(jnp.ones((s, s), bool)), scores, -1e9)
    ctx = jnp.einsum("hqk,hkd->hqd", jax.nn.softmax(scores, axis=-1), v)
    return ctx.transpose(1, 0, 2).reshape(s, heads * HEAD_DIM)


def attention(x, wq, wk, wv):
    return _attend(x @ wq, x @ wk, x @ wv, HEADS)


IN_SPECS = (P("tp", None), P(), P(), P())
OUT_SPEC = P("tp", None)


def _args():
    keys = jax.random.split(jax.random.PRNGKey(3), 4)
    x = jax.random.normal(keys[0], (SEQ, DIM))
    return (x, *(jax.random.normal(k, (DIM, DIM)) * 0.3 for k in keys[1:]))


def _manual(mesh, exchange):
    def body(x, wq, wk, wv):
        heads = HEADS // mesh.shape["tp"] if exchange else HEADS

        def to_heads(t):  # [S/n, D] -> [S, D/n]: the chunk's heads out, the sequence in
            return jax.lax.all_to_all(t, "tp", split_axis=1, concat_axis=0, tiled=True) if exchange else t

        ctx = _attend(to_heads(x @ wq), to_heads(x @ wk), to_heads(x @ wv), heads)
        if exchange:  # [S, D/n] -> [S/n, D]
            ctx = jax.lax.all_to_all(ctx, "tp", split_axis=0, concat_axis=1, tiled=True)
        return ctx

    return per_device(body, mesh, IN_SPECS, OUT_SPEC)


def build_manual(mesh):
    return attention, _args(), IN_SPECS, OUT_SPEC, _manual(mesh, True)


def build_manual_local(mesh):
    return attention, _args(), IN_SPECS, OUT_SPEC, _manual(mesh, False)
