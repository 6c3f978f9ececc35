"""Linked CUDA C that includes the toolkit's headers compiles with NVRTC:
CUDA 13 keeps libcu++ / CUB / Thrust (CCCL) in include/cccl, which
<cooperative_groups.h> and <cuda/barrier> need on the include path beside
include/ (runtime/Nvrtc.cpp).  Compile and link only: no GPU needed."""
import os

import pytest

from pycuda_jit import cuda

SRC = cuda.CUSource("""
#include <cooperative_groups.h>
#include <cuda/std/type_traits>
namespace cg = cooperative_groups;
extern "C" __device__ int grid_rank(int *out, int a)
{
  *out = int(cg::this_grid().thread_rank()) + a * int(cuda::std::is_same<int, int>::value);
  return 0;
}
""", name="grid_rank.cu")
grid_rank = cuda.declare_device("grid_rank", "int32(int32)", link=SRC, use_cooperative=True)


def test_toolkit_headers_compile_and_link():
    def k(r, a):
        r[0] = grid_rank(a)

    ptx, _ = cuda.compile_ptx(k, "void(int32[::1], int32)")
    cubin = cuda.link_ptx(ptx, cc=(9, 0), link=[SRC])
    assert cubin[:4] == b"\x7fELF"
    assert b"grid_rank" in cubin
