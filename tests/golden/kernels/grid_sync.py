# SIGNATURE: void(float32[::1], float32[::1])
# Grid sync: the barrier word of the cooperative launch's workspace
# (%envreg1:%envreg2), an atomic add by each block's master thread and a
# volatile spin until the word's top bit flips, between block barriers.
# The master is thread 0 unless it exited (bar.red.popc counts it), else
# the lowest live thread (bar.red.or bit by bit).
# CHECK-LLVM: call void @pcj_grid_sync()
# CHECK-LLVM: call i32 @llvm.nvvm.barrier.cta.red.popc.aligned.all(i32 0,
# CHECK-LLVM: call i1 @llvm.nvvm.barrier.cta.red.or.aligned.all(i32 0,
# CHECK-LLVM: call i32 @llvm.nvvm.read.ptx.sreg.envreg2()
# CHECK-LLVM: call i32 @llvm.nvvm.read.ptx.sreg.envreg1()
# CHECK-PTX: bar.red.popc.u32
# CHECK-PTX: bar.red.or.pred
# CHECK-PTX: mov.b32 {{.*}}%envreg2
# CHECK-PTX: mov.b32 {{.*}}%envreg1
# CHECK-PTX: atom.add.u32
# CHECK-PTX: ld.volatile.b32
# CHECK-PTX: bar.sync 0
from pycuda_jit import cuda


def grid_sync(a, out):
    i = cuda.grid(1)
    a[i] = a[i] * 2.0
    g = cuda.cg.this_grid()
    g.sync()
    out[i] = a[(i + 1) % a.size]
    cuda.cg.this_grid().sync()
    a[i] = out[i]
