"""#include in linked CUDA C: headers next to the .cu file and in
cuda.config.CUDA_NVRTC_EXTRA_SEARCH_PATHS (numba-cuda's setting) are found
on the GPU (NVRTC) and on the CPU executor (the host C++ compiler); an
edited header is a new disk-cache key (pycuda_jit/_cuda_includes.py)."""
import numpy as np
import pytest

from gpu_util import poisoned
from pycuda_jit import cuda, errors


@pytest.fixture
def search_paths():
    saved = cuda.config.CUDA_NVRTC_EXTRA_SEARCH_PATHS
    yield
    cuda.config.CUDA_NVRTC_EXTRA_SEARCH_PATHS = saved


def _tree(tmp_path, scale):
    """src/combine.cu includes "twice.cuh" (beside it) and <shift.cuh>,
    <once.cuh> from two other directories; once.cuh is `#pragma once` and
    included twice."""
    src, inc_a, inc_b = tmp_path / "src", tmp_path / "inc_a", tmp_path / "inc_b"
    for d in (src, inc_a, inc_b):
        d.mkdir()
    (src / "twice.cuh").write_text(
        "template <typename T> __device__ T twice(T a) { return a * %d; }\n" % scale)
    (inc_a / "shift.cuh").write_text(
        "#include <once.cuh>\n#include <once.cuh>\n"
        "__device__ int shift(int a) { return a + kOffset; }\n")
    (inc_b / "once.cuh").write_text("#pragma once\nconstexpr int kOffset = 7;\n")
    cu = src / "combine.cu"
    cu.write_text('#include "twice.cuh"\n#include <shift.cuh>\n'
                  'extern "C" __device__ int combine(int *out, int a)\n'
                  "{ *out = shift(twice(a)); return 0; }\n")
    return cu, f"{inc_a}:{inc_b}"


def _kernel(combine, **options):
    @cuda.jit(**options)
    def k(r):
        i = cuda.grid(1)
        if i < r.size:
            r[i] = combine(i)
    return k


def test_headers_from_the_file_directory_and_the_search_paths(tmp_path, search_paths):
    cu, dirs = _tree(tmp_path, 3)
    cuda.config.CUDA_NVRTC_EXTRA_SEARCH_PATHS = dirs
    combine = cuda.declare_device("combine", "int32(int32)", link=str(cu))
    r = poisoned(200, np.int32)
    _kernel(combine)[2, 128](r)
    np.testing.assert_array_equal(r, 3 * np.arange(200) + 7)


def test_a_header_found_nowhere_names_itself(tmp_path, search_paths):
    cu, _ = _tree(tmp_path, 3)
    cuda.config.CUDA_NVRTC_EXTRA_SEARCH_PATHS = ""
    combine = cuda.declare_device("combine", "int32(int32)", link=str(cu))
    with pytest.raises(errors.BackendError, match="shift.cuh"):
        _kernel(combine)[1, 32](poisoned(32, np.int32))


def test_an_edited_header_is_a_new_cache_key(tmp_path, monkeypatch, search_paths):
    monkeypatch.setenv("PYCUDA_JIT_CACHE_DIR", str(tmp_path / "cache"))
    cu, dirs = _tree(tmp_path, 3)
    cuda.config.CUDA_NVRTC_EXTRA_SEARCH_PATHS = dirs
    combine = cuda.declare_device("combine", "int32(int32)", link=str(cu))

    def run():
        k = _kernel(combine, cache=True)
        r = poisoned(64, np.int32)
        k[1, 64](r)
        return r, k.stats["cache"]

    idx = np.arange(64)
    r, status = run()
    assert status == "miss"
    np.testing.assert_array_equal(r, 3 * idx + 7)
    assert run()[1] == "hit"
    (cu.parent / "twice.cuh").write_text(
        "template <typename T> __device__ T twice(T a) { return a * -5; }\n")
    r, status = run()
    assert status == "miss"
    np.testing.assert_array_equal(r, -5 * idx + 7)
