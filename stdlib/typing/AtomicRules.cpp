// Typing rules for cuda.atomic.* (registry/cuda.def): the array (global or
// shared), an int or tuple index, the operand converted to the array's
// dtype; the result is the old element.  Supported dtypes per operation are
// numba-cuda's.
#include "stdlib/AtomicOp.h"
#include "stdlib/typing/CudaHelpers.h"

namespace pcj::stdlib::rules {

using namespace cudahelp;

namespace {

using namespace atomicop;

// The array argument: global or shared memory (or a record's array field,
// generic: PTX's generic atomics reach global and shared memory).
TypeRef atomicArray(const TypingRequest &R, size_t K) {
  TypeRef A = R.args[K].type;
  if (!A->isArray())
    R.fail(name(R) + "() needs an array as its first argument, not " +
           A->str());
  switch (A->addrSpace()) {
  case AddrSpace::Global:
  case AddrSpace::Shared:
  case AddrSpace::Generic:
    return A;
  case AddrSpace::Local:
    R.fail(name(R) + "() on a local array: atomics work on global and "
                     "shared memory",
           "a local array is private to its thread; update it directly");
  case AddrSpace::Const:
    R.fail(name(R) + "() on a constant array, which is read-only");
  }
  return A;
}

// An int index of a 1-d array, or a tuple of ndim ints.
void atomicIndex(const TypingRequest &R, TypeRef A, size_t K) {
  TypeRef I = R.args[K].type;
  unsigned N = A->ndim();
  if (I->isInt()) {
    if (N != 1)
      R.fail(name(R) + "() on a " + std::to_string(N) +
             "-d array needs a tuple of " + std::to_string(N) + " indices");
    return;
  }
  if (I->isTuple() && I->elems().size() == N) {
    for (TypeRef E : I->elems())
      if (!E->isInt())
        R.fail(name(R) + "() index entries must be integers, not " + E->str());
    return;
  }
  R.fail(name(R) + "() index must be an integer or a tuple of " +
         std::to_string(N) + " integers, not " + I->str());
}

// The operand: a real number (converted to the array's dtype).
void atomicValue(const TypingRequest &R, size_t K, const char *What) {
  TypeRef V = R.args[K].type;
  if (!V->isNumeric() || V->isComplex())
    R.fail(name(R) + "() " + What + " must be a real number, not " + V->str());
}

void unsupportedDtype(const TypingRequest &R, TypeRef DT,
                      std::initializer_list<TypeRef> Ok) {
  R.fail(name(R) + "() does not support arrays of " + DT->str() +
             "; supported: " + typeList(Ok),
         "use an array of one of the supported types");
}

} // namespace

TypingResult typeAtomic(const TypingRequest &R) {
  expectArgs(R, 3, 3);
  noKeywords(R);
  TypeRef A = atomicArray(R, 0);
  atomicIndex(R, A, 1);
  atomicValue(R, 2, "value");
  TypeRef DT = A->dtype();
  TypeRef I32 = int32Ty(), I64 = int64Ty(), U32 = intTy(32, false),
          U64 = intTy(64, false), F16 = floatTy(16), F32 = float32Ty(),
          F64 = float64Ty();
  switch (AtomicOp(R.info.idata)) {
  case Add:
    if (!oneOf(DT, {I32, I64, U32, U64, F16, F32, F64}))
      unsupportedDtype(R, DT, {I32, I64, U32, U64, F16, F32, F64});
    break;
  case Sub:
  case Exch:
  case Max:
  case Min:
  case NanMax:
  case NanMin:
    if (!oneOf(DT, {I32, I64, U32, U64, F32, F64}))
      unsupportedDtype(R, DT, {I32, I64, U32, U64, F32, F64});
    break;
  case And:
  case Or:
  case Xor:
    if (!oneOf(DT, {I32, I64, U32, U64}))
      unsupportedDtype(R, DT, {I32, I64, U32, U64});
    break;
  case Inc:
  case Dec:
    if (!oneOf(DT, {U32, U64}))
      unsupportedDtype(R, DT, {U32, U64});
    break;
  }
  TypingResult Out{DT};
  Out.argTypes = {nullptr, nullptr, DT};
  return Out;
}

// compare_and_swap(ary, old, val) on ary[0] (1-d), cas(ary, idx, old, val).
TypingResult typeAtomicCas(const TypingRequest &R) {
  bool Indexed = R.info.idata == 1;
  size_t N = Indexed ? 4 : 3;
  expectArgs(R, N, N);
  noKeywords(R);
  TypeRef A = atomicArray(R, 0);
  if (Indexed)
    atomicIndex(R, A, 1);
  else if (A->ndim() != 1)
    R.fail(name(R) + "() works on the first element of a 1-d array, not a " +
               std::to_string(A->ndim()) + "-d one",
           "use cuda.atomic.cas(ary, idx, old, val)");
  atomicValue(R, N - 2, "expected value");
  atomicValue(R, N - 1, "new value");
  TypeRef DT = A->dtype();
  TypeRef I32 = int32Ty(), I64 = int64Ty(), U32 = intTy(32, false),
          U64 = intTy(64, false);
  if (!oneOf(DT, {I32, I64, U32, U64}))
    unsupportedDtype(R, DT, {I32, I64, U32, U64});
  TypingResult Out{DT};
  Out.argTypes.assign(N, nullptr);
  Out.argTypes[N - 2] = DT;
  Out.argTypes[N - 1] = DT;
  return Out;
}

} // namespace pcj::stdlib::rules
