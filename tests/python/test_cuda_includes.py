"""pycuda_jit/_cuda_includes.py: the #include lines of linked CUDA C read
in from the including file's directory and the extra search paths (the
kernels that use it: tests/kernels/test_foreign_includes.py)."""
import pytest

from pycuda_jit import cuda
from pycuda_jit._cuda_includes import expand_includes, search_paths


def test_found_headers_are_read_in_between_line_markers(tmp_path):
    (tmp_path / "a.cuh").write_text("int a();\n")
    inc = tmp_path / "inc"
    inc.mkdir()
    (inc / "b.cuh").write_text("int b();")  # no final newline
    main = tmp_path / "k.cu"
    text = '#include "a.cuh"\n  #  include <b.cuh>\nint k();\n'
    main.write_text(text)
    out = expand_includes(text, str(main), [str(inc)])
    assert out == (f'#line 1 "{tmp_path}/a.cuh"\nint a();\n#line 2 "{main}"\n'
                   f'#line 1 "{inc}/b.cuh"\nint b();\n#line 3 "{main}"\nint k();\n')


def test_headers_not_found_and_macro_includes_stay(tmp_path):
    text = ('#include <cooperative_groups.h>\n#include "missing.h"\n'
            "#define H <x.h>\n#include H\n")
    assert expand_includes(text, str(tmp_path / "k.cu"), [str(tmp_path)]) == text


def test_angle_includes_ignore_the_file_directory(tmp_path):
    (tmp_path / "a.cuh").write_text("int a();\n")
    text = "#include <a.cuh>\n"
    assert expand_includes(text, str(tmp_path / "k.cu"), []) == text


def test_pragma_once_becomes_a_guard_and_cycles_end(tmp_path):
    (tmp_path / "a.cuh").write_text('#pragma once\n#include "b.cuh"\nint a();\n')
    (tmp_path / "b.cuh").write_text('#include "a.cuh"\nint b();\n')
    out = expand_includes('#include "a.cuh"\n', "<CUSource>", [str(tmp_path)])
    assert "#pragma once" not in out
    assert out.count("#ifndef __PCJ_ONCE_") == 1 and out.count("#endif") == 1
    assert "already being read" in out and out.count("int a();") == 1
    assert out.count("int b();") == 1


def test_search_paths_value():
    assert search_paths("/a::/b") == ["/a", "/b"]
    assert search_paths(["/a", "/b"]) == ["/a", "/b"]
    assert search_paths("") == []
    with pytest.raises(TypeError, match="CUDA_NVRTC_EXTRA_SEARCH_PATHS"):
        cuda.config.CUDA_NVRTC_EXTRA_SEARCH_PATHS = 3
