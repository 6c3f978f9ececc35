# SIGNATURE: void(int32[::1], float32[::1])
# Synchronization: bar.red.popc/and/or for syncthreads_count/_and/_or,
# bar.warp.sync, membar.{cta,gl,sys}, nanosleep.
# CHECK-LLVM: call i32 @llvm.nvvm.barrier.cta.red.popc.aligned.all
# CHECK-PTX: bar.red.popc.u32
# CHECK-PTX: bar.red.and.pred
# CHECK-PTX: bar.red.or.pred
# CHECK-PTX: bar.warp.sync
# CHECK-PTX: membar.cta
# CHECK-PTX: membar.gl
# CHECK-PTX: membar.sys
# CHECK-PTX: nanosleep.u32
from pycuda_jit import cuda


def sync_ops(counts, x):
    i = cuda.grid(1)
    p = x[i] > 0.5
    n = cuda.syncthreads_count(p)
    a = cuda.syncthreads_and(p)
    o = cuda.syncthreads_or(p)
    cuda.syncwarp(0xFFFFFFFF)
    cuda.threadfence_block()
    counts[i] = n + 2 * a + 4 * o
    cuda.threadfence()
    cuda.threadfence_system()
    cuda.nanosleep(100)
    cuda.syncwarp()
