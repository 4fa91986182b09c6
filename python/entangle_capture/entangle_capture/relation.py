"""The input relation (docs/formats.md, Relation files) from per-tensor placements."""

import json
from dataclasses import dataclass


@dataclass(frozen=True)
class Placement:
    """How one G_s tensor is laid out over the ranks of a one-dimensional mesh.

    ``kind`` is ``shard`` (rank K holds the K-th block along ``dim``), ``replicate`` (every
    rank holds all of it) or ``sum`` (the tensor is the element-wise sum of the ranks' tensors).
    """

    kind: str
    dim: int = 0

    def __post_init__(self):
        if self.kind not in ("shard", "replicate", "sum"):
            raise ValueError(f"unknown placement kind {self.kind!r}")


def relation_entry(name, placement, world, gs_name=None):
    """One entry of ``relations`` for the tensor ``name`` (a node name or tag on both sides), or,
    with ``gs_name``, for G_s's ``gs_name`` held by G_d as ``name`` (a tied parameter)."""
    gs = gs_name or name
    alias = {"as": name} if gs_name else {}
    if placement.kind == "shard":
        return {"gs": gs, "shard": placement.dim, **alias}
    if placement.kind == "replicate":
        return {"gs": gs, "replicate": True, **alias}
    terms = ", ".join(f"r{k}.{_ref(name)}" for k in range(world))
    return {"gs": gs, "gd": f"sum({terms})"}


def _ref(name):
    plain = name.replace("_", "a").replace(".", "a")
    if plain[:1].isalpha() and plain.isalnum():
        return name
    return f"`{name}`"


def expectation(gs_name, gd_names, placement):
    """The ``expect`` entries saying how G_s output ``gs_name`` lies on the ranks' outputs."""
    refs = [f"r{k}.{_ref(n)}" for k, n in enumerate(gd_names)]
    if placement.kind == "replicate":
        return [{"gs": gs_name, "gd": r} for r in refs]
    if placement.kind == "shard":
        return [{"gs": gs_name, "gd": f"concat({', '.join(refs)}, dim={placement.dim})"}]
    return [{"gs": gs_name, "gd": f"sum({', '.join(refs)})"}]


def relation_json(placements, world, expect=None, tied=None):
    """The relation file's object for ``placements``, a list of (name, Placement) pairs, with
    the ``expect`` entries ``expect`` when given. ``tied`` maps the names of G_d tensors that G_s
    holds under another name (a parameter tied to another, untied by the parallelization) to it."""
    tied = tied or {}
    obj = {
        "format": "entangle-relation/1",
        "relations": [relation_entry(n, p, world, tied.get(n)) for n, p in placements],
    }
    if expect:
        obj["expect"] = expect
    return obj


def write_json(obj, path):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(obj, f, indent=1)
        f.write("\n")
