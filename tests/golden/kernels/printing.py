# SIGNATURE: void(float32[::1], int32)
# print() builds one format string at compile time and calls vprintf with a
# buffer laid out like CUDA's (each argument aligned to its own size).
# CHECK-LLVM: c"x[ %lld ] = %f (n= %lld )\0A\00"
# CHECK-LLVM: call i32 @vprintf(
# CHECK-PTX: .extern .func  (.param .b32 func_retval0) vprintf
# CHECK-PTX: call.uni (retval0),
from pycuda_jit import cuda


def printing(x, n):
    i = cuda.grid(1)
    if i < n:
        print("x[", i, "] =", x[i], "(n=", n, ")")
