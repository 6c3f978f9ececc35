"""Differential fuzzer: random scalar kernels against docs/language.md.

scalars.py    the reference semantics (types, NEP 50 promotion, operators)
functions.py  builtins and math functions: typing + reference evaluation
program.py    program trees, their kernel source, the generator
runner.py     compile, run, compare; shrinking; reproducers
topics.py     rows the comparison skips (open work of other workstreams)
__main__.py   `python -m tests.fuzz --seed S --count N`
"""
