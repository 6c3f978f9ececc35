// Typing rules for the cache-hinted loads and stores (registry/cuda.def):
//
//   cuda.ldca(a, i)      -> a.dtype        (ldcg, ldcs, ldlu, ldcv alike)
//   cuda.stcg(a, i, v)   -> None, v converted to a.dtype (stcs, stwb, stwt)
//
// `a` is a global-memory array of integers or floats, or a CPointer to one
// (ffi.from_buffer, a CPointer signature: it must point to global memory);
// `i` an integer (1-d arrays and pointers) or a tuple of a.ndim integers.  The
// error texts keep numba-cuda's words
// ("Expected 2 indices, got 1") so that code matching them keeps working.
#include "stdlib/typing/CudaHelpers.h"

namespace pcj::stdlib::rules {

using namespace cudahelp;

namespace {

TypeRef hintArray(const TypingRequest &R) {
  TypeRef A = R.args[0].type;
  if (A->kind() == Kind::Pointer) {
    TypeRef DT = A->inner();
    if (!DT->isInt() && !DT->isFloat())
      R.fail(name(R) + " requires a pointer to an integer or float type, not " +
                 A->str(),
             "cache hints load and store one integer or float element");
    return A;
  }
  if (!A->isArray())
    R.fail(name(R) + "() needs an array as its first argument, not " +
           A->str());
  TypeRef DT = A->dtype();
  if (!DT->isInt() && !DT->isFloat())
    R.fail(name(R) + " requires array of integer or float type, not " +
               A->str(),
           "cache hints load and store one integer or float element");
  if (A->addrSpace() != AddrSpace::Global)
    R.fail(name(R) +
               "() works on global memory (a kernel's array "
               "arguments), not on a " +
               A->str(),
           "index shared, local and constant arrays directly");
  return A;
}

void hintIndex(const TypingRequest &R, TypeRef A) {
  TypeRef I = R.args[1].type;
  // A pointer is indexed as a 1-d array.
  unsigned N = A->isArray() ? A->ndim() : 1;
  std::string Dims = std::to_string(N);
  if (I->isInt()) {
    if (N != 1)
      R.fail(name(R) + "(): Expected " + Dims + " indices, got a scalar",
             "index a " + Dims + "-d array with a tuple of " + Dims +
                 " integers");
    return;
  }
  if (!I->isTuple())
    R.fail(name(R) + "(): " + I->str() + " is not a valid index",
           "the index must be an integer or a tuple of integers");
  if (I->elems().size() != N)
    R.fail(name(R) + "(): Expected " + Dims + " indices, got " +
           std::to_string(I->elems().size()));
  for (TypeRef E : I->elems())
    if (!E->isInt())
      R.fail(name(R) + "(): " + E->str() + " is not a valid index",
             "index entries must be integers");
}

} // namespace

TypingResult typeCacheLoad(const TypingRequest &R) {
  expectArgs(R, 2, 2);
  noKeywords(R);
  TypeRef A = hintArray(R);
  hintIndex(R, A);
  if (!A->isArray()) {
    TypingResult Out{A->inner()};
    Out.argTypes = {nullptr, int64Ty()};
    return Out;
  }
  return TypingResult{A->dtype()};
}

TypingResult typeCacheStore(const TypingRequest &R) {
  expectArgs(R, 3, 3);
  noKeywords(R);
  TypeRef A = hintArray(R);
  hintIndex(R, A);
  TypeRef V = R.args[2].type;
  if (!V->isNumeric() || V->isComplex())
    R.fail(name(R) + "() value must be a real number, not " + V->str());
  TypingResult Out{noneTy()};
  if (!A->isArray())
    Out.argTypes = {nullptr, int64Ty(), A->inner()};
  else
    Out.argTypes = {nullptr, nullptr, A->dtype()};
  return Out;
}

} // namespace pcj::stdlib::rules
