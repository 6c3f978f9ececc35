# SIGNATURE: void(uint32[::1], int64[::1], float16[::1], float64[::1])
# Bit operations are LLVM intrinsics (popc, brev, clz, ffs via bfind);
# cuda.fp16 arithmetic is native f16 on sm_80, transcendental functions go
# through float32 libdevice.
# CHECK-PTX: popc.b32
# CHECK-PTX: brev.b32
# CHECK-PTX: clz.b64
# CHECK-PTX: max.f16
# CHECK-PTX: fma.rn.f16
# CHECK-PTX: setp.lt.f16
# CHECK-PTX: fma.rn.f64
from pycuda_jit import cuda
from pycuda_jit.cuda import fp16


def bits_fp16(u, w, h, d):
    i = cuda.grid(1)
    u[i] = cuda.popc(u[i]) + cuda.brev(u[i]) + cuda.ffs(u[i])
    w[i] = cuda.clz(w[i])
    a = h[i]
    b = fp16.hfma(a, a, fp16.hmax(a, 1.0))
    h[i] = fp16.hsqrt(b) if fp16.hlt(a, b) else fp16.hneg(b)
    d[i] = cuda.fma(d[i], 2.0, 1.0) + cuda.cbrt(d[i]) + cuda.selp(d[i] > 0, 1.0, 2.0)
