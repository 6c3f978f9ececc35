"""Golden tests per stage: each kernel in tests/golden/kernels is compiled
for sm_90 and every stage dump must equal tests/golden/expected/<name>.<stage>
(regenerate with tests/golden/regen.py and review the diff).  The kernel's
`# CHECK-<STAGE>:` lines are also run through LLVM's FileCheck, and the PTX is
linked by nvJitLink for sm_80 and sm_90 (no GPU needed)."""
import os
import shutil
import subprocess

import pytest

from golden_lib import HERE, PREFIX, STAGES, compile_kernel, kernel_names, kernel_path

FILECHECK = shutil.which("FileCheck") or "/usr/lib/llvm-22/bin/FileCheck"


@pytest.fixture(scope="module")
def dumps():
    return {name: compile_kernel(name) for name in kernel_names()}


@pytest.mark.parametrize("name", kernel_names())
@pytest.mark.parametrize("stage", STAGES)
def test_stage_matches_golden(dumps, name, stage):
    path = os.path.join(HERE, "expected", f"{name}.{stage}")
    assert os.path.exists(path), f"missing golden {path}: run tests/golden/regen.py {name}"
    expected = open(path).read()
    assert dumps[name][stage] == expected, (
        f"{name}.{stage} differs from the golden; if intended, run "
        f"tests/golden/regen.py {name} and review the diff")


@pytest.mark.parametrize("name", kernel_names())
def test_filecheck_directives(dumps, name):
    assert os.path.exists(FILECHECK), "FileCheck (llvm-22-tools) is required"
    text = open(kernel_path(name)).read()
    ran = 0
    for stage in STAGES:
        prefix = PREFIX[stage]
        if f"# {prefix}:" not in text and f"# {prefix}-NOT:" not in text:
            continue
        proc = subprocess.run([FILECHECK, kernel_path(name), f"--check-prefix={prefix}"],
                              input=dumps[name][stage], text=True, capture_output=True)
        assert proc.returncode == 0, proc.stderr
        ran += 1
    assert ran > 0, f"{name} has no CHECK directives"


@pytest.mark.parametrize("name", kernel_names())
@pytest.mark.parametrize("cc", [(8, 0), (9, 0)])
def test_ptx_links_with_nvjitlink(name, cc):
    from pycuda_jit import cuda
    ptx = compile_kernel(name, cc=cc, raw=True)["ptx"]
    assert f".target sm_{cc[0]}{cc[1]}" in ptx
    cubin = cuda.link_ptx(ptx, cc=cc)
    assert cubin[:4] == b"\x7fELF"
    assert len(cubin) > 500
