"""Compile-time values passed into device functions, compiled for the GPU
(no GPU needed): they are not parameters of the device function, constants
become constants, and the PTX assembles (nvJitLink)."""
import operator
import re

import numpy as np

from pycuda_jit import cuda, float64, int64, uint32, void


@cuda.jit(device=True)
def apply(op, a, b):
    return op(a, b)


@cuda.jit(device=True)
def scaled_hist(vals, out, n, dtype, op, scale):
    sm = cuda.shared.array(n, dtype)
    t = cuda.threadIdx.x
    if t < n:
        sm[t] = 0
    cuda.syncthreads()
    op(sm, vals[cuda.grid(1)] % n, scale)
    cuda.syncthreads()
    if t < n:
        out[cuda.blockIdx.x, t] = sm[t]


def kernel(vals, out_u, out_f, x, y):
    scaled_hist(vals, out_u, 16, uint32, cuda.atomic.add, 1)
    scaled_hist(vals, out_f, 8, np.float64, cuda.atomic.max, 2.5)
    x[0] = apply(operator.mul, x[0], y[0]) + apply(min, x[1], y[1])


SIG = void(int64[::1], uint32[:, ::1], float64[:, ::1], float64[::1], float64[::1])


def device_functions(ptx):
    """{name: number of parameters} of the .func definitions in the PTX."""
    funcs = {}
    for m in re.finditer(r"\.func\s+(?:\([^)]*\)\s*)?(\w+)\(([^)]*)\)", ptx):
        funcs[m.group(1)] = len(re.findall(r"\.param", m.group(2)))
    return funcs


def test_compile_time_parameters_are_not_passed():
    ptx, _ = cuda.compile_ptx(kernel, SIG, opt=0)
    funcs = device_functions(ptx)
    applies = {n: k for n, k in funcs.items() if n.startswith("apply")}
    hists = {n: k for n, k in funcs.items() if n.startswith("scaled_hist")}
    # apply(op, a, b): op is known, a and b are passed (two specializations).
    assert sorted(applies.values()) == [2, 2], funcs
    # scaled_hist(vals, out, n, dtype, op, scale): dtype and op are not
    # parameters; the arrays are, and so are the constants n and scale
    # (passed, and known inside).
    assert len(hists) == 2 and set(hists.values()) == {4}, funcs
    assert ptx.count(".shared") >= 2


def test_compile_time_arguments_assemble():
    ptx, _ = cuda.compile_ptx(kernel, SIG)
    cubin = cuda.link_ptx(ptx)
    assert cubin[:4] == b"\x7fELF"


@cuda.jit(inline="always")
def set_zero_inlined(a):
    a[0] = 0


@cuda.jit
def set_zero_called(a):
    a[0] = 0


def test_a_kernel_called_from_a_kernel_keeps_its_inline_option():
    # numba-cuda inlines a kernel compiled with inline="always" (or True)
    # where another kernel calls it; without the option it stays a call.
    def caller(a):
        set_zero_inlined(a)
        set_zero_called(a)

    funcs = device_functions(cuda.compile_ptx(caller, "void(int32[::1])", opt=0)[0])
    assert [n for n in funcs if n.startswith("set_zero")] == [
        n for n in funcs if n.startswith("set_zero_called")], funcs
    assert any(n.startswith("set_zero_called") for n in funcs), funcs
