"""Rewrites the HLO text that current XLA dumps into the classic form ``entangle import`` reads.

Two things differ, neither an instruction: source locations are a table of stack frames
(``FileNames``, ``FunctionNames``, ``FileLocations``, ``StackFrames`` before the computations,
``metadata={... stack_frame_id=K}`` on instructions), which become
``source_file="..." source_line=N`` of the innermost user frame; and collectives over a device
mesh print their groups as ``replica_groups=mesh['x'=2,'y'=4] {'y'}``, which become the explicit
groups ``{{0,1,2,3},{4,5,6,7}}``.  Anything else is kept as it is; a form not understood is an
error, never guessed.
"""

import itertools
import re

from . import CaptureError

_TABLES = ("FileNames", "FunctionNames", "FileLocations", "StackFrames")
_ROW = re.compile(r"^\s*(\d+)\s+(.*)$")
_FIELD = re.compile(r"(\w+)=(\d+)")
_LIBRARY = ("/site-packages/", "/jax/", "/jaxlib/", "/dist-packages/")


def _read_tables(lines):
    tables = {t: {} for t in _TABLES}
    kept = []
    section = None
    for line in lines:
        if line.strip() in _TABLES:
            section = line.strip()
            continue
        if section is not None:
            m = _ROW.match(line)
            if m:
                tables[section][int(m.group(1))] = m.group(2).strip()
                continue
            if line.strip() == "":
                continue
            section = None
        kept.append(line)
    return kept, tables


def _fields(text):
    return {k: int(v) for k, v in _FIELD.findall(text)}


def _frame_source(frame_id, tables):
    """(file, line) of the innermost frame outside JAX and site-packages, else the innermost."""
    seen = set()
    first = None
    while frame_id in tables["StackFrames"] and frame_id not in seen:
        seen.add(frame_id)
        frame = _fields(tables["StackFrames"][frame_id])
        loc = _fields(tables["FileLocations"].get(frame.get("file_location_id", -1), ""))
        name = tables["FileNames"].get(loc.get("file_name_id", -1))
        if name is not None:
            source = (name.strip('"'), loc.get("line", 0))
            first = first or source
            if not any(p in source[0] for p in _LIBRARY):
                return source
        parent = frame.get("parent_frame_id")
        if parent is None or parent == frame_id:
            break
        frame_id = parent
    return first


_STACK_FRAME = re.compile(r"\s*stack_frame_id=(\d+)")
_MESH_GROUPS = re.compile(r"replica_groups=mesh\[([^\]]*)\]\s*\{([^}]*)\}")


def _source_metadata(line, tables):
    def repl(m):
        source = _frame_source(int(m.group(1)), tables)
        if source is None:
            return ""
        return f' source_file="{source[0]}" source_line={source[1]}'

    return _STACK_FRAME.sub(repl, line)


def mesh_groups(axes_text, reduced_text, where):
    """The explicit groups of ``mesh['a'=2,'b'=4] {'b'}``: devices numbered in row-major order
    over the mesh, one group per index of the axes not listed, varying the listed ones."""
    axes = []
    for part in axes_text.split(","):
        m = re.fullmatch(r"\s*'([^']+)'=(\d+)\s*", part)
        if m is None:
            raise CaptureError(f"{where}: the mesh axis {part.strip()!r} is not of the form 'name'=size")
        axes.append((m.group(1), int(m.group(2))))
    names = [a for a, _ in axes]
    reduced = [r.strip().strip("'") for r in reduced_text.split(",") if r.strip()]
    for r in reduced:
        if r not in names:
            raise CaptureError(f"{where}: the group axis {r!r} is not an axis of the mesh {names} (sub-axes are not supported)")
    sizes = [s for _, s in axes]
    strides = [1] * len(sizes)
    for i in range(len(sizes) - 2, -1, -1):
        strides[i] = strides[i + 1] * sizes[i + 1]
    kept = [i for i, a in enumerate(names) if a not in reduced]
    varied = [i for i, a in enumerate(names) if a in reduced]
    groups = []
    for fixed in itertools.product(*[range(sizes[i]) for i in kept]):
        base = sum(f * strides[i] for f, i in zip(fixed, kept))
        group = [base + sum(v * strides[i] for v, i in zip(vs, varied)) for vs in itertools.product(*[range(sizes[i]) for i in varied])]
        groups.append(group)
    return "{" + ",".join("{" + ",".join(map(str, g)) + "}" for g in groups) + "}"


def classic_hlo(text):
    """``text`` with source locations and mesh groups in the classic form (module docstring)."""
    lines, tables = _read_tables(text.split("\n"))
    out = []
    for number, line in enumerate(lines, 1):
        line = _source_metadata(line, tables)
        line = _MESH_GROUPS.sub(lambda m: "replica_groups=" + mesh_groups(m.group(1), m.group(2), f"HLO line {number}"), line)
        if "replica_groups=mesh" in line:
            raise CaptureError(f"HLO line {number}: replica groups in a form not understood: {line.strip()[:200]}")
        out.append(line)
    return "\n".join(out)


_ROOT = re.compile(r"^\s*ROOT\s+%?([^\s=]+)\s*=\s*(.*)$")


def entry_outputs(text):
    """The names of the ENTRY computation's outputs (the ROOT, or the elements of a ROOT tuple)."""
    in_entry = False
    for line in text.split("\n"):
        if line.startswith("ENTRY "):
            in_entry = True
            continue
        if in_entry:
            m = _ROOT.match(line)
            if m:
                # XLA numbers every fifth element of long lists in comments (/*index=5*/)
                rest = re.sub(r"/\*[^*]*\*/", "", m.group(2))
                t = re.match(r"\([^=]*\)\s+tuple\(([^)]*)\)", rest)
                if t:
                    return [o.strip().lstrip("%") for o in t.group(1).split(",") if o.strip()]
                return [m.group(1)]
    raise CaptureError("the HLO module has no ENTRY computation with a ROOT instruction")
