"""A JAX MLP, w1 sharded by columns and w2 by rows over the mesh axis ``tp``.

``build`` lets XLA partition ``mlp`` (GSPMD); ``build_manual`` checks a per-device program
written with shard_map against it, and ``build_manual_missing_psum`` is that program without its
all-reduce."""

import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P


def mlp(x, w1, w2):
    h = jax.nn.gelu(x @ w1)
    return h @ w2


def _args():
    k1, k2, k3 = jax.random.split(jax.random.PRNGKey(0), 3)
    return (jax.random.normal(k1, (8, 16)), jax.random.normal(k2, (16, 32)), jax.random.normal(k3, (32, 16)))


def build(mesh):
    return mlp, _args(), (P(), P(None, "tp"), P("tp", None))


def _shard_map(body, mesh, out_spec):
    from jax import shard_map

    return shard_map(body, mesh=mesh, in_specs=(P(), P(None, "tp"), P("tp", None)), out_specs=out_spec, check_vma=False)


def build_manual(mesh):
    """The MLP written per device with shard_map (the all-reduce by hand), checked against
    ``mlp`` on the same shardings."""

    def mlp_per_device(x, w1, w2):
        return jax.lax.psum(mlp(x, w1, w2), "tp")

    manual = _shard_map(mlp_per_device, mesh, P())
    return mlp, _args(), (P(), P(None, "tp"), P("tp", None)), P(), jax.jit(manual)


def build_manual_missing_psum(mesh):
    """Bug: the per-device MLP returns its partial product without the psum."""
    manual = _shard_map(mlp, mesh, P())
    return mlp, _args(), (P(), P(None, "tp"), P("tp", None)), P(), jax.jit(manual)
