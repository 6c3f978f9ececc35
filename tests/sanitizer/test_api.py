"""The sanitizer's surface on the CPU executor: sanitize= and
PYCUDA_JIT_SANITIZE, which checks each word turns on, the exceptions and
their findings, cuda.sanitizer_report(), and that sanitized kernels compute
what plain ones do."""
import pickle
import sys

import numpy as np
import pytest

from pycuda_jit import cuda, errors

pytestmark = pytest.mark.skipif(cuda.backend() != "cpu",
                                reason="the sanitizer runs on the CPU executor")


def racy_and_uninit(x, out):
    sm = cuda.shared.array(64, np.float32)
    t = cuda.threadIdx.x
    if t < 32:
        sm[t] = x[t]
    out[t] = sm[(t + 1) % 64]


def clean(x, out):
    sm = cuda.shared.array(64, np.float32)
    t = cuda.threadIdx.x
    sm[t] = x[t] * np.float32(2)
    cuda.syncthreads()
    out[t] = sm[63 - t]


def line_of(fn, text):
    import inspect
    lines, first = inspect.getsourcelines(fn)
    for k, src in enumerate(lines):
        if text in src:
            return first + k
    raise AssertionError(text)


@pytest.fixture(autouse=True)
def fresh_report():
    cuda.sanitizer_report(clear=True)
    yield
    cuda.sanitizer_report(clear=True)


@pytest.mark.parametrize("bad", ["racy", "race,inti", "yes"])
def test_unknown_check_names_are_refused(bad):
    with pytest.raises(ValueError, match="race, init, bounds, sync"):
        cuda.jit(sanitize=bad)(clean)


def test_environment_value_is_validated(monkeypatch):
    monkeypatch.setenv("PYCUDA_JIT_SANITIZE", "racecheck")
    with pytest.raises(ValueError, match="PYCUDA_JIT_SANITIZE"):
        cuda.jit(clean)


def test_environment_turns_the_sanitizer_on_and_the_option_off(monkeypatch, rng):
    x = rng.random(64, dtype=np.float32)
    out = np.zeros(64, np.float32)
    monkeypatch.setenv("PYCUDA_JIT_SANITIZE", "race,init")
    with pytest.raises(errors.KernelRaceError):
        cuda.jit(racy_and_uninit)[1, 64](x, out)
    cuda.jit(sanitize=False)(racy_and_uninit)[1, 64](x, out)  # the option wins
    monkeypatch.delenv("PYCUDA_JIT_SANITIZE")
    cuda.jit(racy_and_uninit)[1, 64](x, out)  # off by default


@pytest.mark.parametrize("checks,error,kinds", [
    ("race", errors.KernelRaceError, {"race"}),
    ({"init"}, errors.KernelUninitializedReadError, {"uninitialized"}),
    (True, errors.KernelRaceError, {"race", "uninitialized"}),
    ("race,init,bounds,sync", errors.KernelRaceError, {"race", "uninitialized"}),
])
def test_each_check_reports_its_kind(checks, error, kinds, rng):
    x = rng.random(64, dtype=np.float32)
    out = np.zeros(64, np.float32)
    with pytest.raises(error) as info:
        cuda.jit(sanitize=checks)(racy_and_uninit)[1, 64](x, out)
    assert {f.kind for f in info.value.findings} == kinds
    assert info.value.finding is info.value.findings[0]


def test_findings_and_messages_name_the_python_function(rng):
    # Not the specialization's symbol (racy_and_uninit_1a2b3c4d).
    x = rng.random(64, dtype=np.float32)
    out = np.zeros(64, np.float32)
    with pytest.raises(errors.KernelRaceError) as info:
        cuda.jit(sanitize="race")(racy_and_uninit)[1, 64](x, out)
    assert {f.kernel for f in info.value.findings} == {"racy_and_uninit"}
    assert "racy_and_uninit_" not in str(info.value), str(info.value)
    assert "racy_and_uninit" in str(info.value), str(info.value)


def test_sync_only_reports_no_races(rng):
    x = rng.random(64, dtype=np.float32)
    out = np.zeros(64, np.float32)
    cuda.jit(sanitize="sync")(racy_and_uninit)[1, 64](x, out)
    assert len(cuda.sanitizer_report()) == 0


def test_sanitized_kernels_compute_the_same_values(rng):
    x = rng.random(64, dtype=np.float32)
    plain = np.full(64, np.nan, np.float32)
    checked = np.full(64, np.nan, np.float32)
    cuda.jit(clean)[1, 64](x, plain)
    cuda.jit(sanitize=True)(clean)[1, 64](x, checked)
    np.testing.assert_array_equal(plain, checked)
    np.testing.assert_array_equal(checked, (2 * x)[::-1])
    assert len(cuda.sanitizer_report()) == 0


def test_only_sanitized_code_calls_the_checker():
    plain = cuda.jit("void(float32[:], float32[:])")(clean)
    checked = cuda.jit("void(float32[:], float32[:])", sanitize=True)(clean)
    text = lambda k: "".join(k.inspect_llvm().values())  # noqa: E731
    assert "pcj_san_access" not in text(plain)
    assert "pcj_san_access" in text(checked)


def test_finding_names_both_accesses_and_the_source(rng):
    x = rng.random(64, dtype=np.float32)
    out = np.zeros(64, np.float32)
    k = cuda.jit(sanitize="race")(racy_and_uninit)
    with pytest.raises(errors.KernelRaceError) as info:
        k[1, 64](x, out)
    f = info.value.finding
    write, read = line_of(racy_and_uninit, "sm[t] = x[t]"), line_of(racy_and_uninit, "out[t] =")
    assert f.kind == "race" and set(f.lines) == {write, read}
    first, second = f.accesses
    # Thread 0 read sm[1] before thread 1 wrote it.
    assert (first.op, first.line, first.thread, first.block) == ("read", read, (0, 0, 0), (0, 0, 0))
    assert (second.op, second.line, second.thread) == ("write", write, (1, 0, 0))
    assert f.index == 1
    text = str(info.value)
    assert "sm[t] = x[t]" in text and "out[t] = sm[(t + 1) % 64]" in text
    assert "syncwarp" in text  # lanes of one warp
    if sys.version_info >= (3, 11):
        assert second.expression() == "sm[t]"
    # Exceptions and findings survive pickling (multiprocessing, pytest-xdist).
    again = pickle.loads(pickle.dumps(info.value))
    assert type(again) is errors.KernelRaceError
    assert again.findings == info.value.findings


def test_report_deduplicates_and_clears(rng):
    x = rng.random(64, dtype=np.float32)
    out = np.zeros(64, np.float32)
    k = cuda.jit(sanitize=True)(racy_and_uninit)
    for _ in range(3):  # every launch raises; the report keeps one of each
        with pytest.raises(errors.KernelRaceError):
            k[1, 64](x, out)
    report = cuda.sanitizer_report()
    assert sorted(f.kind for f in report) == ["race", "uninitialized"]
    assert report.dropped == 0
    assert "[1]" in str(report) and "[2]" in str(report)
    assert len(cuda.sanitizer_report(clear=True)) == 2
    assert len(cuda.sanitizer_report()) == 0
    assert str(cuda.sanitizer_report()) == "no sanitizer findings"


def test_two_dimensional_shared_races_name_the_flat_element(rng):
    @cuda.jit(sanitize="race")
    def k(out):
        tile = cuda.shared.array((4, 8), np.int32)
        tile[cuda.threadIdx.y, cuda.threadIdx.x] = cuda.threadIdx.x
        out[cuda.threadIdx.y, cuda.threadIdx.x] = tile[cuda.threadIdx.y, 7 - cuda.threadIdx.x]

    out = np.zeros((4, 8), np.int32)
    with pytest.raises(errors.KernelRaceError) as info:
        k[1, (8, 4)](out)
    f = info.value.finding
    assert "shared array" in f.message
    assert 0 <= f.index < 32


def test_races_inside_device_functions_are_found(rng):
    @cuda.jit(device=True)
    def bump(a, i):
        a[i] += 1

    @cuda.jit(sanitize="race")
    def k(a):
        bump(a, cuda.threadIdx.x // 2)

    a = np.zeros(16, np.int64)
    with pytest.raises(errors.KernelRaceError) as info:
        k[1, 32](a)
    f = info.value.finding
    assert f.array == "a"
    assert set(f.lines) == {line_of(bump.py_func, "a[i] += 1")}


def test_record_fields_are_checked(rng):
    rec = np.dtype([("x", np.float64), ("n", np.int32)], align=True)

    @cuda.jit(sanitize="race")
    def k(r):
        r[0].n = cuda.threadIdx.x

    r = np.zeros(4, rec)
    with pytest.raises(errors.KernelRaceError) as info:
        k[1, 8](r)
    assert "record" in info.value.finding.message


def test_atomics_do_not_race_with_each_other(rng):
    @cuda.jit(sanitize=True)
    def k(x, out):
        i = cuda.grid(1)
        cuda.atomic.add(out, i % 4, x[i])

    x = rng.integers(0, 10, 256).astype(np.int64)
    out = np.zeros(4, np.int64)
    k[4, 64](x, out)
    np.testing.assert_array_equal(out, x.reshape(-1, 4).sum(0))
    assert len(cuda.sanitizer_report()) == 0


def test_device_arrays_written_by_the_host_count_as_initialized(rng):
    @cuda.jit(sanitize="init")
    def k(d, out):
        i = cuda.grid(1)
        out[i] = d[i]

    out = np.zeros(8, np.float32)
    d = cuda.device_array(8, np.float32)
    with pytest.raises(errors.KernelUninitializedReadError) as info:
        k[1, 8](d, out)
    assert "device_array" in info.value.finding.message
    d.copy_to_device(np.arange(8, dtype=np.float32))
    k[1, 8](d, out)
    np.testing.assert_array_equal(out, np.arange(8))
    # A kernel's writes initialize too.
    e = cuda.device_array(8, np.float32)

    @cuda.jit(sanitize="init")
    def fill(e):
        e[cuda.grid(1)] = 3

    fill[1, 8](e)
    k[1, 8](e, out)
    np.testing.assert_array_equal(out, 3)


def test_sync_errors_are_deadlock_errors_and_reported(rng):
    @cuda.jit(sanitize="sync")
    def k(out):
        if cuda.threadIdx.x < 16:
            cuda.syncthreads()
        else:
            cuda.syncthreads()
        out[cuda.threadIdx.x] = 1

    out = np.zeros(32, np.int32)
    with pytest.raises(errors.KernelSyncError) as info:
        k[1, 32](out)
    assert isinstance(info.value, errors.KernelDeadlockError)
    assert [f.kind for f in cuda.sanitizer_report()] == ["sync"]
    assert len(info.value.finding.lines if hasattr(info.value, "finding") else
               info.value.findings[0].lines) == 2


def test_out_of_bounds_under_the_sanitizer_is_an_index_error_with_a_finding():
    @cuda.jit(sanitize="bounds")
    def k(a):
        a[cuda.threadIdx.x + 1] = 1

    a = np.zeros(8, np.int32)
    with pytest.raises(errors.KernelIndexError) as info:
        k[1, 8](a)
    assert [f.kind for f in info.value.findings] == ["bounds"]
    assert info.value.findings[0].lines == (line_of(k.py_func, "a[cuda.threadIdx.x + 1]"),)
