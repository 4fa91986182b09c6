"""Command line: ``python -m entangle_capture torch|jax ...`` (see README, "Your own model")."""

import argparse
import os
import sys

from . import CaptureError
from .loading import load
from .relation import write_json


def _torch_files(a):
    gs, gd, ri = _torch(a)
    return {"gs.json": gs, "gd.json": gd, "ri.json": ri}


def _torch(a):
    from . import torch_capture

    build = load(a.build, "build function")
    plan = load(a.plan, "plan")
    inputs = load(a.inputs, "input placements") if a.inputs else None
    if callable(inputs):
        inputs = inputs()
    outputs = load(a.outputs, "output placements") if a.outputs else None
    if callable(outputs):
        outputs = outputs()
    return torch_capture.capture(build, plan, a.world, inputs, outputs, a.train)


def _jax(a):
    from . import jax_capture

    files = jax_capture.capture_spec(a.function, a.world)
    return files


def _next_steps(a):
    """The commands that check what was written (entangle's launcher is scripts/entangle)."""
    out = a.output
    if a.front_end == "jax":
        return [f"entangle check {out}/gs.hlo {out}/gd.hlo --ranks {a.world} --rel {out}/ri.json"]
    return [f"entangle check {out}/gs.json {out}/gd.json --rel {out}/ri.json"]


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m entangle_capture", description="Writes gs.json, gd.json and ri.json for `entangle check` from a model and its parallelization.")
    sub = p.add_subparsers(dest="front_end", required=True)
    t = sub.add_parser("torch", help="a torch 2 module and its tensor-parallel plan")
    t.add_argument("build", help="MODULE:FUNCTION returning (module, example_inputs)")
    t.add_argument("--plan", required=True, help="MODULE:NAME, a parallelize_module plan (dict) or a function of the device mesh returning one")
    t.add_argument("--inputs", help="MODULE:NAME, the placements of the forward's inputs (a list, or a function returning one); default: all Replicate()")
    t.add_argument("--outputs", help="MODULE:NAME, the placements the module's outputs should have on the ranks (a list, or a function returning one); default: all Replicate(), every rank returns the whole output")
    t.add_argument("--world", type=int, required=True, help="number of ranks")
    t.add_argument("--train", action="store_true", help="capture forward and backward: both graphs also return the gradients of the sum of the outputs with respect to the parameters")
    t.add_argument("-o", "--output", required=True, help="folder to write gs.json, gd.json and ri.json to")
    j = sub.add_parser("jax", help="a JAX function with input shardings")
    j.add_argument("function", help="MODULE:FUNCTION taking the device mesh (one axis, 'tp') and returning (fn, example_args, in_specs[, out_specs]), the specs PartitionSpecs")
    j.add_argument("--world", type=int, required=True, help="number of CPU devices")
    j.add_argument("-o", "--output", required=True, help="folder to write gs.hlo, gd.hlo and ri.json to (then: entangle check gs.hlo gd.hlo --ranks N --rel ri.json)")
    for s in (t, j):
        s.add_argument("--debug", action="store_true", help="print the traceback of an error")
    a = p.parse_args(argv)
    try:
        files = _torch_files(a) if a.front_end == "torch" else _jax(a)
        os.makedirs(a.output, exist_ok=True)
        for name, content in files.items():
            path = os.path.join(a.output, name)
            if isinstance(content, str):
                with open(path, "w", encoding="utf-8") as f:
                    f.write(content)
            else:
                write_json(content, path)
            print(f"wrote {path}")
        print("then:")
        for line in _next_steps(a):
            print(f"  {line}")
    except CaptureError as e:
        print(f"entangle_capture: {e}", file=sys.stderr)
        return 2
    except Exception as e:  # the user's model, plan or torch/jax failed while capturing
        if a.debug:
            raise
        message = " ".join(str(e).split())
        print(f"entangle_capture: capturing {getattr(a, 'build', None) or a.function} failed: {type(e).__name__}: {message} (run again with --debug for the traceback)", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
