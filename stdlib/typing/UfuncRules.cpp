// Typing of NumPy ufuncs called on arrays in kernels (numba-cuda's
// `np.sin(x, out)`, `np.minimum(a, b, out=c)`): the row's scalar typing rule
// applied to the element types, the output an array whose dtype the element
// result converts to; the call's value is that output array.
//   np.sin(x: float32[:], r: float32[:])  ->  float32[:] (r), sin per element
#include "stdlib/Registry.h"
#include "stdlib/typing/RuleHelpers.h"

#include <set>

namespace pcj::stdlib {

using namespace types;

namespace {

size_t ufuncInputs(std::string_view Key) {
  static const std::set<std::string_view> Binary = {
      "np.arctan2",     "np.hypot",      "np.power",       "np.copysign",
      "np.fmod",        "np.nextafter",  "np.minimum",     "np.maximum",
      "np.fmin",        "np.fmax",       "np.less",        "np.less_equal",
      "np.equal",       "np.not_equal",  "np.greater",     "np.greater_equal",
      "np.logical_and", "np.logical_or", "np.logical_xor", "np.bitwise_and",
      "np.bitwise_or",  "np.bitwise_xor"};
  return Binary.count(Key) ? 2 : 1;
}

} // namespace

bool isArrayUfuncCall(const IntrinsicInfo &Info,
                      const std::vector<ArgInfo> &Args) {
  if (std::string_view(Info.key).rfind("np.", 0) != 0 ||
      Info.kind != IntrinsicKind::Func || hasProp(Info.id, props::WholeArray))
    return false;
  for (const ArgInfo &A : Args)
    if (A.type && A.type->isArray())
      return true;
  return false;
}

UfuncCall ufuncCall(const TypingRequest &R) {
  UfuncCall C;
  C.inputs = ufuncInputs(R.info.key);
  size_t Positional = R.args.size() - R.kwnames.size();
  int Out = R.find(C.inputs, "out");
  for (const std::string &K : R.kwnames)
    if (K != "out")
      R.fail(std::string(R.info.key) +
             "() in kernels takes only out= as a keyword, not " + K + "=");
  if (Positional < C.inputs)
    R.fail(std::string(R.info.key) + "() takes " + std::to_string(C.inputs) +
           " input(s), got " + std::to_string(Positional));
  if (Positional > C.inputs + 1)
    R.fail(std::string(R.info.key) + "() takes " + std::to_string(C.inputs) +
           " input(s) and an output array, got " + std::to_string(Positional) +
           " arguments");
  if (Out < 0)
    R.fail(std::string(R.info.key) +
               "() of an array in a kernel needs an output "
               "array (kernels cannot allocate one)",
           "pass it: " + std::string(R.info.key) + "(x, out) or out=...");
  if (!R.args[Out].type->isArray())
    R.fail(std::string(R.info.key) + "(): the output must be an array, not " +
           R.args[Out].type->str());
  for (size_t K = 0; K < C.inputs; ++K) {
    TypeRef T = R.args[K].type;
    if (!T->isArray() && !T->isNumeric())
      R.fail(std::string(R.info.key) + "() takes arrays and numbers, not " +
             T->str());
    if (T->isArray() && T->ndim() > R.args[Out].type->ndim())
      R.fail(std::string(R.info.key) + "(): input " + std::to_string(K + 1) +
             " has " + std::to_string(T->ndim()) + " dimensions, the output " +
             std::to_string(R.args[Out].type->ndim()));
  }
  C.out = size_t(Out);
  return C;
}

TypingResult typeUfuncElement(const IntrinsicInfo &Info, const ir::Instr &At,
                              const std::vector<TypeRef> &InputTypes,
                              const std::vector<bool> &Weak) {
  TypingRequest Elem{Info, At, {}, {}};
  for (size_t K = 0; K < InputTypes.size(); ++K) {
    TypeRef T = InputTypes[K];
    // array elements are strong; a Python literal stays weak (NEP 50)
    Elem.args.push_back(
        {T->isArray() ? T->dtype() : T, !T->isArray() && Weak[K], nullptr});
  }
  return Info.typing(Elem);
}

TypingResult typeArrayUfunc(const TypingRequest &R) {
  UfuncCall C = ufuncCall(R);
  std::vector<TypeRef> Inputs;
  std::vector<bool> Weak;
  for (size_t K = 0; K < C.inputs; ++K) {
    Inputs.push_back(R.args[K].type);
    Weak.push_back(R.args[K].weak);
  }
  TypingResult E = typeUfuncElement(R.info, R.instr, Inputs, Weak);
  TypeRef OutT = R.args[C.out].type;
  if (OutT->addrSpace() == AddrSpace::Const)
    R.fail(std::string(R.info.key) +
               "(): the output is a read-only constant array "
               "(a global NumPy array or cuda.const.array_like)",
           "write into an array argument");
  if (!E.type->isNumeric() || !OutT->dtype()->isNumeric())
    R.fail(std::string(R.info.key) + "() gives " + E.type->str() +
           ", which cannot be stored into an array of " + OutT->dtype()->str());
  // NumPy's out= casting ("same_kind"): never to a lower kind.
  auto Kind = [](TypeRef T) {
    return T->isBool() ? 0 : T->isInt() ? 1 : T->isFloat() ? 2 : 3;
  };
  if (Kind(E.type) > Kind(OutT->dtype()))
    R.fail(std::string(R.info.key) + "() gives " + E.type->str() +
           ", which NumPy does not cast to the output's " +
           OutT->dtype()->str() + " (casting='same_kind')");
  return {OutT, false};
}

} // namespace pcj::stdlib
