# SIGNATURE: void(float32[::1], float64[::1], int32[::1])
# cuda.libdevice.NAME is a direct call of libdevice's __nv_NAME with its
# bitcode signature; out-pointer parameters are stack slots read back into
# the result tuple (sincosf, frexp).  The functions are linked from
# libdevice.10.bc and inlined, so the PTX has no calls left.
# CHECK-TYPED: UniTuple(float32 x 2) [cuda.libdevice.sincosf]
# CHECK-LLVM: call void @__nv_sincosf(float {{.*}}, ptr {{.*}}, ptr {{.*}})
# CHECK-LLVM: call float @__nv_fadd_rz(float
# CHECK-LLVM: call double @__nv_frexp(double {{.*}}, ptr
# CHECK-LLVM: call i32 @__nv_byte_perm(i32
# CHECK-LLVM: call i32 @__nv_double2int_rd(double
# CHECK-PTX: add.rz.f32
# CHECK-PTX: prmt.b32
# CHECK-PTX: cvt.rmi.s32.f64
# CHECK-PTX-NOT: call.uni
from pycuda_jit import cuda
from pycuda_jit.cuda import libdevice


def libdevice_calls(f, d, n):
    i = cuda.grid(1)
    s, c = libdevice.sincosf(f[i])
    f[i] = libdevice.fadd_rz(s, c)
    m, e = libdevice.frexp(d[i])
    d[i] = m
    n[i] = libdevice.byte_perm(n[i], e, n[i] & 0x7777) + libdevice.double2int_rd(d[i])
