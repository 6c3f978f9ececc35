// Typing of NumPy reductions over a whole array (registry/reduction.def):
// np.sum(a), a.sum(), np.nanmax(a), np.count_nonzero(a)... take one array
// (any ndim and layout) and give one scalar of NumPy's result type
// (reductionType).  axis=None is accepted; another axis, and every other
// argument (dtype=, out=, keepdims=, ddof=...), is a TypingError.
//   np.sum(a: int8[:, ::1])  ->  int64
//   a.std() of int32[:]      ->  float64
#include "stdlib/Reduction.h"
#include "stdlib/typing/RuleHelpers.h"

namespace pcj::stdlib {

using namespace types;

const char *reduceOpName(ReduceOp Op) {
  static const char *Names[] = {"sum",    "prod",    "all",          "any",
                                "min",    "max",     "mean",         "var",
                                "std",    "nansum",  "nanprod",      "nanmin",
                                "nanmax", "nanmean", "count_nonzero"};
  return Names[int(Op)];
}

TypeRef reductionType(ReduceOp Op, TypeRef D) {
  bool Half = D->isFloat() && D->bits() == 16;
  if (!D->isNumeric() || Half)
    return nullptr;
  switch (Op) {
  case ReduceOp::All:
  case ReduceOp::Any:
    return boolTy();
  case ReduceOp::CountNonzero:
    return int64Ty();
  case ReduceOp::Sum:
  case ReduceOp::Prod:
  case ReduceOp::NanSum:
  case ReduceOp::NanProd:
    if (D->isBool())
      return int64Ty();
    if (D->isInt() && D->bits() < 64)
      return intTy(64, D->isSigned());
    return D;
  case ReduceOp::Min:
  case ReduceOp::Max:
  case ReduceOp::NanMin:
  case ReduceOp::NanMax:
    return D->isComplex() ? nullptr : D;
  case ReduceOp::Mean:
  case ReduceOp::NanMean:
    return D->isIntegral() ? float64Ty() : D;
  case ReduceOp::Var:
  case ReduceOp::Std:
    if (D->isIntegral())
      return float64Ty();
    return D->isComplex() ? floatTy(D->bits() / 2) : D;
  }
  return nullptr;
}

namespace rules {

namespace {

// "np.sum()" or ".sum()" (a method), as the user wrote it.
std::string callName(const TypingRequest &R) {
  std::string_view Key = R.info.key;
  if (Key.rfind("array.", 0) == 0)
    return "a." + std::string(Key.substr(6)) + "()";
  return std::string(Key) + "()";
}

} // namespace

TypingResult typeReduction(const TypingRequest &R) {
  auto Op = ReduceOp(R.info.idata);
  std::string Name = callName(R);
  size_t Positional = R.args.size() - R.kwnames.size();
  if (R.args.empty() || Positional == 0)
    R.fail(Name + " needs the array to reduce");
  // The array, then optionally axis (the second positional or axis=),
  // which must be None: the whole array.
  for (size_t K = 1; K < R.args.size(); ++K) {
    bool IsAxis = K < Positional ? K == 1 : R.kwnames[K - Positional] == "axis";
    if (!IsAxis) {
      std::string What = K < Positional ? "argument " + std::to_string(K + 1)
                                        : R.kwnames[K - Positional] + "=";
      R.fail(Name + " in kernels takes only the array (and axis=None), not " +
                 What,
             "dtype=, out=, keepdims=, ddof= and the like are not supported "
             "in kernels");
    }
    if (R.args[K].type->kind() != Kind::None)
      R.fail(Name + " along an axis is not supported in kernels (it makes a "
                    "new array); it reduces the whole array",
             "reduce a part by indexing it, e.g. np.sum(a[i]) for row i, or "
             "loop over the axis");
  }
  TypeRef A = R.args[0].type;
  if (!A->isArray())
    R.fail(Name + " in kernels takes an array, not " + A->str());
  TypeRef D = A->dtype();
  TypeRef Res = reductionType(Op, D);
  if (!Res)
    R.fail(Name + " of an array of " + D->str() +
               " is not supported in kernels",
           Op == ReduceOp::Min || Op == ReduceOp::Max ||
                   Op == ReduceOp::NanMin || Op == ReduceOp::NanMax
               ? "min/max take arrays of bools, integers, float32 and float64"
               : "reductions take arrays of bools, integers, float32, "
                 "float64 and complex numbers");
  return {Res};
}

} // namespace rules

} // namespace pcj::stdlib
