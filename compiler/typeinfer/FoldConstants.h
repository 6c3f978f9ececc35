// Exact arithmetic on Python int constants, during type inference.
//
// A Python int is unbounded; a kernel computes in 64 bits.  An operation
// whose operands are all Python int constants (literals, or globals /
// closure variables holding Python ints) is evaluated at compile time with
// Python's semantics, so its exact value reaches the place that converts
// it (transforms/ConstantRanges checks it fits there; a float gets it
// correctly rounded):
//
//   %2 = const 10;  %3 = const 100
//   %4 = binop ** %2, %3              ==>   %4 = const 1000...000 (101 digits)
//
// An element of divmod() of two Python int constants is one too, so it
// stays weak (a tuple's elements are typed):
//
//   %5 = call divmod, %2, %3;  %6 = getitem %5, 1   ==>   %6 = const 10
//   (also `q, r = divmod(...)`: tupleget %5 [0 of 2])
//
// Not folded (left to the kernel's run-time semantics): true division,
// division or modulo by zero, negative shift counts and exponents, and
// results beyond BigInt::kMaxBits.
#pragma once

#include "ir/IR.h"

namespace pcj::typeinfer {

// Rewrites a BinOp / Unary / Compare of Python int constants, or an element
// of divmod() of two, into a Const holding its value; returns whether it did.
bool foldPythonIntOp(ir::Instr *I);

} // namespace pcj::typeinfer
