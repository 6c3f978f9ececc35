# SIGNATURE: void(int64[::1], int64)
# while/break/continue and range with a step become phis of one type.
# CHECK-IR: phi
# CHECK-TYPED: phi {{.*}} : int64
# CHECK-PTX: .visible .entry loops_
from pycuda_jit import cuda


def loops(out, n):
    i = cuda.grid(1)
    if i >= out.size:
        return
    total = 0
    for k in range(0, n, 3):
        if k % 2 == 0:
            continue
        total += k
    j = i
    while j > 0:
        if j == 5:
            break
        total += j
        j -= 1
    out[i] = total
