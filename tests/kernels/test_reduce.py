"""cuda.reduce / cuda.Reduce and GPU ufunc .reduce: values against NumPy
and functools.reduce, including operations that are associative but not
commutative (the order of the elements must be kept)."""
import functools

import numpy as np
import pytest

from pycuda_jit import cuda, vectorize

from gpu_util import poisoned

sum_reduce = cuda.Reduce(lambda a, b: a + b)


def last_nonzero(a, b):
    return b if b != 0 else a


def first(a, b):
    return a


# Sizes around a tile (256), a block (8 tiles), several blocks, and odd ones.
SIZES = [1, 2, 15, 255, 256, 257, 2047, 2048, 2049, 34567, 300001]


@pytest.mark.parametrize("n", SIZES)
def test_sum_of_integers_is_exact(n, rng):
    a = rng.integers(-1000, 1000, size=n).astype(np.int64)
    assert sum_reduce(a) == a.sum()
    assert sum_reduce(cuda.to_device(a)) == a.sum()


@pytest.mark.parametrize("n", [1, 300, 5000, 300001])
def test_order_is_kept_for_non_commutative_operations(n, rng):
    a = rng.integers(0, 5, size=n).astype(np.int32)  # many zeros
    want = functools.reduce(last_nonzero, a.tolist(), 0)
    assert cuda.reduce(last_nonzero)(a) == want
    assert cuda.reduce(first)(a, init=a[0]) == a[0]
    # init comes first, as functools.reduce(op, arr, init) puts it.
    assert cuda.reduce(first)(a, init=7) == 7


def test_float_sum_max_prod_and_init(rng):
    a = rng.random(10007)
    np.testing.assert_allclose(sum_reduce(a), a.sum(), rtol=1e-12)
    assert cuda.Reduce(lambda x, y: max(x, y))(a, init=-1.0) == a.max()
    # init takes part: numba-cuda's default init 0 wins over negative values.
    assert cuda.Reduce(lambda x, y: max(x, y))(-a) == 0.0
    assert cuda.Reduce(lambda x, y: min(x, y))(a, init=2.0) == a.min()
    p = np.arange(1, 25, dtype=np.float64)
    np.testing.assert_allclose(cuda.reduce(lambda x, y: x * y)(p, init=1), p.prod())
    assert sum_reduce(np.arange(10, dtype=np.float64) + 1, init=3) == 58.0


@pytest.mark.parametrize("dtype", [np.int8, np.uint16, np.int32, np.uint64, np.float16,
                                   np.float32, np.complex64, np.complex128, np.bool_])
def test_dtypes_keep_their_type(dtype, rng):
    a = (rng.random(3000) * 4).astype(dtype)
    got = cuda.reduce(lambda x, y: x + y)(a)
    assert np.asarray(got).dtype == np.dtype(dtype)
    if np.dtype(dtype).kind in "fc":
        np.testing.assert_allclose(got, a.sum(dtype=dtype), rtol=1e-2 if dtype == np.float16
                                   else 1e-5)
    else:
        assert got == a.sum(dtype=dtype)


def test_size_res_stream_and_empty_arrays():
    a = np.arange(1000, dtype=np.float64)
    assert sum_reduce(a, size=10) == 45.0
    res = cuda.to_device(np.full(3, np.nan))
    assert sum_reduce(a, res=res) is None
    assert res.copy_to_host()[0] == a.sum() and np.isnan(res.copy_to_host()[1])
    stream = cuda.stream()
    assert sum_reduce(cuda.to_device(a, stream=stream), stream=stream) == a.sum()
    empty = np.zeros(0)
    assert sum_reduce(empty) == 0.0
    assert sum_reduce(empty, init=5) == 5.0
    assert sum_reduce(cuda.to_device(empty), res=res, init=2) is None
    assert res.copy_to_host()[0] == 2.0


def test_strided_views_and_device_function_operators(rng):
    a = rng.random(5001)

    @cuda.jit(device=True)
    def add(x, y):
        return x + y

    d = cuda.to_device(a)
    np.testing.assert_allclose(cuda.reduce(add)(d[::3]), a[::3].sum(), rtol=1e-12)


def test_reduce_errors():
    with pytest.raises(TypeError, match="1D"):
        sum_reduce(np.zeros((2, 2)))
    with pytest.raises(TypeError, match="binary function"):
        cuda.Reduce(3)
    with pytest.raises(TypeError, match="cannot reduce"):
        sum_reduce(np.zeros(3, dtype=[("x", np.int32)]))


def test_ufunc_reduce(rng):
    @vectorize(["int32(int32, int32)", "float64(float64, float64)"])
    def add(a, b):
        return a + b

    for n in (1, 8, 100, 1025):
        x = np.arange(n, dtype=np.int32)
        got = add.reduce(x)
        assert got == x.sum() and got.dtype == np.int32
        assert add.reduce(cuda.to_device(x)) == x.sum()
    y = rng.random(777)
    np.testing.assert_allclose(add.reduce(y), y.sum(), rtol=1e-12)
    with pytest.raises(TypeError, match="empty"):
        add.reduce(np.zeros(0, np.int32))
    with pytest.raises(TypeError, match="no signature"):
        add.reduce(np.zeros(3, np.float32))

    @vectorize(["int64(int64, int64)"])
    def keep_last(a, b):
        return b if b != 0 else a

    z = rng.integers(0, 3, size=4000).astype(np.int64)
    assert keep_last.reduce(z) == functools.reduce(last_nonzero, z.tolist())


def test_result_lands_in_a_poisoned_device_array():
    a = np.arange(3000, dtype=np.int32)
    res = cuda.to_device(poisoned(1, np.int32))
    sum_reduce(a, res=res)
    assert res.copy_to_host()[0] == a.sum()


def test_reused_buffers_across_threads_and_a_context_reset(rng):
    """The default-stream scratch buffers are kept per host thread and
    dropped by cuda.close(): concurrent reductions of different data in
    several threads, and reductions after a reset, give their own sums."""
    import threading
    total = cuda.reduce(lambda a, b: a + b)
    # one length (the same number of blocks): the threads would share
    # buffers if they were kept per dtype and size only
    data = [rng.integers(-1000, 1000, size=50_000).astype(np.int64) for _ in range(4)]
    for x in data:  # fill the cache of this thread
        assert total(x) == x.sum()
    got = {}

    def work(i):
        for _ in range(3):
            got.setdefault(i, []).append(total(data[i]))

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert {i: v for i, v in got.items()} == {i: [data[i].sum()] * 3 for i in range(4)}
    cuda.close()
    assert total(data[1]) == data[1].sum()
    assert total(data[2], init=5) == data[2].sum() + 5
    cuda.get_current_device().reset()
    assert total(data[3]) == data[3].sum()
