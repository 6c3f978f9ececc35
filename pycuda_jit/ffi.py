"""Calling CUDA C/C++ and PTX device functions from kernels.

``cuda.declare_device(name, sig, link=..., abi=...)`` declares a device
function defined in foreign code; kernels and device functions call it like
a Python device function.  The code that defines it (``link=``: paths of
``.cu``, ``.ptx``, ``.ltoir``, ``.cubin``, ``.fatbin``, ``.o``, ``.a`` files,
or :class:`CUSource` / :class:`PTXSource` ... objects) is linked with every
kernel that calls it: CUDA C++ is compiled by NVRTC for the kernel's GPU,
and nvJitLink links everything.  The linked files are read at each compile,
so an edited file gives a new cache key, never a stale cubin.

ABIs (as numba-cuda's): ``abi="numba"`` (default) calls
``extern "C" __device__ int name(T *result, args...)`` -- the result through
the pointer, the int a status that is ignored; ``abi="c"`` calls
``extern "C" __device__ T name(args...)``.

On the CPU executor, CUDA C sources are compiled for the host by the
system's C++ compiler with a header of ours (compiler/support/HostCuda.h);
GPU code (PTX, cubin, ...) there raises ``UnsupportedError`` naming the call
and the linked files.
"""
import os

from . import types as _types

__all__ = ["declare_device", "LinkableCode", "CUSource", "PTXSource", "LTOIRSource",
           "CubinSource", "FatbinSource", "ObjectSource", "ArchiveSource",
           "LTOIR", "Cubin", "Fatbin", "Object", "Archive", "ForeignFunction"]


class LinkableCode:
    """Code held in memory, to link with kernels (``link=``).  ``data`` is
    the text or bytes; ``name`` what error messages call it.

    ``setup_callback(module)`` runs once for each module that a kernel linked
    with this code is loaded as (per specialization and device context),
    before its first launch; ``teardown_callback(module)`` when that module
    is unloaded (the context reset by ``cuda.close()`` / ``Context.reset()``,
    or the interpreter exits).  ``module`` is a
    :class:`pycuda_jit._module_callbacks.LoadedModule` (see its doc for what
    ``module.handle`` is on a GPU and on the CPU executor)."""

    kind = None          # how the linker takes it (see ffi module doc)
    default_name = None

    def __init__(self, data, name=None, setup_callback=None, teardown_callback=None):
        if not isinstance(data, (str, bytes, bytearray)):
            raise TypeError(f"{type(self).__name__} takes str or bytes, not "
                            f"{type(data).__name__}")
        for what, fn in (("setup_callback", setup_callback),
                         ("teardown_callback", teardown_callback)):
            if fn is not None and not callable(fn):
                raise TypeError(f"{type(self).__name__}({what}=...) takes a callable "
                                f"or None, not {fn!r}")
        self.data = data
        self.name = name or self.default_name
        self.setup_callback = setup_callback
        self.teardown_callback = teardown_callback

    def _item(self):
        data = self.data.encode() if isinstance(self.data, str) else bytes(self.data)
        return (self.kind, self.name, data)

    def __repr__(self):
        return f"<{type(self).__name__} {self.name}>"

    @staticmethod
    def from_path(path):
        """The code of file ``path`` (read now) as the class its extension
        names: ``.cu`` CUSource, ``.ptx`` PTXSource, ``.ltoir`` LTOIRSource,
        ``.cubin``, ``.fatbin``, ``.o``, ``.a``; ``name`` is the path."""
        path = os.fspath(path)
        kind = _EXTENSIONS.get(os.path.splitext(path)[1].lower())
        if kind is None:
            raise ValueError(f"cannot link {path!r}: the file name must end in one of "
                             + ", ".join(sorted(_EXTENSIONS)))
        with open(path, "rb") as f:
            data = f.read()
        cls = next(c for c in _LINKABLE_CLASSES if c.kind == kind)
        return cls(data.decode() if kind in ("cu", "ptx") else data, name=path)

    @classmethod
    def from_path_or_obj(cls, path_or_obj):
        """``from_path(path_or_obj)`` for a path; a LinkableCode as it is."""
        if isinstance(path_or_obj, LinkableCode):
            return path_or_obj
        return cls.from_path(path_or_obj)


class CUSource(LinkableCode):
    """CUDA C/C++ source text, compiled with NVRTC when linked (for the
    host by the C++ compiler on the CPU executor)."""
    kind, default_name = "cu", "<CUSource>"


class PTXSource(LinkableCode):
    kind, default_name = "ptx", "<PTXSource>"


class LTOIRSource(LinkableCode):
    kind, default_name = "ltoir", "<LTOIRSource>"


class CubinSource(LinkableCode):
    kind, default_name = "cubin", "<CubinSource>"


class FatbinSource(LinkableCode):
    kind, default_name = "fatbin", "<FatbinSource>"


class ObjectSource(LinkableCode):
    kind, default_name = "o", "<ObjectSource>"


class ArchiveSource(LinkableCode):
    kind, default_name = "a", "<ArchiveSource>"


_LINKABLE_CLASSES = (CUSource, PTXSource, LTOIRSource, CubinSource, FatbinSource,
                     ObjectSource, ArchiveSource)

# numba-cuda's names of the same classes (cuda.Cubin, cuda.Archive...).
LTOIR, Cubin, Fatbin, Object, Archive = (LTOIRSource, CubinSource, FatbinSource,
                                         ObjectSource, ArchiveSource)


_EXTENSIONS = {".cu": "cu", ".ptx": "ptx", ".ltoir": "ltoir", ".cubin": "cubin",
               ".fatbin": "fatbin", ".o": "o", ".a": "a"}


def _link_list(link):
    """link= as a list: one item, or a list/tuple/set of them (a set in a
    stable order)."""
    if link is None:
        return []
    if isinstance(link, (str, os.PathLike, LinkableCode)):
        return [link]
    if isinstance(link, (list, tuple)):
        return list(link)
    if isinstance(link, (set, frozenset)):
        return sorted(link, key=lambda x: (type(x).__name__, str(getattr(x, "name", x)),
                                           str(getattr(x, "data", ""))))
    raise TypeError("link= takes a path, a LinkableCode object (cuda.CUSource(...)), "
                    f"or a list of those, not {link!r}")


def _check_link_item(item):
    if isinstance(item, LinkableCode):
        return item
    path = os.fspath(item)
    ext = os.path.splitext(path)[1].lower()
    if ext not in _EXTENSIONS:
        raise ValueError(f"cannot link {path!r}: the file name must end in one of "
                         + ", ".join(sorted(_EXTENSIONS)))
    return path


def read_link_items(items):
    """(kind, name, bytes) per link item, files read now (each compile);
    CUDA C with the headers it includes read in (_cuda_includes)."""
    out = []
    for item in items:
        if isinstance(item, LinkableCode):
            out.append(_with_headers(item._item()))
            continue
        ext = os.path.splitext(item)[1].lower()
        try:
            with open(item, "rb") as f:
                out.append(_with_headers((_EXTENSIONS[ext], item, f.read())))
        except OSError as e:
            raise FileNotFoundError(f"cannot read {item!r}, linked with link=: "
                                    f"{e.strerror}") from None
    return out


def _with_headers(entry):
    kind, name, data = entry
    if kind != "cu":
        return entry
    from ._cuda_includes import expand_includes, search_paths
    from .config import config
    text = data.decode("utf-8", "surrogateescape")
    dirs = search_paths(config.CUDA_NVRTC_EXTRA_SEARCH_PATHS)
    return kind, name, expand_includes(text, name, dirs).encode("utf-8", "surrogateescape")


def link_callbacks(item_lists):
    """(setup, teardown) of each in-memory item of the link lists that has
    either, in order, an item given in several lists once."""
    seen, out = set(), []
    for items in item_lists:
        for x in items:
            if (isinstance(x, LinkableCode) and id(x) not in seen
                    and (x.setup_callback or x.teardown_callback)):
                seen.add(id(x))
                out.append((x.setup_callback, x.teardown_callback))
    return out


class LinkList:
    """cuda.jit(link=[...]): the kernel's own link items; called at each
    compile, it reads the files (a list of (kind, name, bytes))."""

    def __init__(self, link):
        self.items = tuple(_check_link_item(x) for x in _link_list(link))

    def __call__(self):
        return read_link_items(self.items)

    def __eq__(self, other):
        return isinstance(other, LinkList) and self.items == other.items

    def __hash__(self):
        return hash(self.items)

    def __repr__(self):
        return f"LinkList({list(self.items)!r})"


def _parse_signature(sig):
    if isinstance(sig, str):
        ns = {k: getattr(_types, k) for k in dir(_types) if not k.startswith("_")}
        try:
            sig = eval(sig, {"__builtins__": {}}, ns)  # names of pycuda_jit.types only
        except Exception as e:
            raise TypeError(f"cannot read the signature {sig!r}: {e}") from None
    if isinstance(sig, tuple) or (isinstance(sig, _types.Signature) and sig.return_type is None):
        raise TypeError("Return type must be provided for a foreign function: "
                        "write 'int32(float32)', not only the argument types")
    if not isinstance(sig, _types.Signature):
        raise TypeError(f"a foreign function's signature is a string or a signature "
                        f"object such as int32(float32), not {sig!r}")
    return sig


class ForeignFunction:
    """What cuda.declare_device returns: callable from kernels and device
    functions only."""

    def __init__(self, name, sig, link, use_cooperative, abi):
        self.name = name
        self.sig = sig
        self.link = tuple(_check_link_item(x) for x in _link_list(link))
        self.use_cooperative = bool(use_cooperative)
        self.abi = abi
        self.__name__ = self.__qualname__ = name

    def _pcj_foreign_(self):
        """(symbol, signature text, abi, [(kind, name, bytes)...], cooperative)
        for the compiler, the files read now."""
        return (self.name, self.sig.sig_text(), self.abi, read_link_items(self.link),
                self.use_cooperative)

    def __call__(self, *args, **kwargs):
        raise RuntimeError(f"the foreign function '{self.name}' can only be called from a "
                           "kernel or a device function")

    def __repr__(self):
        return f"<pycuda_jit foreign function {self.name} {self.sig!r} abi={self.abi}>"


def declare_device(name, sig, link=None, use_cooperative=False, abi="numba"):
    """Declare the device function ``name`` of foreign code (CUDA C/C++, PTX
    ...) with signature ``sig`` (``"float32(float32, int32)"`` or a signature
    object); ``link`` names the code that defines it, linked with every
    kernel calling it.  ``abi``: "numba" or "c" (module doc).
    ``use_cooperative=True``: the code syncs the grid (cooperative groups'
    ``grid.sync()``), so every kernel calling it is launched cooperatively
    (``kernel.overloads[sig].cooperative``), as a kernel calling
    ``cuda.cg.this_grid().sync()`` is."""
    if not isinstance(name, str) or not name:
        raise TypeError("declare_device(name, sig): name is the function's symbol, a string")
    if abi not in ("numba", "c"):
        raise NotImplementedError(f"Unsupported ABI: {abi!r} (use 'numba' or 'c')")
    return ForeignFunction(name, _parse_signature(sig), link, use_cooperative, abi)
