"""A JAX embedding lookup whose table is sharded by rows (vocabulary parallelism) over the mesh
axis ``tp``, the ids replicated.

``build`` lets XLA partition it: each device looks up every id clamped into its rows, zeroes the
rows of ids outside them and the devices' rows are summed. ``build_manual`` is the same written
per device by hand: each device shifts the ids by its first row, clips them into its rows, looks
them up and zeroes the rows of ids outside its rows before the sum. ``jnp.take`` reads an id
outside the table as a row of NaN (and wraps a negative one) where the devices give zeros, so the
two agree for ids within the table only: the relation must say so (``"in_range": [0, 32]`` on the
ids). ``build_manual_unmasked`` forgets the zeroing (each device adds a clamped row for every id
another device holds)."""

import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P
from entangle_capture.examples.per_device import per_device

VOCAB, DIM = 32, 8

IN_SPECS = (P("tp", None), P())


def embed(table, ids):
    return jnp.take(table, ids, axis=0)


def _args():
    k = jax.random.split(jax.random.PRNGKey(6), 2)
    return jax.random.normal(k[0], (VOCAB, DIM)), jax.random.randint(k[1], (4, 6), 0, VOCAB)


def build(mesh):
    return embed, _args(), IN_SPECS, P()


def _by_hand(masked):
    def body(table, ids):
        rows = table.shape[0]
        local = ids - jax.lax.axis_index("tp") * rows
        found = jnp.take(table, jnp.clip(local, 0, rows - 1), axis=0)
        if masked:
            mine = (local >= 0) & (local < rows)
            found = jnp.where(mine[..., None], found, 0.0)
        return jax.lax.psum(found, "tp")

    return body


def build_manual(mesh):
    return embed, _args(), IN_SPECS, P(), per_device(_by_hand(True), mesh, IN_SPECS, P())


def build_manual_unmasked(mesh):
    return embed, _args(), IN_SPECS, P(), per_device(_by_hand(False), mesh, IN_SPECS, P())
