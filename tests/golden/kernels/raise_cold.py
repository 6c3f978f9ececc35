# SIGNATURE: void(float64[::1], float64[::1])
# OPTIONS: boundscheck=True
# A failing assert or bounds check calls a cold function of its own (one
# per site) that fills the context's error record and exits the thread: the
# kernel keeps no vprintf argument buffer (no local depot) and no trap.  The
# record's address and the site table are globals the host reads and writes.
# CHECK-PTX: .visible .global .align 8 .b8 pcj_error_record[16];
# CHECK-PTX: .visible .global .align 1 .b8 pcj_error_sites[
# CHECK-PTX: .visible .entry raise_cold_
# CHECK-PTX-NOT: {{trap|vprintf|__local_depot}}
# CHECK-PTX: call.uni
# CHECK-PTX-NOT: {{trap|vprintf|__local_depot}}
# CHECK-PTX: .func pcj_$_error(
# CHECK-PTX: .func pcj_$_record(
# CHECK-PTX: ld.global.b64
# CHECK-PTX: atom.{{.*}}cas.b32
# CHECK-PTX: membar.sys;
# CHECK-PTX: exit;
from pycuda_jit import cuda


def raise_cold(a, out):
    i = cuda.grid(1)
    if i < out.size:
        assert a[i] >= 0.0, "negative input"
        out[i] = a[i] * 2.0
