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
