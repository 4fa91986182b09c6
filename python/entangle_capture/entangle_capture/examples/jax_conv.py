"""A JAX convolution, data parallel (samples sharded over the mesh axis ``tp``, the training
step's filter gradient all-reduced) or channel parallel (the filters' output channels sharded).

``build`` lets XLA partition the training step (GSPMD); ``build_channels`` the forward pass with
the filters sharded by output channel; ``build_manual_missing_pmean`` is the training step written
per device with shard_map, its gradient left unreduced (a bug)."""

import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P
from entangle_capture.examples.per_device import per_device


def conv(x, w):
    """A 3x3 convolution of NHWC images by HWIO filters, padded to keep the size."""
    return jax.lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))


def step(x, w, t):
    """The mean squared error of relu(conv(x, w)) against t, and its gradient by the filters."""
    return jax.value_and_grad(lambda w: jnp.mean((jax.nn.relu(conv(x, w)) - t) ** 2))(w)


def _args(batch=8, channels=3, out=4, size=5):
    k1, k2, k3 = jax.random.split(jax.random.PRNGKey(0), 3)
    return (jax.random.normal(k1, (batch, size, size, channels)), jax.random.normal(k2, (3, 3, channels, out)),
            jax.random.normal(k3, (batch, size, size, out)))


def build(mesh):
    return step, _args(), (P("tp"), P(), P("tp")), (P(), P())


def build_channels(mesh):
    x, w, _ = _args(out=8)
    return lambda x, w: jax.nn.relu(conv(x, w)), (x, w), (P(), P(None, None, None, "tp")), P()


def build_manual_missing_pmean(mesh):
    """Bug: each device's loss and gradient over its own samples, never averaged over devices."""
    specs = (P("tp"), P(), P("tp"))
    return step, _args(), specs, (P(), P()), per_device(step, mesh, specs, (P(), P()))
