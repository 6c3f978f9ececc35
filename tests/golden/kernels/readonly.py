# SIGNATURE: void(float32[::1], float32[::1], float32[::1])
# OPTIONS: assume_noalias=True, max_registers=40, launch_bounds=(256, 2)
# Arrays the kernel only reads are noalias+readonly parameters, loaded
# through the read-only data cache (ld.global.nc) -- launches do this after
# checking the arguments do not overlap.  The written array keeps plain
# loads/stores.  max_registers and launch_bounds become .maxnreg, .maxntid
# and .minnctapersm.
# CHECK-LLVM: ptr addrspace(1) noalias readonly
# CHECK-PTX: .maxntid 256
# CHECK-PTX: .minnctapersm 2
# CHECK-PTX: .maxnreg 40
# CHECK-PTX: ld.global.nc.b32
# CHECK-PTX: st.global.b32
from pycuda_jit import cuda


def readonly(x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = x[i] * y[i] + out[i]
