"""``pycuda_jit.cuda.random``, as numba-cuda users import it
(``from numba.cuda.random import ...`` becomes ``from pycuda_jit.cuda.random
import ...``): the module pycuda_jit.random itself, under this name too."""
import sys

from pycuda_jit import random as _random

sys.modules[__name__] = _random
