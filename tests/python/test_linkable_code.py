"""LinkableCode.from_path / from_path_or_obj and numba-cuda's class names
(cuda.Cubin, cuda.Archive...): the class follows the file's extension and
holds its bytes (text for CUDA C and PTX)."""
import pytest

from pycuda_jit import cuda

KINDS = [(".cu", cuda.CUSource, "cu"), (".ptx", cuda.PTXSource, "ptx"),
         (".ltoir", cuda.LTOIR, "ltoir"), (".cubin", cuda.Cubin, "cubin"),
         (".fatbin", cuda.Fatbin, "fatbin"), (".o", cuda.Object, "o"),
         (".a", cuda.Archive, "a")]


@pytest.mark.parametrize("ext,cls,kind", KINDS)
def test_from_path_picks_the_class_of_the_extension(tmp_path, ext, cls, kind):
    path = tmp_path / ("code" + ext.upper() if ext == ".o" else "code" + ext)
    payload = bytes(range(256)) if kind not in ("cu", "ptx") else b"// text\n"
    path.write_bytes(payload)
    obj = cuda.LinkableCode.from_path(str(path))
    assert type(obj) is cls and obj.kind == kind and obj.name == str(path)
    assert obj.data == (payload.decode() if kind in ("cu", "ptx") else payload)
    assert obj._item() == (kind, str(path), payload)
    assert cuda.LinkableCode.from_path_or_obj(obj) is obj
    assert type(cuda.LinkableCode.from_path_or_obj(path)) is cls


def test_numba_names_are_our_classes():
    assert (cuda.LTOIR, cuda.Cubin, cuda.Fatbin, cuda.Object, cuda.Archive) == (
        cuda.LTOIRSource, cuda.CubinSource, cuda.FatbinSource, cuda.ObjectSource,
        cuda.ArchiveSource)


def test_from_path_refuses_other_extensions(tmp_path):
    path = tmp_path / "code.txt"
    path.write_text("x")
    with pytest.raises(ValueError, match="must end in one of"):
        cuda.LinkableCode.from_path(str(path))
    with pytest.raises(FileNotFoundError):
        cuda.LinkableCode.from_path(str(tmp_path / "missing.cu"))
