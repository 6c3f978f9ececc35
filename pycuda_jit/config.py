"""``cuda.config``: run-time switches under numba-cuda's names.

``CUDA_LOW_OCCUPANCY_WARNINGS``: a ``PerformanceWarning`` when a kernel is
configured with fewer than 128 blocks (``kernel[1, 32]``).
``CUDA_WARN_ON_IMPLICIT_COPY``: a ``PerformanceWarning`` when a launch gets
a host (NumPy, also pinned) array, which it copies to the device and back;
device, mapped and managed arrays are not copied.  Both start from
``PYCUDA_JIT_LOW_OCCUPANCY_WARNINGS`` / ``PYCUDA_JIT_WARN_ON_IMPLICIT_COPY``
(on unless ``0``, as numba-cuda's defaults) and take 0/1 or booleans at run
time; the launcher reads them in C++ (PerfWarnings.cpp).
``CUDA_NVRTC_EXTRA_SEARCH_PATHS``: directories (a ``:``-separated string)
where the ``#include`` lines of linked CUDA C (``link=``,
``cuda.declare_device``) are looked up, on the GPU and on the CPU executor
(_cuda_includes.py); read at each compile.  Empty by default.
"""
from ._lazy import core

__all__ = ["config"]


class CudaConfig:
    """The switches (see the module doc); an instance is ``cuda.config``."""

    __slots__ = ("_nvrtc_search_paths",)

    def __init__(self):
        self._nvrtc_search_paths = ""

    @property
    def CUDA_NVRTC_EXTRA_SEARCH_PATHS(self):
        return self._nvrtc_search_paths

    @CUDA_NVRTC_EXTRA_SEARCH_PATHS.setter
    def CUDA_NVRTC_EXTRA_SEARCH_PATHS(self, value):
        from ._cuda_includes import search_paths
        search_paths(value)  # a TypeError for anything but a string or a list
        self._nvrtc_search_paths = value

    @property
    def CUDA_LOW_OCCUPANCY_WARNINGS(self):
        return int(core().performance_warnings()[0])

    @CUDA_LOW_OCCUPANCY_WARNINGS.setter
    def CUDA_LOW_OCCUPANCY_WARNINGS(self, value):
        core().set_performance_warnings(bool(value), core().performance_warnings()[1])

    @property
    def CUDA_WARN_ON_IMPLICIT_COPY(self):
        return int(core().performance_warnings()[1])

    @CUDA_WARN_ON_IMPLICIT_COPY.setter
    def CUDA_WARN_ON_IMPLICIT_COPY(self, value):
        core().set_performance_warnings(core().performance_warnings()[0], bool(value))

    def __repr__(self):
        return (f"<pycuda_jit cuda.config CUDA_LOW_OCCUPANCY_WARNINGS="
                f"{self.CUDA_LOW_OCCUPANCY_WARNINGS} CUDA_WARN_ON_IMPLICIT_COPY="
                f"{self.CUDA_WARN_ON_IMPLICIT_COPY}>")


config = CudaConfig()
