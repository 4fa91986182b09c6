"""The per-device programs of the JAX examples: a function of one device's shards, run on every
device of the mesh by shard_map and compiled by jit, as a user writes a model by hand."""


def per_device(body, mesh, in_specs, out_specs, check_vma=False):
    """``body`` over each device's shards of arguments laid out by ``in_specs``, its results laid
    out by ``out_specs``; jitted. Collectives in ``body`` name the mesh axis ``tp``. A body that
    differentiates through its collectives needs ``check_vma``: JAX then tracks which values vary
    across devices, and transposes a psum of a varying value into a copy, not into another psum."""
    import jax
    from jax import shard_map

    return jax.jit(shard_map(body, mesh=mesh, in_specs=in_specs, out_specs=out_specs, check_vma=check_vma))
