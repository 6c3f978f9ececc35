"""Installs the pycuda_jit layer (pcj_numba_layer) in every process the
numba-suite runner starts, and in their child processes (multiprocessing,
``python -c`` snippets of the tests), when PCJ_NUMBA_LAYER=1.  This
directory is first on their PYTHONPATH; an interpreter's own sitecustomize,
if it has one, still runs afterwards."""
import importlib.machinery
import importlib.util
import os
import sys

_here = os.path.dirname(os.path.abspath(__file__))

if os.environ.get("PCJ_NUMBA_LAYER") == "1":
    import pcj_numba_layer

    pcj_numba_layer.install()

_others = [p for p in sys.path if os.path.abspath(p or ".") != _here]
_spec = importlib.machinery.PathFinder.find_spec("sitecustomize", _others)
if _spec is not None and _spec.loader is not None:
    _module = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(_module)
