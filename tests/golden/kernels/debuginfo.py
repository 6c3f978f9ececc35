# SIGNATURE: void(float32, float32[::1], int64)
# OPTIONS: debug=True, opt=0
# debug=True: full DWARF for cuda-gdb (compiler/lower/DebugInfo.cpp).  A
# FullDebug compile unit; the kernel's subprogram at its `def` line with
# its parameter types; each Python parameter a variable (arg: N) on a stack
# slot (#dbg_declare); each named local a variable that every assignment
# gives its value (#dbg_value at the assignment's line), `v` (int64, then
# float32) a union of its types; the PTX has `.target ..., debug` and the
# DWARF sections (shown as the strings they hold: golden_lib.dwarf_summary).
# CHECK-LLVM: #dbg_declare(ptr %a.dbg, [[A:![0-9]+]], !DIExpression(),
# CHECK-LLVM: #dbg_declare(ptr %x.dbg, [[X:![0-9]+]], !DIExpression(),
# CHECK-LLVM: #dbg_declare(ptr %n.dbg, [[N:![0-9]+]], !DIExpression(),
# CHECK-LLVM: #dbg_value(i64 %{{.*}}, [[I:![0-9]+]], !DIExpression(), [[LI:![0-9]+]])
# CHECK-LLVM: distinct !DICompileUnit(language: DW_LANG_C_plus_plus{{.*}}emissionKind: FullDebug
# CHECK-LLVM: distinct !DISubprogram(name: "debuginfo", {{.*}}line: [[@LINE+32]], type: [[SUB:![0-9]+]]
# CHECK-LLVM: [[SUB]] = !DISubroutineType(types: [[SIG:![0-9]+]])
# CHECK-LLVM: [[SIG]] = !{null, [[F32:![0-9]+]], [[ARR:![0-9]+]], [[I64:![0-9]+]]}
# CHECK-LLVM: [[F32]] = !DIBasicType(name: "float32", size: 32, encoding: DW_ATE_float)
# CHECK-LLVM: [[ARR]] = !DICompositeType(tag: DW_TAG_structure_type, name: "array(float32, 1d, C)"
# CHECK-LLVM: [[I64]] = !DIBasicType(name: "int64", size: 64, encoding: DW_ATE_signed)
# CHECK-LLVM: [[A]] = !DILocalVariable(name: "a", arg: 1,{{.*}}line: [[@LINE+26]], type: [[F32]]
# CHECK-LLVM: [[X]] = !DILocalVariable(name: "x", arg: 2,{{.*}}type: [[ARR]]
# CHECK-LLVM: [[N]] = !DILocalVariable(name: "n", arg: 3,{{.*}}type: [[I64]]
# CHECK-LLVM: [[I]] = !DILocalVariable(name: "i",{{.*}}line: [[@LINE+24]], type: [[I64]]
# CHECK-LLVM: !DILocalVariable(name: "v",{{.*}}line: [[@LINE+24]], type: [[V:![0-9]+]])
# CHECK-LLVM: [[V]] = !DICompositeType(tag: DW_TAG_union_type, name: "v$union"
# CHECK-LLVM: [[LI]] = !DILocation(line: [[@LINE+21]],
# CHECK-PTX: .target sm_90, debug
# CHECK-PTX: .section .debug_loc
# CHECK-PTX: .section .debug_abbrev
# CHECK-PTX: .section .debug_info
# CHECK-PTX-NEXT: {
# CHECK-PTX-NEXT: // "pycuda_jit"
# CHECK-PTX-NEXT: // "debuginfo.py"
# CHECK-PTX-NEXT: // "<kernels>"
# CHECK-PTX: // "debuginfo"
# CHECK-PTX: // "{{.*}}a"
# CHECK-PTX-NEXT: // "x"
# CHECK-PTX-NEXT: // "n"
# CHECK-PTX-NEXT: // "i"
# CHECK-PTX-NEXT: // "v"
# CHECK-PTX: // "array(float32, 1d, C)"
# CHECK-PTX: // "v$union"
from pycuda_jit import cuda


def debuginfo(a, x, n):
    i = cuda.grid(1)
    v = n * 2
    if i < x.size:
        v = x[i] * a
        x[i] = v
