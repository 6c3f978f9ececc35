// Typing rules for arrays allocated in kernels (registry/alloc.def):
// np.empty/zeros/ones/full(shape, ...), their *_like forms, np.arange and
// a.copy().  Each result is a new C-contiguous array in global memory (the
// device heap), which transforms/HeapOwnership frees.
#include "stdlib/typing/CudaHelpers.h"

namespace pcj::stdlib::rules {

namespace {

// The argument indices of the parameters Names (positional or keyword), -1
// for one not given; an unknown keyword or too many arguments fail.
std::vector<int> bindArgs(const TypingRequest &R,
                          const std::vector<std::string> &Names,
                          size_t Required) {
  size_t Positional = R.args.size() - R.kwnames.size();
  if (Positional > Names.size())
    R.fail(name(R) + "() takes at most " + std::to_string(Names.size()) +
           " arguments, got " + std::to_string(Positional));
  for (const std::string &K : R.kwnames) {
    bool Known = false;
    for (const std::string &N : Names)
      Known |= N == K;
    if (!Known)
      R.fail(name(R) + "() got an unexpected keyword argument '" + K + "'");
  }
  std::vector<int> Out;
  for (size_t K = 0; K < Names.size(); ++K)
    Out.push_back(R.find(K, Names[K]));
  for (size_t K = 0; K < Required; ++K)
    if (Out[K] < 0)
      R.fail(name(R) + "() missing required argument '" + Names[K] + "'");
  return Out;
}

// An element type an allocated array may have: a number or bool.
TypeRef allocElement(const TypingRequest &R, TypeRef DT) {
  if (!DT->isNumeric())
    R.fail(name(R) + "() in kernels makes arrays of numbers or bools, not " +
           DT->str());
  return DT;
}

// A dtype= argument that may be None (then Default).
TypeRef optionalDtype(const TypingRequest &R, int K, TypeRef Default) {
  if (K < 0 || R.args[K].type == noneTy())
    return Default;
  return cudahelp::dtypeArg(R, K);
}

// order= 'C' only (a constant).
void orderArg(const TypingRequest &R, int K) {
  bc::ConstValue V;
  if (K < 0)
    return;
  if (!R.args[K].constant(V) || V.kind != bc::ConstValue::Kind::Str ||
      V.text != "C")
    R.fail(name(R) + "() in kernels makes C-ordered arrays: order='C' only");
}

// The number of dimensions of a shape argument: an integer, or a tuple of
// integers (known when the kernel runs).
unsigned shapeDims(const TypingRequest &R, int K) {
  TypeRef T = R.args[K].type;
  if (T->isInt())
    return 1;
  if (!T->isTuple())
    R.fail(name(R) +
           "() shape must be an integer or a tuple of integers, "
           "not " +
           T->str());
  for (TypeRef E : T->elems())
    if (!E->isInt())
      R.fail(name(R) + "() shape entries must be integers, not " + E->str());
  if (T->elems().empty() || T->elems().size() > 8)
    R.fail(name(R) + "() in kernels makes arrays of 1 to 8 dimensions",
           "a 0-d array: use a scalar variable");
  return unsigned(T->elems().size());
}

TypeRef heapArray(TypeRef DT, unsigned NDim) {
  return arrayTy(DT, NDim, Layout::C, AddrSpace::Global);
}

// The default element type of np.full: that of the fill value (a Python
// int is int64, a float float64, as NumPy makes them).
TypeRef fillType(const TypingRequest &R, int K) {
  TypeRef T = cudahelp::concrete(R, size_t(K));
  if (!T->isNumeric())
    R.fail(name(R) + "() fill value must be a number, not " + T->str());
  return T;
}

} // namespace

// np.empty / zeros / ones(shape, dtype=float, order='C') (IData 0, 1, 2);
// np.full(shape, fill_value, dtype=None, order='C') (IData 3).
TypingResult typeNpAlloc(const TypingRequest &R) {
  bool Full = R.info.idata == 3;
  std::vector<int> A =
      Full ? bindArgs(R, {"shape", "fill_value", "dtype", "order"}, 2)
           : bindArgs(R, {"shape", "dtype", "order"}, 1);
  int D = A[Full ? 2 : 1];
  orderArg(R, A[Full ? 3 : 2]);
  unsigned NDim = shapeDims(R, A[0]);
  TypeRef DT = optionalDtype(R, D, Full ? fillType(R, A[1]) : float64Ty());
  return {heapArray(allocElement(R, DT), NDim)};
}

// np.empty_like / zeros_like / ones_like(a, dtype=None) (IData 0, 1, 2),
// np.full_like(a, fill_value, dtype=None) (IData 3): a's shape, C order.
TypingResult typeNpAllocLike(const TypingRequest &R) {
  bool Full = R.info.idata == 3;
  std::vector<int> A = Full ? bindArgs(R, {"a", "fill_value", "dtype"}, 2)
                            : bindArgs(R, {"a", "dtype"}, 1);
  TypeRef Arr = R.args[A[0]].type;
  if (!Arr->isArray())
    R.fail(name(R) + "() in kernels takes an array, not " + Arr->str());
  if (Full)
    fillType(R, A[1]);
  TypeRef DT = optionalDtype(R, A[Full ? 2 : 1], Arr->dtype());
  if (Arr->ndim() == 0)
    R.fail(name(R) + "() of a 0-d array is not supported in kernels");
  return {heapArray(allocElement(R, DT), Arr->ndim())};
}

// a.copy() / np.copy(a): a C-contiguous copy of any array of numbers.
TypingResult typeArrayCopy(const TypingRequest &R) {
  noKeywords(R);
  expectArgs(R, 1, 1);
  TypeRef Arr = R.args[0].type;
  if (!Arr->isArray())
    R.fail(name(R) + "() in kernels takes an array, not " + Arr->str());
  if (Arr->ndim() == 0)
    R.fail("copy() of a 0-d array is not supported in kernels",
           "read its value with a[()]");
  return {heapArray(allocElement(R, Arr->dtype()), Arr->ndim())};
}

// np.arange([start, ]stop[, step], dtype=None): int64 when every bound is
// an integer, else float64 (NumPy's default), or dtype.
TypingResult typeNpArange(const TypingRequest &R) {
  std::vector<int> A = bindArgs(R, {"start", "stop", "step", "dtype"}, 1);
  TypeRef Common = nullptr;
  for (int K = 0; K < 3; ++K) {
    if (A[K] < 0 || R.args[A[K]].type == noneTy())
      continue;
    TypeRef T = R.args[A[K]].type;
    if (!T->isIntegral() && !T->isFloat())
      R.fail(name(R) + "() bounds must be integers or floats, not " + T->str());
    if (T->isFloat())
      Common = float64Ty();
    else if (!Common)
      Common = int64Ty();
  }
  TypeRef DT = optionalDtype(R, A[3], Common);
  if (DT->isComplex())
    R.fail("np.arange() of complex numbers is not supported in kernels");
  return {heapArray(allocElement(R, DT), 1)};
}

} // namespace pcj::stdlib::rules
