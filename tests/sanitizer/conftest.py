"""tests/sanitizer: the CPU executor's sanitizer (issue 17)."""
import zlib

import numpy as np
import pytest


@pytest.fixture
def rng(request):
    # Seeded per test by a stable hash of its name, so a failure reproduces.
    return np.random.default_rng(zlib.crc32(request.node.name.encode()))
