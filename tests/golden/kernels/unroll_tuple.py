# SIGNATURE: void(float64[::1], (int64, float32, bool))
# `for x in literal_unroll(t)`: one copy of the loop body per element, each
# typed with its element's type (int64, float32, bool), no loop left.
# CHECK-IR: getitem
# CHECK-LLVM: sitofp i64
# CHECK-LLVM: fpext float
# CHECK-LLVM: uitofp i1
# CHECK-PTX: cvt.rn.f64.s64
from pycuda_jit import cuda, literal_unroll


def unroll_tuple(out, t):
    i = cuda.grid(1)
    if i < out.size:
        acc = 0.0
        for x in literal_unroll(t):
            acc = acc * 2.0 + x
        out[i] = acc
