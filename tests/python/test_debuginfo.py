"""debug=True: full DWARF for cuda-gdb, as numba-cuda emits it.  The LLVM IR
has a FullDebug compile unit, a subprogram per function with its
signature's types, a DILocalVariable per Python parameter (llvm.dbg.declare
on a stack slot) and per named local (llvm.dbg.value at each assignment);
the PTX carries the .debug_* sections, and nvJitLink links it with -g.
lineinfo=True keeps line tables only.  Needs no GPU (the golden:
tests/golden/kernels/debuginfo.py; kernels run in tests/kernels/test_debuginfo_run.py)."""
import re

import numpy as np

from pycuda_jit import cuda, float32, float64, from_dtype, types


def metadata(llvm):
    """!N -> the text of metadata node N."""
    return dict(re.findall(r"^!(\d+) = (.*)$", llvm, re.M))


def variables(llvm):
    """name -> (arg number, type node text) of every DILocalVariable."""
    md = metadata(llvm)
    out = {}
    for text in md.values():
        m = re.search(r'DILocalVariable\(name: "([^"]+)"(?:, arg: (\d+))?.*type: !(\d+)', text)
        if m:
            out.setdefault(m.group(1), []).append((int(m.group(2) or 0), md[m.group(3)]))
    return out


def var_id(llvm, name):
    m = re.search(r'^!(\d+) = !DILocalVariable\(name: "%s"' % re.escape(name), llvm, re.M)
    assert m, name
    return m.group(1)


def scalars(a, n, flag, out):
    i = cuda.grid(1)
    total = a * 2
    same = n == 3
    for k in range(n):
        total += k
    if flag:
        total = total + 1
    if i < out.size and same:
        out[i] = total


SCALARS = "void(int32, int64, bool_, float64[::1])"


def test_variables_and_their_types():
    llvm = cuda.compile_stages(scalars, SCALARS, stages=("llvm",), debug=True)["llvm"]
    assert re.search(r"distinct !DICompileUnit\(language: DW_LANG_C_plus_plus.*emissionKind: FullDebug", llvm)
    v = variables(llvm)
    # Parameters: arg 1..4, each once, typed as numba names the types.
    assert v["a"] == [(1, '!DIBasicType(name: "int32", size: 32, encoding: DW_ATE_signed)')]
    assert v["n"] == [(2, '!DIBasicType(name: "int64", size: 64, encoding: DW_ATE_signed)')]
    assert v["flag"] == [(3, '!DIBasicType(name: "bool", size: 8, encoding: DW_ATE_boolean)')]
    assert v["out"][0][0] == 4 and 'name: "array(float64, 1d, C)"' in v["out"][0][1]
    # Locals (arg 0), once each, whatever number of assignments.
    assert v["same"] == [(0, '!DIBasicType(name: "bool", size: 8, encoding: DW_ATE_boolean)')]
    assert v["i"] == [(0, '!DIBasicType(name: "int64", size: 64, encoding: DW_ATE_signed)')]
    assert v["k"][0][0] == 0 and 'name: "int64"' in v["k"][0][1]
    # total: a * 2 is int32 (NEP 50), += k makes it int64: a union of both.
    (arg, ty), = v["total"]
    md = metadata(llvm)
    members = [md[e] for e in re.findall(r"!(\d+)", md[re.search(r"elements: !(\d+)", ty).group(1)])]
    assert arg == 0 and "DW_TAG_union_type" in ty and "size: 64" in ty
    assert [re.search(r'name: "([^"]+)"', t).group(1) for t in members] == ["_int32", "_int64"]
    # Nothing the compiler made up.
    assert not [n for n in v if not n.isidentifier()]


def test_parameters_are_declared_and_locals_get_values():
    llvm = cuda.compile_stages(scalars, SCALARS, stages=("llvm",), debug=True)["llvm"]
    for name in ("a", "n", "flag", "out"):
        assert re.search(r"#dbg_declare\(ptr %%%s\.dbg, !%s," % (name, var_id(llvm, name)), llvm), name
    for name in ("i", "total", "same", "k"):
        assert re.search(r"#dbg_value\([^,]+, !%s," % var_id(llvm, name), llvm), name
    # total is assigned three times (and merged at the loop and the if).
    assert len(re.findall(r"#dbg_value\([^,]+, !%s," % var_id(llvm, "total"), llvm)) >= 4
    # The subprogram's type lists the parameters after a void result.
    sub = re.search(r"!DISubroutineType\(types: !(\d+)\)", llvm).group(1)
    assert re.match(r"!\{null, !\d+, !\d+, !\d+, !\d+\}$", metadata(llvm)[sub])


def test_each_assignment_has_its_line():
    llvm = cuda.compile_stages(scalars, SCALARS, stages=("llvm",), debug=True)["llvm"]
    import inspect
    lines, start = inspect.getsourcelines(scalars)
    want = start + next(k for k, t in enumerate(lines) if "total = total + 1" in t)
    total = var_id(llvm, "total")
    locs = [metadata(llvm)[d] for d in re.findall(r"#dbg_value\([^,]+, !%s, !DIExpression\(\), !(\d+)\)" % total, llvm)]
    assert any("line: %d," % want in loc for loc in locs), locs


def poly(x, out):
    v = 1
    if x > 0:
        v = 2.5
    out[0] = v


def test_a_local_of_several_types_is_a_union():
    llvm = cuda.compile_stages(poly, "void(int32, float64[::1])", stages=("llvm",), debug=True)["llvm"]
    (arg, ty), = variables(llvm)["v"]
    m = re.search(r"DW_TAG_union_type.*elements: !(\d+)", ty)
    assert m, ty
    md = metadata(llvm)
    members = [md[e] for e in re.findall(r"!(\d+)", md[m.group(1)])]
    assert [re.search(r'name: "([^"]+)"', t).group(1) for t in members] == ["_float64", "_int64"]


def arrays(a, b, t):
    s = cuda.shared.array(16, np.float32)
    s[0] = a[0, 0] + t[1]
    b[0] = s[0]


def test_array_and_tuple_types():
    sig = (float32[:, :], float32[::1], types.UniTuple(float32, 2))
    llvm = cuda.compile_stages(arrays, sig, stages=("llvm",), debug=True)["llvm"]
    md = metadata(llvm)
    v = variables(llvm)
    arr = v["a"][0][1]
    assert 'name: "array(float32, 2d, A)"' in arr and "size: 320" in arr
    members = [md[e] for e in re.findall(r"!(\d+)", md[re.search(r"elements: !(\d+)", arr).group(1)])]
    names = [re.search(r'name: "([^"]+)"', t).group(1) for t in members]
    assert names == ["data", "shape", "strides"]
    assert "offset: 64" in members[1] and "offset: 192" in members[2]
    data_ptr = md[re.search(r"baseType: !(\d+)", members[0]).group(1)]
    assert "DW_TAG_pointer_type" in data_ptr
    assert 'name: "float32"' in md[re.search(r"baseType: !(\d+)", data_ptr).group(1)]
    tup = v["t"][0][1]
    assert 'name: "UniTuple(float32 x 2)"' in tup and "size: 64" in tup
    assert "s" in v  # the shared array, a local


def test_ptx_has_dwarf_sections_and_links():
    ptx, _ = cuda.compile_ptx(scalars, SCALARS, debug=True)
    for section in ("debug_info", "debug_abbrev", "debug_loc"):
        assert re.search(r"\.section\s+\.%s\s+\{" % section, ptx), section
    assert re.search(r"^\.target sm_\d+a?, debug$", ptx, re.M)
    # ptxas refuses -O3 on such PTX ("Optimized debugging not supported"):
    # nvJitLink gets -g instead.
    cubin = cuda.link_ptx(ptx)
    assert cubin[:4] == b"\x7fELF" and b".debug_info" in cubin


def test_lineinfo_and_plain_have_no_dwarf():
    for opts in ({"lineinfo": True}, {}):
        ptx, _ = cuda.compile_ptx(scalars, SCALARS, **opts)
        assert ".debug_info" not in ptx and ", debug" not in ptx
        llvm = cuda.compile_stages(scalars, SCALARS, stages=("llvm",), **opts)["llvm"]
        assert "DILocalVariable" not in llvm and "#dbg_" not in llvm
    llvm = cuda.compile_stages(scalars, SCALARS, stages=("llvm",), lineinfo=True)["llvm"]
    assert "emissionKind: DebugDirectivesOnly" in llvm


@cuda.jit(device=True)
def scale(v, f):
    w = v * f
    return w + 1


def calls(x, out):
    y = scale(x[0], 2.0)
    out[0] = y


def test_device_functions_have_their_own_variables():
    llvm = cuda.compile_stages(calls, "void(float32[::1], float32[::1])", stages=("llvm",),
                               debug=True)["llvm"]
    sps = re.findall(r'distinct !DISubprogram\(name: "([^"]+)"', llvm)
    assert "scale" in sps and "calls" in sps
    v = variables(llvm)
    assert [a for a, _ in v["v"]] == [1] and [a for a, _ in v["f"]] == [2]
    assert [a for a, _ in v["w"]] == [0]
    # The callee's variables live in the callee's scope.
    scale_sp = re.search(r'^!(\d+) = distinct !DISubprogram\(name: "scale"', llvm, re.M).group(1)
    assert re.search(r'DILocalVariable\(name: "w", scope: !%s,' % scale_sp, llvm)
    # Inlined into the kernel (opt=3), the callee keeps its scope: its
    # locations are inlinedAt the call, its variables stay its own.
    d = cuda.compile_stages(calls, "void(float32[::1], float32[::1])", stages=("llvm-opt", "ptx"),
                            debug=True)
    opt = d["llvm-opt"]
    assert not re.search(r"define .*@scale_", opt)  # scale was inlined
    scale_sp = re.search(r'^!(\d+) = distinct !DISubprogram\(name: "scale"', opt, re.M).group(1)
    assert re.search(r"!DILocation\(line: \d+, column: \d+, scope: !%s, inlinedAt: !\d+\)" % scale_sp, opt)
    assert re.search(r'DILocalVariable\(name: "w", scope: !%s,' % scale_sp, opt)
    assert re.search(r"\.section\s+\.debug_info", d["ptx"])
    cuda.link_ptx(d["ptx"])
    ptx, _ = cuda.compile_ptx(scale.py_func, "float32(float32, float32)", device=True, debug=True)
    assert re.search(r"\.section\s+\.debug_info", ptx)
    cuda.link_ptx(ptx)


def test_records():
    rec = np.dtype([("a", np.int32), ("b", np.float64)])

    def k(r, out):
        x = r[0]
        out[0] = x.b + x.a

    sig = (from_dtype(rec)[::1], float64[::1])
    llvm = cuda.compile_stages(k, sig, stages=("llvm",), debug=True)["llvm"]
    md = metadata(llvm)
    ty = variables(llvm)["x"][0][1]
    assert "DW_TAG_pointer_type" in ty
    struct = md[re.search(r"baseType: !(\d+)", ty).group(1)]
    members = [md[e] for e in re.findall(r"!(\d+)", md[re.search(r"elements: !(\d+)", struct).group(1)])]
    assert [re.search(r'name: "([^"]+)"', t).group(1) for t in members] == ["a", "b"]
    assert "offset: 32" in members[1] or "offset: 64" in members[1]
