"""Topics: what a row's evaluation touched where the reference cannot say
what the kernel must give, or another workstream is changing the rule.

The reference records topics on each row (scalars.Row.note); a mismatch in
a row with an OPEN topic is counted as known, not reported.  When the work
named here lands, delete its line: the fuzzer then checks those rows too
(tests/gpu/test_fuzz_regressions.py holds the minimized cases, marked
xfail(strict=True), which start passing at the same moment).
"""

OPEN = {
    # W2: float -> int conversions saturate, NaN -> 0 (docs: being fixed).
    "float-to-int": "W2: float->int conversion saturating",
    # W2: x // 0.0 is +-inf like NumPy.
    "float-floordiv-zero": "W2: x // 0.0",
    # W1: Python int constants that do not fit the other operand (NEP 50).
    "weak-int-range": "W1: Python int constants that do not fit",
    # W2: complex arithmetic at inf/nan (C99 Annex G).
    "complex-nonfinite": "W2: complex at inf/nan",
}

# Results the docs leave open on purpose: never compared.
UNSPECIFIED = {
    # np.minimum/maximum/fmin/fmax of +0.0 and -0.0 (NumPy: either).
    "zero-sign-minmax",
}


def skipped(topics):
    """The open or unspecified topics among a row's topics."""
    return {t for t in topics if t in OPEN or t in UNSPECIFIED}
