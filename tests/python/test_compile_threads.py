"""compile_ptx and link_ptx from many threads at once.  Both release the
GIL for the work that needs no Python object (code generation; ptxas in
nvJitLink), so threads compile in parallel, sharing the code generator's
process-wide state: libdevice's bytes and its extracts (one per set of
functions, compiler/codegen/Libdevice.cpp), the target registry, the type
factory.  Each thread's result must be the one a compile on its own gives.
Compile-only: no GPU needed."""
import math
from concurrent.futures import ThreadPoolExecutor

from pycuda_jit import cuda

FUNCS = ["sin", "cos", "exp", "log", "tanh", "atan", "sqrt", "erf", "expm1",
         "log1p", "asinh", "cosh"]
COUNT = 24


def _kernel(j):
    """Kernel k{j}: two math functions (libdevice) and a constant of its own."""
    a, b = FUNCS[j % len(FUNCS)], FUNCS[(j * 5 + 1) % len(FUNCS)]
    src = (f"def k{j}(x, out):\n"
           f"    i = cuda.grid(1)\n"
           f"    if i < x.size:\n"
           f"        out[i] = math.{a}(x[i]) * {j + 2}.0 + math.{b}(x[i])\n")
    ns = {"cuda": cuda, "math": math}
    exec(compile(src, f"<k{j}>", "exec"), ns)
    return ns[f"k{j}"]


def _ptx(fn):
    return cuda.compile_ptx(fn, "void(float32[:], float32[:])", cc=(9, 0))[0]


def test_threads_compile_what_one_thread_compiles():
    kernels = [_kernel(j) for j in range(COUNT)]
    with ThreadPoolExecutor(6) as ex:
        concurrent = list(ex.map(_ptx, kernels))
    alone = [_ptx(k) for k in kernels]
    for j, (ptx, want) in enumerate(zip(concurrent, alone)):
        assert f".entry k{j}_" in ptx
        # Every libdevice function was linked in (none left to resolve).
        assert ".extern .func" not in ptx, ptx[:2000]
        assert ptx == want, f"k{j}: PTX compiled on a thread differs"


def test_threads_link_cubins_at_once():
    ptxs = [_ptx(_kernel(j)) for j in range(8)]
    with ThreadPoolExecutor(4) as ex:
        cubins = list(ex.map(lambda p: cuda.link_ptx(p, cc=(9, 0)), ptxs))
    for j, cubin in enumerate(cubins):
        assert cubin[:4] == b"\x7fELF"
        assert f"k{j}_".encode() in cubin  # its own kernel's symbol
