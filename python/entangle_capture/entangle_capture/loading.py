"""Finds the user's objects named ``module:attribute`` on the command line."""

import importlib
import os
import sys

from . import CaptureError


def load(spec, what):
    """The object ``spec`` (``pkg.module:attr``) names; the working folder is importable."""
    if ":" not in spec:
        raise CaptureError(f"{what} {spec!r} must be MODULE:NAME, e.g. mymodel:build")
    module_name, attr = spec.split(":", 1)
    cwd = os.getcwd()
    if cwd not in sys.path:
        sys.path.insert(0, cwd)
    try:
        module = importlib.import_module(module_name)
    except ImportError as e:
        raise CaptureError(f"{what} {spec!r}: cannot import module {module_name!r} ({e}); run from the folder that holds it or put it on PYTHONPATH") from e
    obj = module
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise CaptureError(f"{what} {spec!r}: module {module_name!r} has no attribute {attr!r}")
        obj = getattr(obj, part)
    return obj
