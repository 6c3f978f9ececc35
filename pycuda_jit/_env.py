"""Environment variables on the Python side, read in one place.

Every variable pycuda_jit reads is a row of compiler/support/Env.def (name,
default, meaning), which the C++ code reads through support/Env.h; the
Python package reads them only through ``get`` here, which refuses a name
missing from that table.  ``table()`` gives the rows (README.md's
"Environment variables" table is generated from them:
``python tools/gen_env_table.py``).
"""
import os

from ._lazy import core


def table():
    """((name, default, meaning), ...) in Env.def's order."""
    return core().env_vars()


def _names():
    return {name for name, _default, _meaning in table()}


def get(name, default=None):
    """The variable's value, ``default`` when unset; ``name`` must be a row
    of Env.def."""
    if name not in _names():
        raise KeyError(f"{name} is not in compiler/support/Env.def")
    return os.environ.get(name, default)


def snapshot(prefix="PYCUDA_JIT_"):
    """{name: value} of the set variables of the table, and of any other
    starting with ``prefix`` (a misspelt name shows in bug reports)."""
    names = _names()
    return {k: v for k, v in sorted(os.environ.items())
            if k in names or k.startswith(prefix)}
