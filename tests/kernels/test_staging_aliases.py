"""One NumPy array passed twice to a launch, or two views of one array (found
by review).  On a GPU host arrays are copied to the device for the launch and
back afterwards; each argument had its own device copy, so the kernel's
writes through one were overwritten when the other, unwritten copy was
copied back after it.  Arguments whose host memory overlaps now share one
device copy, so they alias on the device as they do on the host.  (On the
CPU executor host arrays are used in place: these hold there trivially.)"""
import numpy as np
import pytest

from pycuda_jit import cuda


@cuda.jit
def write_first(dst, src):
    i = cuda.grid(1)
    if i < dst.size:
        dst[i] = src[i] * 2.0 + 1.0


@cuda.jit
def write_second(src, dst):
    i = cuda.grid(1)
    if i < dst.size:
        dst[i] = src[i] * 2.0 + 1.0


@pytest.mark.parametrize("kernel", [write_first, write_second])
def test_the_same_array_twice(rng, kernel):
    a = rng.standard_normal(1000)
    expect = a * 2.0 + 1.0
    kernel[8, 128](a, a)
    np.testing.assert_array_equal(a, expect)


@cuda.jit
def mark_even(w, r):
    # writes every other element of w; r (overlapping w) is only read
    i = cuda.grid(1)
    if i < w.size and i % 2 == 0:
        w[i] = 7.0 + r.size * 0.0


@pytest.mark.parametrize("order", ["written_first", "written_last"])
def test_overlapping_views(rng, order):
    a = rng.standard_normal(513)
    expect = a.copy()
    expect[1::2] = 7.0  # w = a[1:]: its even elements are a[1], a[3], ...
    w, r = a[1:], a[:-1]
    if order == "written_first":
        mark_even[5, 128](w, r)
    else:
        # the same kernel body with the arguments swapped in position
        mark_even_swapped[5, 128](r, w)
    np.testing.assert_array_equal(a, expect)


@cuda.jit
def mark_even_swapped(r, w):
    i = cuda.grid(1)
    if i < w.size and i % 2 == 0:
        w[i] = 7.0 + r.size * 0.0


def test_disjoint_arrays_still_staged_separately(rng):
    a = rng.standard_normal(300)
    b = rng.standard_normal(300)
    expect = a * 2.0 + 1.0
    write_first[3, 128](b, a)
    np.testing.assert_array_equal(b, expect)


def test_tuple_member_aliasing_a_plain_argument(rng):
    @cuda.jit
    def k(t, dst):
        i = cuda.grid(1)
        if i < dst.size:
            dst[i] = t[0][i] + 1.0

    a = rng.standard_normal(200)
    expect = a + 1.0
    k[2, 128]((a,), a)
    np.testing.assert_array_equal(a, expect)


@cuda.jit
def shift_serial(src, dst):
    # one thread: dst[i] = src[i] + 1 in order; with src = a[:-1] and
    # dst = a[1:] each step reads what the previous one wrote (no noalias
    # may be assumed for overlapping staged arrays)
    if cuda.grid(1) == 0:
        for i in range(dst.size):
            dst[i] = src[i] + 1.0


def test_overlapping_views_read_what_the_kernel_wrote():
    a = np.zeros(300)
    a[0] = 5.0
    shift_serial[1, 32](a[:-1], a[1:])
    np.testing.assert_array_equal(a, 5.0 + np.arange(300))
