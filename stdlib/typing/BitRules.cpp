// Typing rules for bit operations and cuda.selp (registry/cuda.def), with
// numba-cuda's types: popc, brev and clz return their argument's integer
// type, ffs returns uint32 (1 + the index of the lowest set bit, 0 for 0).
#include "stdlib/typing/CudaHelpers.h"

namespace pcj::stdlib::rules {

using namespace cudahelp;

TypingResult typeBitOp(const TypingRequest &R) {
  expectArgs(R, 1, 1);
  noKeywords(R);
  TypeRef T = concrete(R, 0);
  if (!T->isInt())
    R.fail(name(R) + "() takes an integer, not " + T->str());
  TypingResult Out{R.info.idata == 3 ? intTy(32, false) : T};
  Out.argTypes = {T};
  return Out;
}

// x.bit_count(): the ones in |x| (Python's int.bit_count), an int64.
TypingResult typeBitCount(const TypingRequest &R) {
  expectArgs(R, 1, 1);
  noKeywords(R);
  TypeRef T = concrete(R, 0);
  if (!T->isInt() && !T->isBool())
    R.fail("bit_count() needs an integer, not " + T->str());
  return {int64Ty(), false};
}

// np.invert / np.bitwise_not: ~x of an integer (its own type), `not x` of a
// bool (NumPy's logical inversion of booleans).
TypingResult typeNpInvert(const TypingRequest &R) {
  expectArgs(R, 1, 1);
  noKeywords(R);
  TypeRef T = concrete(R, 0);
  if (!T->isInt() && !T->isBool())
    R.fail(name(R) + "() takes an integer or a bool, not " + T->str());
  return {T, R.args[0].weak};
}

// np.less ... np.greater_equal: the operands promoted (NEP 50) and
// compared as Python compares them (complex numbers: NumPy's order, real
// parts first, then imaginary parts); a bool.
TypingResult typeNpCompare(const TypingRequest &R) {
  expectArgs(R, 2, 2);
  noKeywords(R);
  TypeRef A = numericArg(R, 0), B = numericArg(R, 1);
  TypeRef T = promote({A, R.args[0].weak}, {B, R.args[1].weak});
  TypingResult Out{boolTy()};
  Out.argTypes = {T, T};
  return Out;
}

// np.logical_and/or/xor (two numbers) and np.logical_not (one): the truth
// of the operands; a bool.
TypingResult typeNpLogical(const TypingRequest &R) {
  size_t N = R.info.idata == 3 ? 1 : 2;
  expectArgs(R, N, N);
  noKeywords(R);
  for (size_t K = 0; K < N; ++K)
    numericArg(R, K);
  return {boolTy()};
}

// np.bitwise_and/or/xor: integers promoted as Python's &, |, ^; two bools
// stay a bool.
TypingResult typeNpBitwise(const TypingRequest &R) {
  expectArgs(R, 2, 2);
  noKeywords(R);
  TypeRef A = concrete(R, 0), B = concrete(R, 1);
  for (TypeRef T : {A, B})
    if (!T->isInt() && !T->isBool())
      R.fail(name(R) + "() takes integers or bools, not " + T->str());
  TypeRef T = A->isBool() && B->isBool()
                  ? A
                  : promote({A, R.args[0].weak}, {B, R.args[1].weak});
  if (T->isBool() && !(A->isBool() && B->isBool()))
    T = int64Ty();
  if (!T->isIntegral()) // int64 with uint64 promotes to float64 (NumPy:
                        // TypeError)
    R.fail(name(R) + "() of " + A->str() + " and " + B->str() +
               " is not defined: they have no common integer type",
           "convert one operand, e.g. np.int64(x)");
  TypingResult Out{T};
  Out.argTypes = {T, T};
  return Out;
}

// selp(pred, a, b): a if pred else b, a and b of their common type.
TypingResult typeSelp(const TypingRequest &R) {
  expectArgs(R, 3, 3);
  noKeywords(R);
  predicateArg(R, 0);
  TypeRef A = numericArg(R, 1), B = numericArg(R, 2);
  bool W = false;
  TypeRef T = promote({A, R.args[1].weak}, {B, R.args[2].weak}, &W);
  TypingResult Out{T, W};
  Out.argTypes = {nullptr, T, T};
  return Out;
}

} // namespace pcj::stdlib::rules
