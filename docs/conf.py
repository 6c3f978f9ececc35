# Sphinx configuration of the documentation site (.ci/docs builds it with
# warnings as errors).  Markdown pages through myst-parser; the API reference
# from the package's docstrings (autodoc) and, for the kernel-side names that
# exist only in the type stub, from pycuda_jit/cuda/__init__.pyi (_ext/intrinsics.py).
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(HERE, "_ext"))

# autodoc imports the package: never touch a GPU or warn about its absence.
os.environ["PYCUDA_JIT_BACKEND"] = "cpu"

import pycuda_jit  # noqa: E402

project = "pycuda_jit"
release = version = pycuda_jit.__version__
copyright = "the pycuda_jit authors"

extensions = ["myst_parser", "sphinx.ext.autodoc", "sphinx.ext.napoleon", "intrinsics"]
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
exclude_patterns = ["_build", "_ext"]
myst_heading_anchors = 3

autodoc_member_order = "bysource"
autodoc_default_options = {"undoc-members": False}

html_theme = "furo"
html_title = f"pycuda_jit {release}"
