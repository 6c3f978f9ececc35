"""The compatibility layer: numba-cuda's test code runs against pycuda_jit.

numba-cuda stays installed and importable as itself: its test
infrastructure (numba.cuda.testing, numba.cuda.tests.support) is imported
normally and sees numba-cuda.  *Test code* -- the test files, their
usecase modules, modules the tests write and import at run time, and code
run through ``python -c`` in child processes -- is executed with its own
``__builtins__``, whose ``__import__`` answers every ``numba...`` import from
the table in pcj_numba_names.  So in a test file

    from numba import cuda                     -> pycuda_jit.cuda (the module)
    from numba.cuda import float32             -> pycuda_jit.cuda.float32, or a
                                                  "missing API" placeholder
    from numba.cuda.testing import CUDATestCase -> numba-cuda's class
    from numba.cuda.core import ir             -> a "numba internals" placeholder

and nothing a test compiles or launches goes through numba-cuda.
``install()`` is called by sitecustomize in every process the runner starts
(and in their children) when PCJ_NUMBA_LAYER=1.
"""
import builtins
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
import sysconfig
import types as pytypes

from pcj_numba_names import CPU, HELPER, INTERNAL, OURS, rule_for

_real_import = builtins.__import__

# Test-tree packages whose modules are test code (the rest of
# numba.cuda.tests -- support.py, the package __init__ files -- is infrastructure).
TEST_PACKAGES = ("numba.cuda.tests.cudapy", "numba.cuda.tests.doc_examples",
                 "numba.cuda.tests.cudadrv")

# The placeholders that were used, as "numba name -> pycuda_jit name" or
# "numba name -> numba internals" (the pytest plugin reads and clears it
# around every test, to name what a failing test touched).
touched = []


class NotProvidedError(AttributeError):
    """A test used a numba name that pycuda_jit does not provide.

    An AttributeError, so that probes (hasattr, getattr with a default) on a
    placeholder see "no such attribute" instead of failing."""


_REASONS = {
    OURS: "missing API: pycuda_jit has no {target}",
    INTERNAL: "numba internals: numba-cuda's implementation is not part of pycuda_jit",
}


class Placeholder:
    """Stands for a numba name that resolves to nothing in pycuda_jit."""

    __slots__ = ("_pcj_name", "_pcj_kind", "_pcj_target")

    def __init__(self, name, kind, target):
        object.__setattr__(self, "_pcj_name", name)
        object.__setattr__(self, "_pcj_kind", kind)
        object.__setattr__(self, "_pcj_target", target)

    def _pcj_fail(self, attr=None):
        touched.append(f"{self._pcj_name} -> "
                       + (self._pcj_target if self._pcj_kind == OURS else "numba internals"))
        name, target = self._pcj_name, self._pcj_target
        if attr:
            name, target = f"{name}.{attr}", target and f"{target}.{attr}"
        tag = "[missing API]" if self._pcj_kind == OURS else "[numba internals]"
        reason = _REASONS[self._pcj_kind].format(target=target)
        raise NotProvidedError(f"{tag} {name}: {reason}")

    def __getattr__(self, attr):
        if attr.startswith("__") and attr.endswith("__"):
            raise AttributeError(attr)  # probes (pytest, inspect, pickle)
        name = f"{self._pcj_name}.{attr}"
        prefix = rule_for(name)[2]
        if prefix and len(prefix) > len(self._pcj_name):  # a rule for this name itself
            return resolve_object(name)
        self._pcj_fail(attr)

    def __setattr__(self, attr, value):
        self._pcj_fail()

    def __call__(self, *args, **kwargs):
        self._pcj_fail()

    def __getitem__(self, key):
        self._pcj_fail()

    def __iter__(self):
        self._pcj_fail()

    def __bool__(self):
        self._pcj_fail()

    def __mro_entries__(self, bases):
        self._pcj_fail()

    def __repr__(self):
        return f"<pycuda_jit layer: {self._pcj_name} not provided ({self._pcj_kind})>"


def _package_modules(package_name):
    """Top-level module names inside an installed package (files and dirs)."""
    try:
        spec = importlib.util.find_spec(package_name)
    except ImportError:
        spec = None
    names = set()
    for loc in (spec.submodule_search_locations or []) if spec else []:
        for entry in os.listdir(loc):
            stem, ext = os.path.splitext(entry)
            path = os.path.join(loc, entry)
            if ext in (".py", ".so"):
                names.add(stem.split(".")[0])
            elif os.path.isdir(path) and any(f.endswith(".py") for f in os.listdir(path)):
                names.add(entry)  # a package, or a namespace package
    return names


_submodules = {}


def _is_module_of(root, name):
    """Whether numba name root.X... names a module X of the real package root."""
    if root not in _submodules:
        _submodules[root] = _package_modules(root)
    rest = name[len(root) + 1:].split(".")[0]
    return rest in _submodules[root]


def _lookup(path):
    """The object at a dotted path (a module, or attributes of the longest
    importable module prefix), or None where there is none."""
    parts = path.split(".")
    for n in range(len(parts), 0, -1):
        modname = ".".join(parts[:n])
        try:
            obj = importlib.import_module(modname)
            break
        except ModuleNotFoundError as e:
            if not e.name or not (modname == e.name or modname.startswith(e.name + ".")):
                raise
    else:
        return None
    for attr in parts[n:]:
        try:
            obj = getattr(obj, attr)
        except AttributeError:
            return None
    return obj


def classify(name):
    """(kind, target) for a dotted numba name, with the module defaults."""
    kind, target, prefix = rule_for(name)
    if prefix in ("numba", "numba.cuda") and name != prefix and _is_module_of(prefix, name):
        return INTERNAL, None
    if kind == OURS:
        target = target + name[len(prefix):]
    return kind, target


def resolve_object(name):
    """What the numba name ``name`` denotes for test code."""
    if name == "numba":
        return View("numba")
    kind, target = classify(name)
    if kind in (HELPER, CPU):
        obj = _lookup(name)
        if obj is None:
            raise ImportError(f"numba has no '{name}'", name=name)
        return obj
    if kind == OURS:
        obj = _lookup(target)
        if obj is not None:
            return obj
    last = name.rsplit(".", 1)[-1]
    if last.endswith(("Error", "Warning", "Exception")):
        return _stand_in_class(name, kind, target)
    return Placeholder(name, kind, target)


_stand_ins = {}


def _stand_in_class(name, kind, target):
    """An exception or warning class pycuda_jit does not have: a class of
    that name that pycuda_jit never raises or warns with, so that
    ``assertRaises``/``pytest.warns`` on it fail as "not raised"."""
    if name not in _stand_ins:
        base = Warning if name.endswith("Warning") else Exception
        what = "missing API" if kind == OURS else "numba internals"
        cls = type(name.rsplit(".", 1)[-1], (base,), {
            "__module__": "pcj_numba_layer.missing",
            "__doc__": f"Stand-in for {name} ({what}: pycuda_jit has no {target or name})."})
        _stand_ins[name] = cls
    return _stand_ins[name]


def import_source(name):
    """The object ``from <name> import x`` reads x from."""
    kind, _ = classify(name) if name != "numba" else (OURS, None)
    if kind in (HELPER, CPU):
        obj = _lookup(name)
        if obj is None:
            raise ModuleNotFoundError(f"No module named '{name}'", name=name)
        return obj
    return View(name)


class View(pytypes.ModuleType):
    """A numba module as test code sees it: attributes resolve by the table."""

    def __getattr__(self, attr):
        if attr.startswith("__") and attr.endswith("__") and attr != "__version__":
            raise AttributeError(attr)
        return resolve_object(f"{self.__name__}.{attr}")

    def __repr__(self):
        return f"<pycuda_jit layer view of {self.__name__}>"


def view_import(name, globals=None, locals=None, fromlist=(), level=0):
    """__import__ for test code."""
    absname = name
    if level:
        package = (globals or {}).get("__package__") or ""
        absname = importlib.util.resolve_name("." * level + name, package)
    if absname != "numba" and not absname.startswith("numba."):
        return _real_import(name, globals, locals, fromlist, level)
    if absname.startswith("numba.cuda.tests.") or absname == "numba.cuda.tests":
        # The test tree is imported for real (test modules through the
        # finder below, which gives them this view too).
        module = _real_import(absname, globals, locals, fromlist, 0)
        return module if fromlist else View("numba")
    source = import_source(absname)
    return source if fromlist else View("numba")


VIEW_BUILTINS = dict(builtins.__dict__)
VIEW_BUILTINS["__import__"] = view_import


# ---- which modules are test code ---------------------------------------------------

def _library_roots():
    roots = {sys.prefix, sys.base_prefix, sys.exec_prefix}
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        path = sysconfig.get_paths().get(key)
        if path:
            roots.add(path)
    roots.update(p for p in sys.path if p.endswith(("site-packages", "dist-packages")))
    here = os.path.dirname(os.path.abspath(__file__))
    roots.add(here)
    repo = os.environ.get("PCJ_NUMBA_REPO")
    if repo:
        roots.add(repo)
    return tuple(os.path.realpath(r) + os.sep for r in roots if r)


_LIBRARY_ROOTS = None


def is_test_code(fullname, origin):
    """Test code: the test tree's modules, and modules outside every library
    directory (those the tests write into temporary directories)."""
    if fullname.startswith(tuple(p + "." for p in TEST_PACKAGES)):
        return True
    if not origin:
        return False
    global _LIBRARY_ROOTS
    if _LIBRARY_ROOTS is None:
        _LIBRARY_ROOTS = _library_roots()
    return not os.path.realpath(origin).startswith(_LIBRARY_ROOTS)


class ViewLoader(importlib.machinery.SourceFileLoader):
    """Executes a test-code module with the view's builtins."""

    def exec_module(self, module):
        module.__builtins__ = VIEW_BUILTINS
        super().exec_module(module)


class TestCodeFinder(importlib.abc.MetaPathFinder):
    """Finds test-code modules (on the path, as Python source) and loads
    them through ViewLoader; everything else goes to the other finders."""

    def find_spec(self, fullname, path, target=None):
        if fullname.startswith(("numba.", "numba_cuda.")) and not fullname.startswith(
                tuple(p + "." for p in TEST_PACKAGES)):
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path, target)
        if (spec is None or spec.submodule_search_locations is not None
                or not isinstance(spec.loader, importlib.machinery.SourceFileLoader)
                or not is_test_code(fullname, spec.origin)):
            return None
        spec.loader = ViewLoader(fullname, spec.origin)
        return spec


finder = TestCodeFinder()


def ensure_first():
    """Keep the finder ahead of others (pytest adds its own at the front)."""
    if sys.meta_path and sys.meta_path[0] is finder:
        return
    if finder in sys.meta_path:
        sys.meta_path.remove(finder)
    sys.meta_path.insert(0, finder)


# ---- numba-cuda's helpers that ask its runtime ask ours ----------------------------

class _OurDevices:
    """Stands in for numba.cuda.cudadrv.devices inside numba.cuda.testing:
    its compute-capability gates (skip_unless_cc_53...) ask pycuda_jit's
    current device, so they do not open numba-cuda's own CUDA context."""

    class _Context:
        @property
        def device(self):
            from pycuda_jit import cuda
            return cuda.get_current_device()

    def get_context(self, devnum=None):
        return self._Context()


def _patch_testing(module):
    module.devices = _OurDevices()


class _NoNRT:
    """Stands in for numba-cuda's NRT (rtsys) inside numba.cuda.tests.support:
    MemoryLeakMixin counts NRT allocations around each test; pycuda_jit has
    no NRT, so the count is zero (instead of starting numba-cuda's runtime,
    which needs its own CUDA context)."""

    class Stats:
        alloc = free = mi_alloc = mi_free = 0

    def memsys_enable_stats(self):
        pass

    def memsys_disable_stats(self):
        pass

    def get_allocation_stats(self):
        return self.Stats()


def _patch_support(module):
    module.rtsys = _NoNRT()


def _patch_libdevicefuncs(module):
    """numba.cuda.libdevicefuncs is test data (test_libdevice generates one
    test per row): its table holds numba-cuda's type objects, and
    create_signature builds numba-cuda signatures.  Test code gets the same
    table in pycuda_jit's type objects (matched by name) and a
    create_signature that builds pycuda_jit signatures."""
    from pycuda_jit import types as ours

    def convert(ty):
        return getattr(ours, str(ty))

    module.functions = {
        name: (convert(ret), [module.arg(a.name, convert(a.ty), a.is_ptr) for a in args])
        for name, (ret, args) in module.functions.items()}

    def create_signature(retty, args):
        results = ([retty] if retty != ours.void else []) + [a.ty for a in args if a.is_ptr]
        ret = results[0] if len(results) == 1 else ours.Tuple(results)
        return ours.signature(ret, *(a.ty for a in args if not a.is_ptr))

    module.create_signature = create_signature


# numba-cuda's config switches that pycuda_jit has (cuda.config): a test's
# override_config (and CUDATestCase.setUp, which turns the warnings off) sets
# them on numba-cuda's config module; they are passed on to ours.
_FORWARDED_CONFIG = ("CUDA_LOW_OCCUPANCY_WARNINGS", "CUDA_WARN_ON_IMPLICIT_COPY",
                     "CUDA_NVRTC_EXTRA_SEARCH_PATHS")


class _ForwardingConfig(pytypes.ModuleType):
    def __setattr__(self, name, value):
        super().__setattr__(name, value)
        if name in _FORWARDED_CONFIG:
            from pycuda_jit import cuda
            setattr(cuda.config, name, value)


def _patch_config(module):
    module.__class__ = _ForwardingConfig


_PATCHES = {"numba.cuda.testing": _patch_testing, "numba.cuda.tests.support": _patch_support,
            "numba.cuda.libdevicefuncs": _patch_libdevicefuncs,
            # numba.cuda.core.config is numba's own config module here
            "numba.core.config": _patch_config, "numba.cuda.core.config": _patch_config}


class _PatchFinder(importlib.abc.MetaPathFinder):
    """Applies _PATCHES right after numba-cuda's module executes."""

    def find_spec(self, fullname, path, target=None):
        patch = _PATCHES.get(fullname)
        spec = patch and importlib.machinery.PathFinder.find_spec(fullname, path, target)
        if not spec:
            return None
        real_exec = spec.loader.exec_module

        def exec_module(module):
            real_exec(module)
            patch(module)

        spec.loader.exec_module = exec_module
        return spec


_installed = False


def install():
    global _installed
    if _installed:
        return
    _installed = True
    os.environ["NUMBA_ENABLE_CUDASIM"] = "0"
    try:
        import numpy
        if not hasattr(numpy, "row_stack"):  # numba-cuda 0.30.4 under NumPy >= 2.5
            numpy.row_stack = numpy.vstack
    except ImportError:
        pass
    sys.meta_path.insert(0, _PatchFinder())
    ensure_first()
    # Code run with ``python -c`` (child processes of tests) is test code too.
    main = sys.modules.get("__main__")
    if main is not None:
        main.__dict__["__builtins__"] = VIEW_BUILTINS
