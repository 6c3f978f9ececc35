# SIGNATURE: void(float32[::1], int64[::1], int32[::1], uint32[::1])
# Warp-level intrinsics: llvm.nvvm.shfl.sync.* (64-bit values in two
# halves), vote.sync, match.*.sync, activemask, %laneid, %lanemask_lt.
# CHECK-LLVM: call {{.*}}float @llvm.nvvm.shfl.sync.down.f32(i32 -1,
# CHECK-LLVM: call {{.*}}i32 @llvm.nvvm.vote.ballot.sync(i32 -1,
# CHECK-PTX: shfl.sync.down.b32
# CHECK-PTX: shfl.sync.bfly.b32
# CHECK-PTX: shfl.sync.idx.b32
# CHECK-PTX: shfl.sync.up.b32
# CHECK-PTX: vote.sync.ballot.b32
# CHECK-PTX: vote.sync.all.pred
# CHECK-PTX: match.all.sync.b64
# CHECK-PTX: match.any.sync.b32
# CHECK-PTX: activemask.b32
# CHECK-PTX: %lanemask_lt
# CHECK-PTX: %laneid
from pycuda_jit import cuda

FULL = 0xFFFFFFFF


def warp_ops(x, wide, flags, masks):
    i = cuda.grid(1)
    v = x[i]
    off = 16
    while off > 0:
        v += cuda.shfl_down_sync(FULL, v, off)
        off //= 2
    w = wide[i]
    w += cuda.shfl_xor_sync(FULL, w, 1)
    x[i] = v + cuda.shfl_sync(FULL, v, 0)
    wide[i] = w + cuda.shfl_up_sync(FULL, w, 1)
    flags[i] = cuda.ballot_sync(FULL, v > 0) + cuda.all_sync(FULL, w > 0)
    m, same = cuda.match_all_sync(FULL, w)
    masks[i] = cuda.match_any_sync(FULL, flags[i]) + m + same
    masks[i] += cuda.activemask() + cuda.lanemask_lt() + cuda.laneid + cuda.warpsize
