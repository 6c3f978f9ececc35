"""The headers of linked CUDA C sources, read into the source text.

A ``.cu`` file (or ``cuda.CUSource``) linked with ``link=`` is compiled by
NVRTC for the GPU and by the system's C++ compiler for the CPU executor,
from memory.  Its ``#include`` lines are resolved here, before either
compiler sees it, against

* for ``#include "name"``: the including file's own directory, then
* the directories of ``cuda.config.CUDA_NVRTC_EXTRA_SEARCH_PATHS``
  (``:``-separated, numba-cuda's setting), for both forms.

A header found there is read into the text in place of its ``#include``
line, between ``#line`` markers (the compilers' messages name the header's
file and line), so that

* both backends compile the same text with no include path of their own,
  and
* the cache key, which hashes the text, changes when a header changes (an
  edited header never gives a stale cubin).

Headers found nowhere (the toolkit's ``<cooperative_groups.h>``,
``<cuda_fp16.h>`` ...) keep their ``#include`` line for the compiler to
resolve.  ``#pragma once`` becomes a macro guard, which stays right inside
``#if`` blocks; an ``#include`` of a header already being read (a cycle,
legal only when guarded) is dropped.  An ``#include`` spelled with a macro
is left alone.

    expand_includes('#include "add.cuh"\\nint f();\\n', "/src/k.cu", [])
    # -> '#line 1 "/src/add.cuh"\\n<add.cuh>\\n#line 2 "/src/k.cu"\\nint f();\\n'
"""
import hashlib
import os
import re

__all__ = ["expand_includes", "search_paths"]

_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*(?:"([^"\n]+)"|<([^>\n]+)>)')
_PRAGMA_ONCE = re.compile(r"^[ \t]*#[ \t]*pragma[ \t]+once\b.*$", re.MULTILINE)

# Deeper nesting than this is a header including itself through macros we
# do not evaluate: an error naming the chain.
_MAX_DEPTH = 200


def search_paths(value):
    """The directories of a CUDA_NVRTC_EXTRA_SEARCH_PATHS value: a
    ``:``-separated string (empty entries ignored) or a list of paths."""
    if value is None:
        return []
    if isinstance(value, (str, bytes, os.PathLike)):
        value = os.fsdecode(value).split(":")
    elif isinstance(value, (list, tuple)):
        value = [os.fsdecode(v) for v in value]
    else:
        raise TypeError("CUDA_NVRTC_EXTRA_SEARCH_PATHS is a ':'-separated string of "
                        f"directories or a list of them, not {value!r}")
    return [v for v in value if v]


def _line_marker(line, name):
    quoted = name.replace("\\", "\\\\").replace('"', '\\"')
    return f'#line {line} "{quoted}"\n'


def _find(header, quoted, including, dirs):
    here = ([os.path.dirname(os.path.abspath(including))]
            if quoted and os.path.isfile(including) else [])
    for d in here + list(dirs):
        path = os.path.join(d, header)
        if os.path.isfile(path):
            return os.path.abspath(path)
    return None


def _read(path):
    try:
        with open(path, encoding="utf-8", errors="surrogateescape") as f:
            return f.read()
    except OSError as e:
        raise FileNotFoundError(f"cannot read the header {path!r}: {e.strerror}") from None


def _guarded(text, path):
    """``#pragma once`` as a macro guard (exact inside #if blocks too)."""
    if not _PRAGMA_ONCE.search(text):
        return text
    macro = "__PCJ_ONCE_" + hashlib.sha256(path.encode()).hexdigest()[:16]
    body = _PRAGMA_ONCE.sub("", text)
    if not body.endswith("\n"):
        body += "\n"
    return f"#ifndef {macro}\n#define {macro}\n{body}#endif\n"


def _expand(text, name, dirs, stack):
    if len(stack) > _MAX_DEPTH:
        raise ValueError("#include nested more than %d deep: %s" % (
            _MAX_DEPTH, " -> ".join(stack[-5:])))
    out = []
    lines = text.splitlines(keepends=True)
    for number, line in enumerate(lines, 1):
        m = _INCLUDE.match(line)
        path = m and _find(m.group(1) or m.group(2), m.group(1) is not None, name, dirs)
        if not path:
            out.append(line)
            continue
        if path in stack:
            out.append(f"/* {line.strip()}: already being read (a guarded cycle) */\n")
            continue
        header = _guarded(_read(path), path)
        body = _expand(header, path, dirs, stack + [path])
        if body and not body.endswith("\n"):
            body += "\n"
        out.append(_line_marker(1, path) + body + _line_marker(number + 1, name))
    return "".join(out)


def expand_includes(text, name, dirs):
    """``text`` (the source called ``name``, a path for files) with the
    headers it includes that are found (module doc) read in."""
    if "include" not in text:
        return text
    start = [os.path.abspath(name)] if os.path.isfile(name) else []
    return _expand(text, name, list(dirs), start)
