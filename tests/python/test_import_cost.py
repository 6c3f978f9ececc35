"""`import pycuda_jit` stays cheap: it loads no heavy or optional module.

The import time itself is a benchmark (benchmarks/launch_compile.py); this
test pins down what made it grow: modules that only a rarely used function
needs (subprocess + tempfile for `disassemble` cost ~10 ms, more than the
rest of the package), optional packages (ml_dtypes, cloudpickle, CuPy,
torch) and the extension, which loads on first use.
"""
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# Modules `import pycuda_jit` must not load (numpy is imported before, so
# what numpy itself loads does not count).
HEAVY = [
    "subprocess", "tempfile", "shutil", "bz2", "lzma", "inspect", "pickle",
    "hashlib", "json", "ml_dtypes", "cloudpickle", "cupy", "torch", "numba",
    "pycuda_jit._core", "pycuda_jit.devicearray", "pycuda_jit.ufunc",
    "pycuda_jit.serialize", "pycuda_jit.reduction", "pycuda_jit.random",
]

PROBE = """
import sys
import numpy
before = set(sys.modules)
import pycuda_jit
from pycuda_jit import cuda
print(repr(sorted(set(sys.modules) - before)))
"""


def _new_modules():
    env = dict(os.environ, PYTHONPATH=ROOT)
    r = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True,
                       text=True, check=True)
    return set(eval(r.stdout.strip().splitlines()[-1]))


def test_import_loads_no_heavy_module():
    new = _new_modules()
    assert "pycuda_jit.cuda" in new  # the probe imported the package
    loaded = sorted(m for m in HEAVY if m in new)
    assert not loaded, f"`import pycuda_jit` loads {loaded}: import them where they are used"


def test_disassemble_still_finds_its_modules():
    # The lazily imported modules are reachable where they are used: a call
    # that fails before running a tool still goes through the import.
    code = ("from pycuda_jit import profiling\n"
            "import json, sys\n"
            "try:\n    profiling.disassemble(b'')\n"
            "except Exception as e:\n    print(json.dumps(type(e).__name__))\n"
            "else:\n    print(json.dumps('ok'))\n")
    env = dict(os.environ, PYTHONPATH=ROOT, PYCUDA_JIT_BACKEND="cpu")
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    name = json.loads(r.stdout.strip().splitlines()[-1])
    # An empty cubin is refused by the tool (RuntimeError) or the tool is
    # missing (ToolNotFoundError); a NameError would mean a lost import.
    assert name in ("RuntimeError", "ToolNotFoundError", "ok"), name
