"""Captures a model and its parallelization as entangle's input files.

``entangle_capture.torch_capture`` runs a torch 2 module and its tensor-parallel plan
(``torch.distributed.tensor.parallel``) and writes ``gs.json`` (the sequential module,
exported and decomposed to core ATen), ``gd.json`` (each rank's program, with functional
collectives) and ``ri.json`` (the input relation, from the DTensor placements).
``entangle_capture.jax_capture`` does the same for a JAX function with input shardings,
writing XLA HLO text before and after SPMD partitioning.  ``python -m entangle_capture``
is the command line for both.
"""

__all__ = ["CaptureError"]


class CaptureError(Exception):
    """A model, plan or option that cannot be captured; the message says what to change."""
