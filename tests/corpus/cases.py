"""Registration of corpus cases.

A language case is a kernel (or a kernel calling device functions) outside
the kernel language; compiling it must raise `expect` (a pycuda_jit
CompileError subclass) naming this file and the line marked `# <- error`.

A host case is a function making one bad launch or host API call on the
line marked `# <- error`; it must raise `expect` from that line (the
innermost frame of the case's file in the traceback).

`xfail="W5: ..."` marks a case another workstream is fixing (strict: the
marker must go when it passes).
"""
import inspect

MARK = "# <- error"

LANG = {}   # module name -> [Case]
HOST = {}


class Case:
    def __init__(self, fn, expect, args, match, xfail, marker_in, kind):
        self.fn = fn
        self.name = fn.__name__
        self.module = fn.__module__
        self.expect = expect
        self.args = args
        self.match = match
        self.xfail = xfail
        # device functions: their Python function
        self.marker_in = [getattr(f, "py_func", f) for f in (marker_in or [fn])]
        self.kind = kind

    def expected_line(self):
        """The line marked `# <- error` in the case (or the functions it
        names in marker_in)."""
        found = []
        for f in self.marker_in:
            lines, start = inspect.getsourcelines(f)
            found += [start + k for k, text in enumerate(lines) if MARK in text]
        if len(found) != 1:
            raise AssertionError(f"{self.name}: expected one '{MARK}' marker, found {len(found)}")
        return found[0]

    def file(self):
        return inspect.getsourcefile(self.marker_in[0])


def lang(expect, args=None, match=None, xfail=None, marker_in=None):
    """A kernel outside the language.  args: a function returning the
    launch arguments (default: one float32 array of 8 elements)."""
    def deco(fn):
        LANG.setdefault(fn.__module__, []).append(
            Case(fn, expect, args, match, xfail, marker_in, "lang"))
        return fn
    return deco


def host(expect, match=None, xfail=None):
    """A bad launch or host API call."""
    def deco(fn):
        HOST.setdefault(fn.__module__, []).append(
            Case(fn, expect, None, match, xfail, None, "host"))
        return fn
    return deco
