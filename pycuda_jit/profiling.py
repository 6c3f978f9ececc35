"""Profiler control and SASS inspection (numba-cuda names).

``cuda.profile_start()`` / ``cuda.profile_stop()`` (or ``with
cuda.profiling():``) turn a CUDA profiler's collection on and off around a
region, for profilers started with collection off (``nsys profile
--capture-range=cudaProfilerApi``, ``ncu --profile-from-start off``).  On the
CPU executor they do nothing.
"""
import contextlib
import os

from ._lazy import core

__all__ = ["profile_start", "profile_stop", "profiling"]


def profile_start():
    """Start profiler data collection (cuProfilerStart) on the current device."""
    from . import cuda
    cuda.backend()
    core().profile_start()


def profile_stop():
    """Stop profiler data collection (cuProfilerStop) on the current device."""
    from . import cuda
    cuda.backend()
    core().profile_stop()


@contextlib.contextmanager
def profiling():
    """``with cuda.profiling():`` collects profiler data for the block only."""
    profile_start()
    try:
        yield
    finally:
        profile_stop()


def disassemble(cubin):
    """SASS text of a cubin, by nvdisasm (or cuobjdump when there is no
    nvdisasm) from the CUDA toolkit or NVIDIA's pip wheels.  Raises
    errors.ToolNotFoundError (a RuntimeError and a FileNotFoundError)
    naming what to install when neither is found."""
    c = core()
    try:
        tool, args = c.toolkit_file("nvdisasm"), ["-c"]
    except FileNotFoundError as nvdisasm_missing:
        try:
            tool, args = c.toolkit_file("cuobjdump"), ["-sass"]
        except FileNotFoundError:
            from .errors import ToolNotFoundError
            raise ToolNotFoundError(str(nvdisasm_missing)) from None
    # Imported here: subprocess and tempfile (with shutil, bz2, lzma) cost
    # several milliseconds of `import pycuda_jit`.
    import subprocess
    import tempfile
    fd, path = tempfile.mkstemp(suffix=".cubin", prefix="pycuda_jit-")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(cubin)
        r = subprocess.run([tool, *args, path], capture_output=True, text=True)
    finally:
        os.unlink(path)
    if r.returncode != 0:
        raise RuntimeError(f"{os.path.basename(tool)} failed ({tool}): {r.stderr.strip()}")
    return r.stdout
