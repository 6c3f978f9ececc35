"""lineinfo=True and debug=True: the PTX carries `.file` / `.loc` for the
user's Python file and lines (nvcc -lineinfo style); kernels without them
carry none.  Needs no GPU (tests/golden/kernels/lineinfo.py is the golden)."""
import inspect
import os
import re

from pycuda_jit import cuda

SIG = "void(float32[::1], float32[::1])"


@cuda.jit(device=True)
def halve(v):
    return v * 0.5


def kernel(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = halve(x[i]) + 1.0


def line_of(func, needle):
    lines, start = inspect.getsourcelines(getattr(func, "py_func", func))
    for k, text in enumerate(lines):
        if needle in text:
            return start + k
    raise AssertionError(needle)


def locs(ptx):
    files = dict(re.findall(r'^\s*\.file\s+(\d+)\s+"([^"]*)"', ptx, re.M))
    return files, [(int(f), int(ln), int(c))
                   for f, ln, c in re.findall(r"^\s*\.loc\s+(\d+)\s+(\d+)\s+(\d+)", ptx, re.M)]


def test_lineinfo_names_the_python_file_and_lines():
    d = cuda.compile_stages(kernel, SIG, stages=("llvm", "ptx"), lineinfo=True)
    files, where = locs(d["ptx"])
    assert files == {"1": __file__}
    lines = {ln for _, ln, _ in where if ln}
    body = {line_of(kernel, "i = cuda.grid(1)"), line_of(kernel, "if i < x.size"),
            line_of(kernel, "out[i] = halve")}
    assert body <= lines, (body, lines)
    # Besides: the function's own line (its entry), the device function's.
    assert lines <= body | {line_of(kernel, "def kernel"), line_of(halve, "return v * 0.5")}
    # The device function has its own subprogram at its own lines.
    llvm = d["llvm"]
    assert re.search(r'DISubprogram\(name: "halve".*line: %d,' % line_of(halve, "def halve"), llvm)
    assert "DILocation(line: %d, column: 12," % line_of(halve, "return v") in llvm
    # nvJitLink takes it, keeping the line table (-lineinfo).
    cubin = cuda.link_ptx(d["ptx"], lineinfo=True)
    assert os.path.basename(__file__).encode() in cubin  # .debug_line: name,
    assert os.path.dirname(__file__).encode() in cubin   # and directory


def test_debug_has_line_info_too():
    ptx, _ = cuda.compile_ptx(kernel, SIG, debug=True)
    files, where = locs(ptx)
    assert files == {"1": __file__}
    assert line_of(kernel, "out[i] = halve") in {ln for _, ln, _ in where}


def test_no_line_info_without_the_options():
    ptx, _ = cuda.compile_ptx(kernel, SIG)
    assert ".loc" not in ptx and ".file" not in ptx
    llvm = cuda.compile_stages(kernel, SIG, stages=("llvm",))["llvm"]
    assert "!dbg" not in llvm and "DICompileUnit" not in llvm


def strip_line_info(ptx):
    keep = []
    for line in ptx.splitlines():
        s = line.strip()
        if s.startswith((".loc", ".file", ".section", "$L__func_begin", "$L__func_end", "$L__tmp")):
            continue
        keep.append(line)
    return "\n".join(keep)


def looped(x, out, n):
    i = cuda.grid(1)
    if i < x.size:
        s = 0.0
        for k in range(n):
            s = s * 0.5 + halve(x[(i + k) % x.size])
        out[i] = s


def test_line_info_changes_no_instruction():
    sig = "void(float32[::1], float32[::1], int64)"
    for opts in ({}, {"debug": True}):
        with_lines = cuda.compile_ptx(looped, sig, lineinfo=True, **opts)[0]
        without = cuda.compile_stages(looped, sig, stages=("ptx",), **opts)["ptx"]
        if opts:  # debug=True has line info either way
            assert with_lines == without
            continue
        assert ".loc" in with_lines and ".loc" not in without
        assert strip_line_info(with_lines) == strip_line_info(without)
