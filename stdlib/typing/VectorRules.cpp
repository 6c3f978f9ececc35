// Typing rules for CUDA vector types (registry/vector.def).
//
//   cuda.float32x3(a, b, c)      -> float32x3   (scalars converted to float32)
//   cuda.float32x4(v3, d)        -> float32x4   (v3 a float32x3: its x, y, z)
//   v.x, v.y, v.z, v.w           -> the element type
//
// A constructor takes scalars and vectors of the same element type whose
// elements add up to its count, in order (numba-cuda's combinations).
#include "stdlib/typing/CudaHelpers.h"
#include "types/Fp8.h"

namespace pcj::stdlib::rules {

using namespace cudahelp;

TypingResult typeVectorCtor(const TypingRequest &R) {
  noKeywords(R);
  unsigned Count = unsigned(R.info.idata);
  TypeRef Base = scalarFromName(R.info.sdata);
  TypeRef V = vectorTy(Base, Count);
  std::string Want = std::to_string(Count) + " " + Base->str() + " value" +
                     (Count == 1 ? "" : "s");
  std::string Hint = "pass scalars, or " + Base->str() + " vectors (" +
                     Base->str() + "x2...) whose elements " + "add up to " +
                     std::to_string(Count);
  TypingResult Out{V};
  unsigned Got = 0;
  for (size_t K = 0; K < R.args.size(); ++K) {
    TypeRef T = R.args[K].type;
    if (T->kind() == Kind::Vector) {
      // an fp8 vector converts lane by lane (numba-cuda's fp8x2 -> float2)
      if (T->inner() != Base && !(isFp8(T->inner()) && Base->isFloat()))
        R.fail(name(R) + "() argument " + std::to_string(K + 1) + " is a " +
                   T->str() + ", whose elements are not " + Base->str(),
               "build it from a " + Base->str() +
                   " vector, or from its "
                   "elements (v.x, v.y...) converted to " +
                   Base->str());
      Got += unsigned(T->elems().size());
      Out.argTypes.push_back(nullptr);
      continue;
    }
    if (!T->isNumeric() || T->isComplex())
      R.fail(name(R) + "() argument " + std::to_string(K + 1) +
                 " must be a real number or a " + Base->str() +
                 " vector, not " + T->str(),
             Hint);
    ++Got;
    Out.argTypes.push_back(Base);
  }
  if (Got != Count)
    R.fail(name(R) + "() takes " + Want + " in all, got " + std::to_string(Got),
           Hint);
  return Out;
}

TypingResult typeVectorField(const TypingRequest &R) {
  static const char *const Names[] = {"x", "y", "z", "w"};
  TypeRef V = R.args[0].type;
  size_t K = size_t(R.info.idata);
  if (K >= V->elems().size()) {
    std::string Have;
    for (const std::string &F : V->fields())
      Have += (Have.empty() ? "" : ", ") + F;
    R.fail("'" + V->str() + "' has no attribute '" + Names[K] + "'",
           "its fields are " + Have);
  }
  return TypingResult{V->inner()};
}

} // namespace pcj::stdlib::rules
