"""The sanitizer corpus's building blocks (corpus.py says what the corpus
is): the Case registry CASES, the @case decorator, launches and checks."""
import inspect
import os
import sys
from collections import namedtuple

import numpy as np

# The repository root, for pycuda_jit when corpus.py runs as a script.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

FULL = 0xFFFFFFFF
f32 = np.float32

Launch = namedtuple("Launch", "grid block args shared check")


def launch(grid, block, args, shared=0, check=None):
    return Launch(grid, block, args, shared, check)


class Case:
    def __init__(self, name, kind, buggy, fixed, setup, what):
        self.name, self.kind, self.buggy, self.fixed = name, kind, buggy, fixed
        self.setup, self.what = setup, what

    def marked_lines(self):
        """Absolute source lines of the buggy kernel marked ``# !<kind>``."""
        lines, first = inspect.getsourcelines(self.buggy)
        tag = "# !" + self.kind
        return {first + k for k, text in enumerate(lines) if text.rstrip().endswith(tag)}


CASES = {}


def case(name, kind, buggy, fixed, what):
    def register(setup):
        assert name not in CASES, name
        CASES[name] = Case(name, kind, buggy, fixed, setup, what)
        return setup
    return register


def allclose(out, ref, rtol=1e-5, atol=1e-6):
    """A check that `out` (an array, or a function returning one) equals ref."""
    def check():
        got = out() if callable(out) else out
        np.testing.assert_allclose(np.asarray(got), ref, rtol=rtol, atol=atol)
    return check


def poisoned(shape, dtype=f32):
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return np.full(shape, np.nan, dtype)
    return np.full(shape, np.iinfo(dtype).min + 7, dtype)


TILE = 16  # tiled kernels: TILE x TILE blocks
