"""Checked mode compiled for the GPU (no GPU needed): each check is a site
of the module's error-site table (pcj_error_sites: the class, message,
kernel, file and line the host raises from the error record); a module not
loaded by pycuda_jit (no record) prints Python's exception with the thread
and block through vprintf and traps instead.  The PTX links.  Without
debug=True no check is emitted.  (tests/kernels/test_checked_errors.py raises
the same errors on the CPU executor and on a GPU.)

PYTEST_DONT_REWRITE: pytest's assertion rewriting would turn the kernels'
`assert` statements into Python code kernels cannot compile."""
import re

from pycuda_jit import cuda

SIG = "void(float64[::1], float64[::1], float64[::1], int64[::1])"


def checked(a, b, out, k):
    i = cuda.grid(1)
    if i < a.size:
        t = (1.0, 2.0, 3.0)
        out[i] = a[i] // b[i] + a[i] % b[i] + t[k[i]]


def source_line(fragment):
    with open(__file__) as f:
        return next(n for n, s in enumerate(f, 1) if fragment in s and "source_line" not in s)


def c_string(ptx, prefix):
    """The text of the PTX byte-array global whose contents start with prefix."""
    for m in re.finditer(r"\.b8 [\w$]+\[\d+\] = \{([0-9, ]+)\}", ptx):
        text = bytes(int(x) for x in m.group(1).split(",")).decode(errors="replace")
        text = text.rstrip("\0")
        if text.startswith(prefix):
            return text
    return None


def test_checked_mode_messages_and_trap_in_ptx():
    ptx, _ = cuda.compile_ptx(checked, SIG, debug=True)
    line = source_line("out[i] = a[i] // b[i]")
    msg = c_string(ptx, "ZeroDivisionError: float floor division by zero")
    assert msg == ("ZeroDivisionError: float floor division by zero in kernel 'checked' "
                   f"({__file__}:{line}), thread (%d, %d, %d) block (%d, %d, %d)\n"), msg
    msg = c_string(ptx, "IndexError: tuple index out of range")
    assert msg and f"in kernel 'checked' ({__file__}:{line})" in msg, msg
    assert "trap;" in ptx and "vprintf" in ptx
    cubin = cuda.link_ptx(ptx, cc=(9, 0))
    assert cubin[:4] == b"\x7fELF"


def site_table(ptx):
    """The entries of the module's error-site table (runtime/ErrorRecordAbi.h):
    [error class, exception, message, kernel, file, line, axis, rank]."""
    m = re.search(r"\.b8 pcj_error_sites\[\d+\] = \{([0-9, ]+)\}", ptx)
    if not m:
        return []
    fields = bytes(int(x) for x in m.group(1).split(",")).decode().split("\x1f")
    assert fields[-1] == ""
    return [fields[k:k + 8] for k in range(0, len(fields) - 1, 8)]


def test_site_table_holds_every_check():
    ptx, _ = cuda.compile_ptx(checked, SIG, debug=True)
    line = str(source_line("out[i] = a[i] // b[i]"))
    sites = site_table(ptx)
    where = ["checked", __file__, line]
    assert ["KernelZeroDivisionError", "", "float floor division by zero"] + where + \
        ["-1", "0"] in sites, sites
    assert ["KernelZeroDivisionError", "", "float modulo by zero"] + where + \
        ["-1", "0"] in sites, sites
    assert ["KernelIndexError", "", "tuple index out of range"] + where + ["-1", "0"] in sites
    # Array bounds (debug=True checks them): axis 0 of a 1-d array.
    assert ["KernelIndexError", "", ""] + where + ["0", "1"] in sites, sites
    # A cold function per site (those the optimizer proved unreachable are
    # gone; the table keeps every id).
    assert 0 < len(re.findall(r"^\.func pcj_\$_error\d*\(", ptx, re.M)) <= len(sites)


def test_raise_sites_keep_class_and_message():
    def k(a):
        if a[0] < 0:
            raise OverflowError("too 100% big")
        assert a[0] != 3

    ptx, _ = cuda.compile_ptx(k, "void(float64[::1])")
    sites = site_table(ptx)
    assert sorted(s[:3] for s in sites) == [["", "AssertionError", ""],
                                            ["", "OverflowError", "too 100% big"]], sites
    assert all(s[3] == "test_raise_sites_keep_class_and_message.<locals>.k" for s in sites)
    # The fallback message escapes printf's %.
    assert c_string(ptx, "OverflowError: too 100%% big in kernel")


def test_no_checks_without_debug():
    ptx, _ = cuda.compile_ptx(checked, SIG)
    assert "trap;" not in ptx and "vprintf" not in ptx
    assert c_string(ptx, "ZeroDivisionError") is None
    assert site_table(ptx) == [] and "pcj_error_record" not in ptx


def record_body(ptx):
    body = ptx[ptx.index(".func pcj_$_record("):]
    return body[:body.index("\n}")]


def test_record_exits_the_thread_without_a_trap():
    def k(a):
        i = cuda.grid(1)
        if i < a.size:
            assert a[i] >= 0
            a[i] += 1.0

    ptx, _ = cuda.compile_ptx(k, "void(float64[::1])")
    body = record_body(ptx)
    assert re.search(r"atom(\.\w+)*\.cas\.b32", body) and "membar.sys" in body and "exit;" in body
    assert "trap" not in body


def test_grid_sync_kernels_trap_after_recording():
    # A block whose threads all failed would never reach the grid barrier:
    # such kernels record the error and trap instead of exiting (no hang).
    def k(a):
        i = cuda.grid(1)
        if i < a.size:
            assert a[i] >= 0
        cuda.cg.this_grid().sync()
        if i < a.size:
            a[i] += 1.0

    ptx, _ = cuda.compile_ptx(k, "void(float64[::1])")
    body = record_body(ptx)
    assert re.search(r"atom(\.\w+)*\.cas\.b32", body) and "trap;" in body
