#!/usr/bin/env python3
"""Check your own model: a recipe to copy.

A two-layer model (``TwoLayer`` in ``model.py``) and the same model split by hand
over ``WORLD`` ranks (``TwoLayerTensorParallel``, Megatron style: ``fc1`` column-parallel,
``fc2`` row-parallel, one all-reduce). The script traces both with ``make_fx``
(torch 1.13 or later), writes the three files ``entangle check`` reads into the
folder OUT, and the checker proves the split right, or, with ``--bug`` (the
all-reduce left out), names the G_s operator and the line of ``model.py`` where the
split goes wrong. Run it from the project root with a Python that has torch
(on Debian, ``python3-torch`` for ``/usr/bin/python3``)::

    /usr/bin/python3 examples/own-model/export.py /tmp/own-model
    scripts/entangle check /tmp/own-model/gs.json /tmp/own-model/gd.json --rel /tmp/own-model/ri.json

To check a model of your own, copy this folder, change the two classes in
``model.py``, the input shapes in ``INPUTS`` and the relation in ``RELATION``.
Keep the models in a file of their own: the recorded stack traces keep the
frames of ``source_files`` only, so reports point at your model's lines, not
at the tracing code. What matters:

* trace with ``fx_trace.trace_module``: each parameter becomes an input named
  after it (``fc1.weight`` is the placeholder ``fc1_weight`` with
  ``meta.tag = "fc1.weight"``), so the relation can say ``fc1.weight``, and each
  node keeps the line of your code it comes from (``source_files``), so reports
  point at your lines;
* give each rank's module only its shard of each weight, under the same
  qualified name as the sequential module's whole weight;
* communicate through ``fx_collectives`` (``all_reduce``, ``all_gather``,
  ``reduce_scatter``, ...): tracing then needs no process group, and the graphs
  carry torch 2's functional collectives, which entangle reads;
* trace rank k by running the split model with ``rank=k``, and write all ranks
  into one G_d file with ``export_fx.export_ranks`` and the process group.
"""

import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
sys.path.insert(0, HERE)

import torch  # noqa: E402

import export_fx  # noqa: E402
import fx_collectives as dist  # noqa: E402
import fx_trace  # noqa: E402

from model import HIDDEN, TwoLayer, TwoLayerTensorParallel  # noqa: E402

WORLD = 2
MODEL_FILE = os.path.join(HERE, "model.py")
INPUTS = {"x": (4, HIDDEN)}

# How each G_s input relates to G_d: x is on every rank; rank k holds rows k of
# fc1 (weight and bias, dim 0) and columns k of fc2.weight (dim 1); fc2.bias is
# on every rank.
RELATION = [
    {"gs": "x", "replicate": True},
    {"gs": "fc1.weight", "shard": 0},
    {"gs": "fc1.bias", "shard": 0},
    {"gs": "fc2.weight", "shard": 1},
    {"gs": "fc2.bias", "replicate": True},
]


def trace(module):
    inputs = {name: torch.empty(*shape) for name, shape in INPUTS.items()}
    return fx_trace.trace_module(
        module, inputs, tracing_mode="fake", source_files=[MODEL_FILE], source_root=ROOT)


def main(argv=None):
    parser = argparse.ArgumentParser(description="Writes gs.json, gd.json and ri.json to OUT.")
    parser.add_argument("out", help="the folder to write the three files to")
    parser.add_argument("--bug", action="store_true", help="leave the all-reduce out")
    args = parser.parse_args(argv)
    dist.ensure_registered()
    os.makedirs(args.out, exist_ok=True)
    export_fx.export_graph(trace(TwoLayer()), os.path.join(args.out, "gs.json"))
    ranks = [trace(TwoLayerTensorParallel(k, WORLD, all_reduce=not args.bug))
             for k in range(WORLD)]
    export_fx.export_ranks(ranks, os.path.join(args.out, "gd.json"),
                           process_groups={"tp": list(range(WORLD))})
    with open(os.path.join(args.out, "ri.json"), "w", encoding="utf-8") as f:
        json.dump({"format": "entangle-relation/1", "relations": RELATION}, f, indent=1)
    print(f"wrote {args.out}/gs.json, gd.json (G_d, {WORLD} ranks) and ri.json")


if __name__ == "__main__":
    main()
