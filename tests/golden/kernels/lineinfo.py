# SIGNATURE: void(float32, float32[::1], float32[::1], float32[::1])
# OPTIONS: lineinfo=True
# lineinfo=True: the Python file and lines reach the PTX as `.file` / `.loc`
# directives (nvcc -lineinfo style, no DWARF sections), so Nsight Compute
# and compute-sanitizer show Python source lines.  Each check names the
# line of this file it expects (FileCheck's @LINE is this file's line) and
# the column CPython reports, plus one.  (Device functions get their own
# subprograms: tests/python/test_lineinfo.py; their symbols are not stable
# across processes, so no golden shows them.)
# CHECK-LLVM: distinct !DICompileUnit(language: DW_LANG_Python{{.*}}emissionKind: DebugDirectivesOnly
# CHECK-LLVM: !DIFile(filename: "lineinfo.py", directory: "<kernels>")
# CHECK-LLVM: distinct !DISubprogram(name: "lineinfo", linkageName: "lineinfo_{{.*}}line: [[@LINE+13]]
# CHECK-LLVM: !DILocation(line: [[@LINE+15]], column: 18,
# CHECK-PTX: .loc 1 [[@LINE+12]] 9
# CHECK-PTX: .loc 1 [[@LINE+12]] 8
# CHECK-PTX: .loc 1 [[@LINE+12]] 22
# CHECK-PTX: .loc 1 [[@LINE+11]] 29
# CHECK-PTX: .loc 1 [[@LINE+10]] 18
# CHECK-PTX: .loc 1 [[@LINE+9]] 9
# CHECK-PTX: .file 1 "<kernels>/lineinfo.py"
# CHECK-PTX-NOT: .debug_info
from pycuda_jit import cuda


def lineinfo(a, x, y, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = a * x[i] + y[i]
