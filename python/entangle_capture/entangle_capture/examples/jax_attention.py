"""A JAX multi-head attention block with its heads sharded over the mesh axis ``tp``: the q, k
and v projections by columns, the output projection by rows.

``build`` lets XLA partition it; ``build_manual`` is the per-device program written with
shard_map (each device's heads, then a psum), and ``build_manual_global_heads`` is that program
reshaping by the global head count (a sharding that forgets that the head dim is split)."""

import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P
from entangle_capture.examples.per_device import per_device

DIM, HEADS = 32, 8
HEAD_DIM = DIM // HEADS


def _attention(x, wq, wk, wv, wo, heads):
    b, s, _ = x.shape

    def split(t):
        return t.reshape(b, s, heads, -1).transpose(0, 2, 1, 3)

    q, k, v = split(x @ wq), split(x @ wk), split(x @ wv)
    scores = q @ k.transpose(0, 1, 3, 2) / jnp.sqrt(jnp.float32(HEAD_DIM))
    ctx = jax.nn.softmax(scores, axis=-1) @ v
    return ctx.transpose(0, 2, 1, 3).reshape(b, s, -1) @ wo


def attention(x, wq, wk, wv, wo):
    return _attention(x, wq, wk, wv, wo, HEADS)


IN_SPECS = (P(), P(None, "tp"), P(None, "tp"), P(None, "tp"), P("tp", None))


def _args():
    keys = jax.random.split(jax.random.PRNGKey(0), 5)
    x = jax.random.normal(keys[0], (2, 8, DIM))
    return (x, *(jax.random.normal(k, (DIM, DIM)) for k in keys[1:]))


def build(mesh):
    return attention, _args(), IN_SPECS


def _manual(mesh, local_heads):
    def body(x, wq, wk, wv, wo):
        return jax.lax.psum(_attention(x, wq, wk, wv, wo, local_heads(mesh)), "tp")

    return per_device(body, mesh, IN_SPECS, P())


def build_manual(mesh):
    return attention, _args(), IN_SPECS, P(), _manual(mesh, lambda m: HEADS // m.shape["tp"])


def build_manual_global_heads(mesh):
    return attention, _args(), IN_SPECS, P(), _manual(mesh, lambda m: HEADS)
