"""A data-parallel training step in JAX: a tanh regression whose batch is sharded over the
capture's mesh axis (``tp``, here used for data parallelism), its weights replicated.

``build`` lets XLA partition the step; ``build_manual_pmean`` writes it per device with shard_map,
each device's loss and gradients on its rows averaged by ``pmean``; ``build_manual_psum`` is that
program summing the gradients (``psum``) instead of averaging them, a step as many times too large as there are devices.
"""

import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P
from entangle_capture.examples.per_device import per_device

SPECS = (P(), P(), P("tp", None), P("tp", None))
OUT_SPECS = (P(), P(), P())


def loss(w, b, x, y):
    return jnp.mean((jnp.tanh(x @ w + b) - y) ** 2)


def step(w, b, x, y):
    value, (gw, gb) = jax.value_and_grad(loss, argnums=(0, 1))(w, b, x, y)
    return value, w - 0.1 * gw, b - 0.1 * gb


def _args():
    k = jax.random.split(jax.random.PRNGKey(3), 4)
    return (jax.random.normal(k[0], (16, 8)) * 0.3, jax.random.normal(k[1], (8,)) * 0.1,
            jax.random.normal(k[2], (16, 16)), jax.random.normal(k[3], (16, 8)))


def build(mesh):
    return step, _args(), SPECS, OUT_SPECS


def build_manual_pmean(mesh):
    """Each device's loss and gradients on its rows, averaged over the devices by pmean."""

    def body(w, b, x, y):
        value, (gw, gb) = jax.value_and_grad(loss, argnums=(0, 1))(w, b, x, y)
        value, gw, gb = jax.lax.pmean((value, gw, gb), "tp")
        return value, w - 0.1 * gw, b - 0.1 * gb

    return step, _args(), SPECS, OUT_SPECS, per_device(body, mesh, SPECS, OUT_SPECS)


def build_manual_psum(mesh):
    """Bug: the gradients summed over the devices (psum) instead of averaged."""

    def body(w, b, x, y):
        value, (gw, gb) = jax.value_and_grad(loss, argnums=(0, 1))(w, b, x, y)
        value = jax.lax.pmean(value, "tp")
        gw, gb = jax.lax.psum((gw, gb), "tp")
        return value, w - 0.1 * gw, b - 0.1 * gb

    return step, _args(), SPECS, OUT_SPECS, per_device(body, mesh, SPECS, OUT_SPECS)
