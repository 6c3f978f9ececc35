"""Checked mode compiled for the GPU (no GPU needed): each check prints
Python's exception with the kernel, file, line, thread and block through
vprintf and traps; the PTX links.  Without debug=True no check is emitted.
(tests/gpu/test_checked_errors.py runs the same checks on the CPU executor
and, on a GPU, the trap itself.)"""
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


def test_no_checks_without_debug():
    ptx, _ = cuda.compile_ptx(checked, SIG)
    assert "trap;" not in ptx and "vprintf" not in ptx
    assert c_string(ptx, "ZeroDivisionError") is None
