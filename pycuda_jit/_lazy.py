"""Lazy access to the C++ extension, so that ``import pycuda_jit`` does not
load LLVM or the CUDA driver."""
_core = None


def _site_packages():
    """Every directory NVIDIA's pip wheels (nvidia/cu13/...) may sit in, in
    the order Python imports from them: sys.path (so a --target or
    PYTHONPATH install comes before site-packages, as its Python packages
    do), then the interpreter's site directories not on it."""
    import os
    import site
    import sys
    dirs = [os.path.abspath(p) for p in sys.path if p]  # '.' means the cwd of now
    try:
        dirs += site.getsitepackages()
        dirs.append(site.getusersitepackages())
    except AttributeError:  # a virtualenv's old site.py
        pass
    seen = set()
    out = []
    for d in dirs:
        if d not in seen and os.path.isdir(os.path.join(d, "nvidia")):
            seen.add(d)
            out.append(d)
    return out


def core():
    global _core
    if _core is None:
        from . import _core as mod
        mod.set_site_packages(_site_packages())
        _core = mod
    return _core
