"""Topics: what a row's evaluation touched where the reference cannot say
what the kernel must give, or another workstream is changing the rule.

The reference records topics on each row (scalars.Row.note); a mismatch in
a row with an OPEN topic is counted as known, not reported.  When the work
named here lands, delete its line: the fuzzer then checks those rows too
(tests/kernels/test_fuzz_regressions.py holds the minimized cases, marked
xfail(strict=True), which start passing at the same moment).
"""

OPEN = {
}

# Rows the fuzzer does not judge: never compared.
UNSPECIFIED = {
    # np.minimum/maximum/fmin/fmax of +0.0 and -0.0 (NumPy: either).
    "zero-sign-minmax",
    # Complex products, quotients and powers with an inf or nan part follow
    # CPython's C99 Annex G rules (docs/language.md; W2's tests check them),
    # which this NumPy-based reference does not model.
    "complex-nonfinite",
    # math.copysign(x, nan): the sign bit of a NaN is not specified by IEEE
    # 754 and differs between x86, the GPU and constant folding.
    "nan-sign",
}


def skipped(topics):
    """The open or unspecified topics among a row's topics."""
    return {t for t in topics if t in OPEN or t in UNSPECIFIED}
