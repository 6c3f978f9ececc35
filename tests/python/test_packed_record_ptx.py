"""A float stored into a packed record field (below its alignment) reaches
the PTX as its bits through an explicit mov, never as `st.b8` of a float
cvt's register (which ptxas mis-stored on the H200 with LLVM 22's PTX: the
low byte came out as the value's integer part).  Compile-only."""
import re

import numpy as np

from pycuda_jit import cuda, typeof

PACKED = np.dtype([("n", np.int8), ("y", np.float32), ("z", np.complex64)], align=False)


def store(a, out):
    i = cuda.grid(1)
    if i < a.size:
        a[i]["y"] = 0.5 * i
        a[i].z = complex(out[i], i)


def test_misaligned_float_stores_go_through_an_integer_mov():
    a = np.zeros(4, PACKED)
    ptx, _ = cuda.compile_ptx(store, (typeof(a), typeof(np.zeros(4))), cc=(9, 0))
    body = ptx[ptx.index(".entry"):]
    stored = re.findall(r"st\.global\.b8\s+\[[^\]]+\],\s*(%r\d+);", body)
    assert stored, body
    defined_by = {m.group(2): m.group(1)
                  for m in re.finditer(r"^\s*([a-z][\w.]*)\s+(%r\d+),", body, re.M)}
    for reg in stored:  # the byte stores take integer-defined registers
        assert not defined_by.get(reg, "").startswith("cvt.rn.f32"), (reg, body)
    assert "mov.b32" in body
