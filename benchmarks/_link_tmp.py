import time, numpy as np, os
from pycuda_jit import cuda
cuda.synchronize()
x = cuda.to_device(np.ones(1024, np.float32)); out = cuda.device_array(1024, np.float32)
srcs = []
for j in range(8):
    ns = {}
    exec(f"""
@cuda.jit
def k{j}(a, x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = a * x[i] * x[i] - a + {j + int(os.environ.get("OFF", "0"))}.0
""", {"cuda": cuda}, ns)
    k = ns[f"k{j}"]
    t = time.perf_counter()
    k[4, 256](np.float32(2.0), x, out)
    cuda.synchronize()
    dt = (time.perf_counter() - t) * 1e3
    tm = k.stats["timings_ms"]
    print(f"kernel {j}: {dt:6.2f} ms  link {tm.get('load.link', 0):6.2f} codegen {tm.get('codegen', 0):5.2f} module {tm.get('load.module', 0):5.2f}")
