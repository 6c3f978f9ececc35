"""The disk cache (cache=True / PYCUDA_JIT_CACHE=1): hits only when nothing
the kernel's code depends on changed.  Runs on whatever backend is present
(the CPU executor in CI), in fresh processes like real use."""
import json
import os
import subprocess
import sys
import textwrap

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

RUNNER = textwrap.dedent("""
    import importlib, json, sys, warnings
    warnings.simplefilter("ignore")
    sys.path.insert(0, sys.argv[1])
    import numpy as np
    mod = importlib.import_module("kmod")
    out = np.full(8, -1.0)
    mod.kernel[1, 8](out)
    from pycuda_jit import cuda
    from pycuda_jit._lazy import core
    print(json.dumps({"out": out.tolist(), "cache": mod.kernel.stats["cache"]}))
    print(json.dumps({"codegen": core().codegen_loaded(), "backend": cuda.backend()}))
""")


def write_module(d, body, helper=None):
    with open(os.path.join(d, "kmod.py"), "w") as f:
        f.write(textwrap.dedent(body))
    if helper is not None:
        with open(os.path.join(d, "khelper.py"), "w") as f:
            f.write(textwrap.dedent(helper))
    for cached in ("__pycache__",):
        p = os.path.join(d, cached)
        if os.path.isdir(p):
            for f in os.listdir(p):
                os.unlink(os.path.join(p, f))


def run(d, cache_dir, root=ROOT):
    env = {**os.environ, "PYTHONPATH": root, "PYCUDA_JIT_CACHE_DIR": cache_dir,
           "PYTHONDONTWRITEBYTECODE": "1"}
    p = subprocess.run([sys.executable, "-c", RUNNER, d], capture_output=True, text=True,
                       env=env, cwd=d)  # not the checkout: `root` names the package
    assert p.returncode == 0, p.stderr
    *_, result, process = p.stdout.strip().splitlines()
    run.last_process = json.loads(process)
    return json.loads(result)


BASE = """
    from pycuda_jit import cuda
    SCALE = 2.0

    def unrelated():
        return 1

    @cuda.jit(cache=True)
    def kernel(out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = i * SCALE
"""


@pytest.fixture
def dirs(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    return str(src), str(tmp_path / "cache")


def test_first_run_misses_second_hits(dirs):
    src, cache = dirs
    write_module(src, BASE)
    a = run(src, cache)
    b = run(src, cache)
    assert a == {"out": [i * 2.0 for i in range(8)], "cache": "miss"}
    assert b == {"out": [i * 2.0 for i in range(8)], "cache": "hit"}
    # A hit on the GPU loads no LLVM (libpcj_codegen.so); the CPU executor
    # needs it to link the cached host object.
    assert run.last_process["codegen"] == (run.last_process["backend"] != "cuda")


def test_editing_the_kernel_misses(dirs):
    src, cache = dirs
    write_module(src, BASE)
    run(src, cache)
    write_module(src, BASE.replace("out[i] = i * SCALE", "out[i] = i * SCALE + 1"))
    r = run(src, cache)
    assert r == {"out": [i * 2.0 + 1 for i in range(8)], "cache": "miss"}


def test_editing_an_unrelated_function_hits(dirs):
    src, cache = dirs
    # Without bounds checks the code has no line numbers (the CPU executor
    # checks bounds by default, and its messages name the line).
    unchecked = BASE.replace("cache=True", "cache=True, boundscheck=False")
    write_module(src, unchecked)
    run(src, cache)
    # Another function changes (and shifts the kernel's line numbers).
    write_module(src, unchecked.replace("        return 1", "        x = 2\n        return x + 1"))
    r = run(src, cache)
    assert r["cache"] == "hit"


def test_lineinfo_is_part_of_the_key(dirs):
    # Without bounds checks (they embed lines too) the lines matter only
    # with lineinfo.
    src, cache = dirs
    unchecked = BASE.replace("cache=True", "cache=True, boundscheck=False")
    write_module(src, unchecked)
    run(src, cache)
    lined = unchecked.replace("boundscheck=False", "boundscheck=False, lineinfo=True")
    write_module(src, lined)
    assert run(src, cache)["cache"] == "miss"
    assert run(src, cache)["cache"] == "hit"
    # With line info the kernel's lines are in the code: shifting them misses.
    write_module(src, lined.replace("        return 1", "        x = 2\n        return x + 1"))
    assert run(src, cache)["cache"] == "miss"


def test_shifted_lines_miss_when_bounds_are_checked(dirs):
    # Bounds-check messages carry the line: code with checks depends on it.
    src, cache = dirs
    checked = BASE.replace("cache=True", "cache=True, boundscheck=True")
    write_module(src, checked)
    run(src, cache)
    write_module(src, checked.replace("        return 1", "        x = 2\n        return x + 1"))
    assert run(src, cache)["cache"] == "miss"


def test_changing_a_global_constant_misses(dirs):
    src, cache = dirs
    write_module(src, BASE)
    run(src, cache)
    write_module(src, BASE.replace("SCALE = 2.0", "SCALE = 3.0"))
    r = run(src, cache)
    assert r == {"out": [i * 3.0 for i in range(8)], "cache": "miss"}


HELPED = """
    from pycuda_jit import cuda
    from khelper import twice

    @cuda.jit(cache=True)
    def kernel(out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = twice(i)
"""


def test_changing_a_device_function_in_another_module_misses(dirs):
    src, cache = dirs
    helper = """
        from pycuda_jit import cuda

        @cuda.jit(device=True)
        def twice(x):
            return x * 2.0
    """
    write_module(src, HELPED, helper)
    assert run(src, cache)["cache"] == "miss"
    assert run(src, cache)["cache"] == "hit"
    write_module(src, HELPED, helper.replace("x * 2.0", "x * 2.0 + 0.5"))
    r = run(src, cache)
    assert r == {"out": [i * 2.0 + 0.5 for i in range(8)], "cache": "miss"}


def entries(cache):
    return [f for f in os.listdir(cache) if f.endswith(".pcjc")]


FMAD = """
    from pycuda_jit import cuda

    @cuda.jit(cache=True)
    def kernel(out):
        i = cuda.grid(1)
        if i < out.size:
            x = (i + 1) * 0.1
            out[i] = x * x - 0.01
"""


def test_fmad_is_part_of_the_key(dirs, monkeypatch):
    from fractions import Fraction
    src, cache = dirs
    write_module(src, FMAD)
    xs = [(i + 1) * 0.1 for i in range(8)]
    fused = [float(Fraction(x) * Fraction(x) - Fraction(0.01)) for x in xs]
    separate = [x * x - 0.01 for x in xs]
    assert fused != separate  # 0.1 * 0.1 - 0.01 rounds differently
    monkeypatch.delenv("PYCUDA_JIT_FMAD", raising=False)
    assert run(src, cache) == {"out": fused, "cache": "miss"}
    monkeypatch.setenv("PYCUDA_JIT_FMAD", "0")
    assert run(src, cache) == {"out": separate, "cache": "miss"}
    assert run(src, cache) == {"out": separate, "cache": "hit"}
    monkeypatch.delenv("PYCUDA_JIT_FMAD")
    assert run(src, cache) == {"out": fused, "cache": "hit"}


@pytest.mark.parametrize("damage", ["truncate", "flip", "version"])
def test_damaged_entries_are_rebuilt(dirs, damage):
    src, cache = dirs
    write_module(src, BASE)
    run(src, cache)
    [name] = entries(cache)
    path = os.path.join(cache, name)
    data = bytearray(open(path, "rb").read())
    if damage == "truncate":
        data = data[: len(data) // 2]
    elif damage == "flip":
        data[-5] ^= 0x40
    else:
        data[8] = 77
    open(path, "wb").write(bytes(data))
    r = run(src, cache)
    assert r == {"out": [i * 2.0 for i in range(8)], "cache": "miss"}
    assert run(src, cache)["cache"] == "hit"  # rewritten, valid again


def test_foreign_owner_entry_is_rebuilt(dirs):
    if os.geteuid() != 0:
        pytest.skip("needs root to give the entry to another user")
    src, cache = dirs
    write_module(src, BASE)
    run(src, cache)
    [name] = entries(cache)
    os.chown(os.path.join(cache, name), 4321, 4321)
    r = run(src, cache)
    assert r["cache"] == "miss" and r["out"] == [i * 2.0 for i in range(8)]


def test_eight_processes_at_once(dirs):
    src, cache = dirs
    write_module(src, BASE)
    env = {**os.environ, "PYTHONPATH": ROOT, "PYCUDA_JIT_CACHE_DIR": cache,
           "PYTHONDONTWRITEBYTECODE": "1"}
    procs = [subprocess.Popen([sys.executable, "-c", RUNNER, src], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env=env) for _ in range(8)]
    outs = [p.communicate() for p in procs]
    for p, (o, e) in zip(procs, outs):
        assert p.returncode == 0, e
        assert json.loads(o.strip().splitlines()[-2])["out"] == [i * 2.0 for i in range(8)]
    assert len(entries(cache)) == 1
    assert not [f for f in os.listdir(cache) if f.startswith(".tmp")]
    assert run(src, cache)["cache"] == "hit"


def test_cache_command_line(dirs):
    src, cache = dirs
    write_module(src, BASE)
    run(src, cache)
    env = {**os.environ, "PYTHONPATH": ROOT, "PYCUDA_JIT_CACHE_DIR": cache}
    ls = subprocess.run([sys.executable, "-m", "pycuda_jit", "cache", "list"],
                        capture_output=True, text=True, env=env)
    assert ls.returncode == 0, ls.stderr
    assert "kernel_" in ls.stdout and "1 entr" in ls.stdout
    info = subprocess.run([sys.executable, "-m", "pycuda_jit", "cache", "info"],
                          capture_output=True, text=True, env=env)
    assert cache in info.stdout
    clear = subprocess.run([sys.executable, "-m", "pycuda_jit", "cache", "clear"],
                           capture_output=True, text=True, env=env)
    assert "removed 1" in clear.stdout
    assert entries(cache) == []
    assert oct(os.stat(cache).st_mode & 0o777) == "0o700"


# ---- entries under abuse: each is a miss that a rebuild replaces, never an
# exception on every run, a hang, or another kernel's code ---------------------

HEADER = 8 + 4 + 32 + 8 + 32  # magic, version, key, payload length, SHA-256


def read_entry(path):
    """(version, key bytes, {section: bytes}) of a cache file."""
    import struct
    data = open(path, "rb").read()
    version, = struct.unpack_from("<I", data, 8)
    key = data[12:44]
    sections, off = {}, HEADER
    while off < len(data):
        n, = struct.unpack_from("<I", data, off)
        name = data[off + 4:off + 4 + n].decode()
        off += 4 + n
        size, = struct.unpack_from("<Q", data, off)
        sections[name] = data[off + 8:off + 8 + size]
        off += 8 + size
    return version, key, sections


def write_entry(path, version, key, sections):
    """A well-formed entry with a correct checksum (what a forger with write
    access to the cache directory can produce)."""
    import hashlib
    import struct
    payload = b"".join(struct.pack("<I", len(n)) + n.encode() + struct.pack("<Q", len(d)) + d
                       for n, d in sorted(sections.items()))
    head = b"PCJCACHE" + struct.pack("<I", version) + key + struct.pack("<Q", len(payload))
    # Format 1 summed the payload only; later formats sum the header too.
    summed = payload if version == 1 else head + payload
    with open(path, "wb") as f:
        f.write(head + hashlib.sha256(summed).digest() + payload)


def forge(path, change):
    version, key, sections = read_entry(path)
    change(sections)
    write_entry(path, version, key, sections)


def _garbage_code(sections):
    for name in ("hostobj", "cubin"):
        if name in sections:
            sections[name] = b"\x7fELF" + bytes(range(256)) * 4
    sections.pop("ptx", None)  # the driver would JIT the PTX instead
    sections["ptx"] = b"not ptx at all"


def decode_meta(data):
    """runtime/CacheMeta.h's record as a dict (format version 1)."""
    import struct
    version, = struct.unpack_from("<I", data, 0)
    assert version == 1
    off, out = 4, {"version": version}
    for name in ("kernel", "signature"):
        n, = struct.unpack_from("<I", data, off)
        out[name] = data[off + 4:off + 4 + n]
        off += 4 + n
    out["flags"] = data[off]
    out["static_shared"], nargs = struct.unpack_from("<QI", data, off + 1)
    off += 13
    out["readonly"] = data[off:off + nargs]
    assert off + nargs == len(data)
    return out


def encode_meta(m):
    import struct
    return (struct.pack("<I", m["version"])
            + b"".join(struct.pack("<I", len(m[f])) + m[f] for f in ("kernel", "signature"))
            + bytes([m["flags"]]) + struct.pack("<QI", m["static_shared"], len(m["readonly"]))
            + m["readonly"])


def _meta(field, value):
    def change(sections):
        m = decode_meta(sections["meta"])
        m[field] = value
        sections["meta"] = encode_meta(m)
    return change


def _old_text_meta(sections):
    # Entry format 2's metadata, in a format-3 file: not a record.
    m = decode_meta(sections["meta"])
    sections["meta"] = (f"kernel={m['kernel'].decode()}\nsignature={m['signature'].decode()}\n"
                        f"flags=000\nstatic_shared=0\nreadonly=0\n").encode()


@pytest.mark.parametrize("change", [
    _garbage_code,
    _meta("static_shared", 1 << 40),
    _meta("flags", 0x80),
    _meta("readonly", b"\1" * 7),
    _meta("readonly", b"\2"),
    _meta("version", 2),
    _meta("kernel", b"another_kernel"),
    _old_text_meta,
    lambda s: s.update(meta=s["meta"][:-1]),  # truncated record
    lambda s: s.update(padding=b"\0" * (65 << 20)),  # larger than an entry may be
], ids=["code", "static_shared", "flags", "readonly", "readonly_byte", "meta_version",
        "kernel", "old_text_meta", "meta_truncated", "oversized"])
def test_forged_sections_are_rebuilt(dirs, change):
    src, cache = dirs
    write_module(src, BASE)
    run(src, cache)
    [name] = entries(cache)
    forge(os.path.join(cache, name), change)
    r = run(src, cache)
    assert r == {"out": [i * 2.0 for i in range(8)], "cache": "miss"}
    assert run(src, cache)["cache"] == "hit"  # the rebuild replaced it


def test_older_format_entry_is_rebuilt(dirs):
    """An entry of format 2 (its metadata "key=value" text), with that
    format's header and a correct checksum, is a miss; the rebuild replaces
    it with a format-3 entry whose metadata is the binary record."""
    src, cache = dirs
    write_module(src, BASE)
    run(src, cache)
    [name] = entries(cache)
    path = os.path.join(cache, name)
    version, key, sections = read_entry(path)
    assert version == 3
    m = decode_meta(sections["meta"])
    sections["meta"] = (f"kernel={m['kernel'].decode()}\nsignature={m['signature'].decode()}\n"
                        f"flags=000\nstatic_shared={m['static_shared']}\n"
                        f"readonly={''.join(str(b) for b in m['readonly'])}\n").encode()
    write_entry(path, 2, key, sections)
    r = run(src, cache)
    assert r == {"out": [i * 2.0 for i in range(8)], "cache": "miss"}
    version, _, sections = read_entry(path)
    assert version == 3 and decode_meta(sections["meta"])["kernel"] == m["kernel"]
    assert run(src, cache)["cache"] == "hit"


def test_entry_copied_under_another_key_is_refused(dirs):
    src, cache = dirs
    write_module(src, BASE)
    run(src, cache)
    [first] = entries(cache)
    write_module(src, BASE.replace("SCALE = 2.0", "SCALE = 3.0"))
    run(src, cache)
    [second] = [e for e in entries(cache) if e != first]
    # The SCALE=2.0 kernel's entry under the SCALE=3.0 kernel's name, its key
    # bytes rewritten to match the name (the checksum left as it was).
    data = bytearray(open(os.path.join(cache, first), "rb").read())
    data[12:44] = bytes.fromhex(second[:64])
    open(os.path.join(cache, second), "wb").write(bytes(data))
    r = run(src, cache)
    assert r == {"out": [i * 3.0 for i in range(8)], "cache": "miss"}


def test_fifo_at_an_entry_path_does_not_block(dirs):
    src, cache = dirs
    write_module(src, BASE)
    run(src, cache)
    [name] = entries(cache)
    path = os.path.join(cache, name)
    os.unlink(path)
    os.mkfifo(path, 0o600)
    env = {**os.environ, "PYTHONPATH": ROOT, "PYCUDA_JIT_CACHE_DIR": cache,
           "PYTHONDONTWRITEBYTECODE": "1"}
    try:
        p = subprocess.run([sys.executable, "-c", RUNNER, src], capture_output=True,
                           text=True, env=env, timeout=120)
    except subprocess.TimeoutExpired:
        pytest.fail("a FIFO at a cache entry's path blocked the kernel's first call")
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout.strip().splitlines()[-2]) == {
        "out": [i * 2.0 for i in range(8)], "cache": "miss"}
    assert run(src, cache)["cache"] == "hit"  # replaced by a regular entry


# ---- the compiler's identity: its binaries' contents ------------------------------


def flip_build_id(path):
    """Changes one byte of a shared object's GNU build id: what a rebuild
    that changes its code does to it."""
    import struct
    data = bytearray(open(path, "rb").read())
    phoff, = struct.unpack_from("<Q", data, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
    for k in range(phnum):
        p_type, = struct.unpack_from("<I", data, phoff + k * phentsize)
        p_offset, = struct.unpack_from("<Q", data, phoff + k * phentsize + 8)
        p_filesz, = struct.unpack_from("<Q", data, phoff + k * phentsize + 32)
        off = p_offset
        while p_type == 4 and off + 12 <= p_offset + p_filesz:  # PT_NOTE
            namesz, descsz, ntype = struct.unpack_from("<III", data, off)
            desc = off + 12 + (namesz + 3) // 4 * 4
            if ntype == 3 and data[off + 12:off + 12 + namesz] == b"GNU\0":
                data[desc] ^= 0xFF
                open(path, "wb").write(bytes(data))
                return
            off = desc + (descsz + 3) // 4 * 4
    raise AssertionError(f"{path} has no GNU build id")


@pytest.mark.parametrize("binary", ["libpcj_codegen.so", "_core.abi3.so"])
def test_a_rebuilt_compiler_misses(dirs, tmp_path, binary):
    import shutil
    src, cache = dirs
    write_module(src, BASE)
    copy = tmp_path / "copy"
    shutil.copytree(os.path.join(ROOT, "pycuda_jit"), copy / "pycuda_jit",
                    ignore=shutil.ignore_patterns("__pycache__", "_core_src"))
    assert run(src, cache)["cache"] == "miss"
    # The same binaries elsewhere: the key is their content, not their path.
    assert run(src, cache, root=str(copy))["cache"] == "hit"
    flip_build_id(str(copy / "pycuda_jit" / binary))
    r = run(src, cache, root=str(copy))
    assert r == {"out": [i * 2.0 for i in range(8)], "cache": "miss"}
    assert run(src, cache, root=str(copy))["cache"] == "hit"


def test_another_libdevice_misses_on_the_gpu(dirs, monkeypatch, tmp_path):
    # A GPU kernel's key names the libdevice and nvJitLink files (path, size,
    # modification time): a toolkit upgrade or another PYCUDA_JIT_LIBDEVICE
    # is a miss, never a cubin built with the old ones.  (The CPU executor
    # uses neither.)
    import glob
    import shutil
    from pycuda_jit import cuda
    if cuda.backend() != "cuda":
        pytest.skip("the GPU backend only")
    homes = [os.environ.get("CUDA_HOME", ""), "/usr/local/cuda"] + glob.glob("/usr/local/cuda-*")
    found = [p for h in homes if h for p in glob.glob(os.path.join(h, "nvvm/libdevice/libdevice.10.bc"))]
    if not found:
        pytest.skip("no libdevice.10.bc in a toolkit directory")
    src, cache = dirs
    write_module(src, BASE)
    monkeypatch.delenv("PYCUDA_JIT_LIBDEVICE", raising=False)
    assert run(src, cache)["cache"] == "miss"
    assert run(src, cache)["cache"] == "hit"
    copy = tmp_path / "libdevice.10.bc"
    shutil.copyfile(found[0], copy)
    os.utime(copy, (1_000_000_000, 1_000_000_000))
    monkeypatch.setenv("PYCUDA_JIT_LIBDEVICE", str(copy))
    assert run(src, cache)["cache"] == "miss"
    assert run(src, cache)["cache"] == "hit"
