"""``python -m pycuda_jit info``: everything about this installation that a
bug report needs (like ``numba -s``): versions, which CUDA toolkit pieces
were found where (and what to install for a missing one), the driver, each
GPU, the backend chosen and why, the disk cache.

Each section is gathered on its own; a failure is reported in its place
instead of ending the report.
"""
import os
import platform
import sys

from . import _env
from ._lazy import core


def _section(fn):
    try:
        return fn()
    except Exception as e:  # noqa: BLE001 - reported, never raised
        return {"error": f"{type(e).__name__}: {e}"}


def _package():
    import pycuda_jit
    here = os.path.dirname(os.path.abspath(pycuda_jit.__file__))
    c = core()
    plugin = os.path.join(here, "libpcj_codegen.so")
    return {
        "version": pycuda_jit.__version__,
        "location": here,
        "extension": os.path.abspath(c.__file__),
        "codegen": plugin,
        "codegen_bytes": os.path.getsize(plugin) if os.path.exists(plugin) else None,
        "build_id": c.build_id(),
    }


def _python():
    out = {
        "version": platform.python_version(),
        "implementation": platform.python_implementation(),
        "executable": sys.executable,
        "platform": platform.platform(),
        "machine": platform.machine(),
        "libc": " ".join(platform.libc_ver()),
    }
    try:
        import numpy
        out["numpy"] = numpy.__version__
    except ImportError:
        out["numpy"] = None
    return out


def _toolkit():
    c = core()
    env = {v: _env.get(v) for v in ("CUDA_HOME", "CUDA_PATH", "PYCUDA_JIT_SYSTEM_CUDA")}
    return {"env": env, "system_search": _env.get("PYCUDA_JIT_SYSTEM_CUDA") != "0",
            "pieces": c.toolkit_report()}


def _driver():
    return core().driver_report()


def _gpus():
    c = core()
    visible = _env.get("CUDA_VISIBLE_DEVICES")
    out = []
    for i in range(c.cuda_device_count()):
        d = c.device_info(i, True)
        name = d["name"]
        cc = d["compute_capability"]
        try:  # native code, or PTX of an older architecture JIT-compiled
            target = c.gpu_target(cc[0], cc[1])[1]
        except Exception as e:  # noqa: BLE001
            target = f"none: {e}"
        out.append({
            "target": target,
            "id": i, "name": name, "compute_capability": list(d["compute_capability"]),
            "total_memory": d["total_memory"],
            "multiprocessors": d.get("CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT"),
            # A MIG instance is a device of its own, named "... MIG 1g.18gb".
            "mig": " MIG " in f" {name} " or bool(visible and "MIG-" in visible),
        })
    return out


def _targets():
    # The newest architecture compiled natively here (the target a GPU
    # beyond every known one gets, as PTX JIT-compiled for it).
    newest = core().gpu_target(99, 9)[0]
    return {"newest_native": newest,
            "newer_gpus": f"{newest} PTX JIT-compiled for the GPU"}


def _backend():
    c = core()
    try:
        name, reason = c.backend()
    except Exception as e:  # noqa: BLE001
        return {"name": None, "reason": str(e),
                "requested": _env.get("PYCUDA_JIT_BACKEND", "auto")}
    return {"name": name, "reason": reason,
            "requested": _env.get("PYCUDA_JIT_BACKEND", "auto")}


def _profiling():
    built_in, enabled = core().nvtx()
    return {"nvtx_built_in": built_in, "nvtx_enabled": enabled}


def _cache():
    c = core()
    d = c.cache_dir()
    entries = c.cache_list(d) if os.path.isdir(d) else []
    return {"directory": d, "entries": len(entries),
            "bytes": sum(e["bytes"] for e in entries),
            "enabled_for_all": _env.get("PYCUDA_JIT_CACHE") == "1"}


def _environment():
    # pycuda_jit's own variables and the driver's device list.
    return {k: v for k, v in _env.snapshot().items()
            if k.startswith("PYCUDA_JIT_") or k == "CUDA_VISIBLE_DEVICES"}


def report():
    """The report as a dict of sections (what ``info --json`` prints)."""
    return {
        "pycuda_jit": _section(_package),
        "python": _section(_python),
        "toolkit": _section(_toolkit),
        "driver": _section(_driver),
        "gpus": _section(_gpus),
        "gpu_targets": _section(_targets),
        "backend": _section(_backend),
        "cache": _section(_cache),
        "profiling": _section(_profiling),
        "environment": _section(_environment),
    }


def _mb(n):
    return "?" if n is None else f"{n / 1e6:.1f} MB"


def format_report(r):
    lines = []

    def row(key, value, indent=2):
        lines.append(f"{' ' * indent}{key:<17} {value}".rstrip())

    def failed(section):
        if isinstance(section, dict) and "error" in section and len(section) == 1:
            row("error", section["error"])
            return True
        return False

    p = r["pycuda_jit"]
    lines.append("pycuda_jit")
    if not failed(p):
        row("version", p["version"])
        row("location", p["location"])
        row("compiler build", p["build_id"])
        row("code generator", f"{p['codegen']} ({_mb(p['codegen_bytes'])})")
    py = r["python"]
    lines.append("Python")
    if not failed(py):
        row("version", f"{py['version']} ({py['implementation']}) {py['executable']}")
        row("platform", f"{py['platform']} ({py['libc']})")
        row("numpy", py["numpy"] or "not installed")

    t = r["toolkit"]
    lines.append("CUDA toolkit (override variable, CUDA_HOME/CUDA_PATH, pip wheels, system)")
    if not failed(t):
        for k, v in t["env"].items():
            if v is not None:
                row(k, v)
        if not t["system_search"]:
            row("system search", "off (PYCUDA_JIT_SYSTEM_CUDA=0)")
        for piece in t["pieces"]:
            name = piece["piece"] + (f" {piece['version']}" if piece["version"] else "")
            if piece["path"]:
                row(name, f"{piece['path']}  [{piece['origin'] or '?'}]")
            else:
                row(name, "NOT FOUND: " + piece["hint"])

    d = r["driver"]
    lines.append("CUDA driver")
    if not failed(d):
        if d["available"]:
            v = d["version"]
            row("version", f"{v // 1000}.{v % 1000 // 10} ({d['path']})")
        else:
            row("not usable", d["error"] or "unknown reason")

    g = r["gpus"]
    lines.append("GPUs")
    if isinstance(g, dict):
        row("none", g.get("error", ""))
    elif not g:
        row("none", "")
    else:
        for dev in g:
            cc = dev["compute_capability"]
            row(f"{dev['id']}", f"{dev['name']}  cc {cc[0]}.{cc[1]}  "
                f"{dev['total_memory'] / 2**30:.1f} GiB  "
                f"{dev['multiprocessors']} SMs  MIG: {'yes' if dev['mig'] else 'no'}")
            row("", f"target: {dev['target']}", indent=4)

    t = r["gpu_targets"]
    if not failed(t):
        row("targets", f"native up to {t['newest_native']}; newer GPUs: {t['newer_gpus']}"
            " (PYCUDA_JIT_NEWEST_CC lowers it)")

    b = r["backend"]
    lines.append("Backend")
    if not failed(b):
        why = b["reason"] or ("a CUDA GPU was found" if b["name"] == "cuda" else "requested")
        row("chosen", f"{b['name'] or 'none'} ({why}); PYCUDA_JIT_BACKEND={b['requested']}")

    c = r["cache"]
    lines.append("Disk cache")
    if not failed(c):
        row("directory", c["directory"])
        row("contents", f"{c['entries']} entries, {_mb(c['bytes'])}")
        row("for every kernel", "yes (PYCUDA_JIT_CACHE=1)" if c["enabled_for_all"]
            else "no (cache=True per kernel)")

    pr = r["profiling"]
    lines.append("Profiling")
    if not failed(pr):
        row("NVTX ranges", ("on (PYCUDA_JIT_NVTX=1)" if pr["nvtx_enabled"] else
                            "off (PYCUDA_JIT_NVTX=1 turns them on)")
            if pr["nvtx_built_in"] else "not built in (no NVTX headers at build time)")

    env = r["environment"]
    lines.append("Environment")
    if env:
        for k, v in env.items():
            row(k, v)
    else:
        row("(no PYCUDA_JIT_* variable set)", "")
    return "\n".join(lines)
