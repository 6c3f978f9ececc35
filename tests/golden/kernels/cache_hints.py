# SIGNATURE: void(float32[:, ::1], float32[:, ::1], int8[::1], float16[::1])
# Cache-hinted accesses are inline PTX with the cache operator: 2-d indices
# go through the usual address computation; 8-bit values use 16-bit
# registers; float16 moves as .b16.
# CHECK-PTX: ld.global.ca.b32
# CHECK-PTX: st.global.cs.b32
# CHECK-PTX: ld.global.lu.b8
# CHECK-PTX: st.global.wb.b8
# CHECK-PTX: ld.global.cv.b16
# CHECK-PTX: st.global.wt.b16
from pycuda_jit import cuda


def cache_hints(out, x, b, h):
    i, j = cuda.grid(2)
    cuda.stcs(out, (i, j), cuda.ldca(x, (i, j)) + cuda.ldcg(x, (j, i)))
    cuda.stwb(b, i, cuda.ldlu(b, j))
    cuda.stwt(h, i, cuda.ldcv(h, -1))
