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
    """The table's names, or None when the extension does not load (a
    broken install: `python -m pycuda_jit info` must still report the
    environment then)."""
    try:
        return {name for name, _default, _meaning in table()}
    except Exception:  # noqa: BLE001 - any import or load failure
        return None


def get(name, default=None):
    """The variable's value, ``default`` when unset; ``name`` must be a row
    of Env.def (checked when the extension loads)."""
    names = _names()
    if names is not None and name not in names:
        raise KeyError(f"{name} is not in compiler/support/Env.def")
    return os.environ.get(name, default)


def snapshot(prefix="PYCUDA_JIT_"):
    """{name: value} of the set variables of the table, and of any other
    starting with ``prefix`` (a misspelt name shows in bug reports)."""
    names = _names() or set()
    return {k: v for k, v in sorted(os.environ.items())
            if k in names or k.startswith(prefix)}
