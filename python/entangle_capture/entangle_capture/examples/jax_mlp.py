"""A JAX MLP, w1 sharded by columns and w2 by rows over the mesh axis ``tp``.

``build`` lets XLA partition ``mlp`` (GSPMD); ``build_manual`` checks a per-device program
written with shard_map against it, and ``build_manual_missing_psum`` is that program without its
all-reduce.  ``build_manual_row_first`` shards x by features and w1 by rows instead (the psum
before the GELU), and ``build_manual_gelu_before_psum`` is that program summing after the GELU."""

import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P
from entangle_capture.examples.per_device import per_device


def mlp(x, w1, w2):
    h = jax.nn.gelu(x @ w1)
    return h @ w2


def _args():
    k1, k2, k3 = jax.random.split(jax.random.PRNGKey(0), 3)
    return (jax.random.normal(k1, (8, 16)), jax.random.normal(k2, (16, 32)), jax.random.normal(k3, (32, 16)))


SPECS = (P(), P(None, "tp"), P("tp", None))


def build(mesh):
    return mlp, _args(), SPECS


def build_manual(mesh):
    """The MLP written per device with shard_map (the all-reduce by hand), checked against
    ``mlp`` on the same shardings."""

    def mlp_per_device(x, w1, w2):
        return jax.lax.psum(mlp(x, w1, w2), "tp")

    return mlp, _args(), SPECS, P(), per_device(mlp_per_device, mesh, SPECS, P())


def build_manual_missing_psum(mesh):
    """Bug: the per-device MLP returns its partial product without the psum."""
    return mlp, _args(), SPECS, P(), per_device(mlp, mesh, SPECS, P())


ROW_FIRST_SPECS = (P(None, "tp"), P("tp", None), P())


def build_manual_row_first(mesh):
    """The MLP with x sharded by features and w1 by rows: each device's partial product is
    summed (psum) before the GELU, and the replicated w2 is applied on every device."""

    def body(x, w1, w2):
        return jax.nn.gelu(jax.lax.psum(x @ w1, "tp")) @ w2

    return mlp, _args(), ROW_FIRST_SPECS, P(), per_device(body, mesh, ROW_FIRST_SPECS, P())


def build_manual_gelu_before_psum(mesh):
    """Bug: the row-first MLP applies the GELU to each device's partial product and sums after
    it, a nonlinearity before the sum."""

    def body(x, w1, w2):
        return jax.lax.psum(jax.nn.gelu(x @ w1) @ w2, "tp")

    return mlp, _args(), ROW_FIRST_SPECS, P(), per_device(body, mesh, ROW_FIRST_SPECS, P())
