"""cuda.declare_device(use_cooperative=True): foreign code that syncs the
grid makes every kernel calling it a cooperative launch
(overload.cooperative), as cuda.cg.this_grid().sync() does; the flag is
part of the disk-cache key and survives a cache hit."""
import numpy as np
import pytest

from gpu_util import poisoned
from pycuda_jit import cuda

PLUS = cuda.CUSource(
    'extern "C" __device__ int plus(int *out, int a, int b) { *out = a + b; return 0; }',
    name="plus.cu")
plus_coop = cuda.declare_device("plus", "int32(int32, int32)", link=PLUS,
                                use_cooperative=True)
plus_plain = cuda.declare_device("plus", "int32(int32, int32)", link=PLUS)


def _kernel(fn, **options):
    @cuda.jit(**options)
    def k(r, b):
        i = cuda.grid(1)
        if i < r.size:
            r[i] = fn(i, b)
    return k


@pytest.mark.parametrize("fn,cooperative", [(plus_coop, True), (plus_plain, False)])
def test_cooperative_follows_the_declaration(fn, cooperative, rng):
    b = int(rng.integers(-1000, 1000))
    k = _kernel(fn)
    r = poisoned(256, np.int32)
    k[2, 128](r, b)
    np.testing.assert_array_equal(r, np.arange(256) + b)
    (overload,) = k.overloads.values()
    assert overload.cooperative is cooperative
    if cooperative:
        assert overload.max_cooperative_grid_blocks(128) >= 1


def test_cooperative_flag_is_in_the_cache_key(tmp_path, monkeypatch, rng):
    monkeypatch.setenv("PYCUDA_JIT_CACHE_DIR", str(tmp_path / "cache"))
    b = int(rng.integers(-1000, 1000))
    for fn, cooperative, status in [(plus_plain, False, "miss"), (plus_coop, True, "miss"),
                                    (plus_coop, True, "hit"), (plus_plain, False, "hit")]:
        k = _kernel(fn, cache=True)
        r = poisoned(100, np.int32)
        k[1, 128](r, b)
        np.testing.assert_array_equal(r, np.arange(100) + b)
        assert k.stats["cache"] == status
        assert next(iter(k.overloads.values())).cooperative is cooperative


GRID_SYNC = cuda.CUSource("""
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
extern "C" __device__ int exchange(int *out, int *scratch, int i, int n, int shift)
{
  scratch[i] = 3 * i + 1;
  cg::this_grid().sync();
  *out = scratch[(i + shift) % n];
  return 0;
}
""", name="exchange.cu")
exchange = cuda.declare_device("exchange", "int32(CPointer(int32), int32, int32, int32)",
                               link=GRID_SYNC, use_cooperative=True)


def test_foreign_grid_sync_sees_other_blocks(hardware):
    # Each thread reads a value another block wrote before the grid barrier
    # in the foreign code: right only in a cooperative launch.
    @cuda.jit
    def k(r, scratch, shift):
        i = cuda.grid(1)
        r[i] = exchange(scratch, i, r.size, shift)

    threads = 128
    k[1, threads](poisoned(threads, np.int32), poisoned(threads, np.int32), 0)
    (overload,) = k.overloads.values()
    assert overload.cooperative
    blocks = min(8, overload.max_cooperative_grid_blocks(threads))
    assert blocks >= 2
    n = blocks * threads
    shift = threads + 5  # always another block
    r = poisoned(n, np.int32)
    k[blocks, threads](r, poisoned(n, np.int32), shift)
    idx = (np.arange(n) + shift) % n
    np.testing.assert_array_equal(r, 3 * idx + 1)
