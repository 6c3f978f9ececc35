// Typing rules for the cuda namespace (registry/cuda.def).
#include "stdlib/typing/RuleHelpers.h"

namespace pcj::stdlib::rules {

TypingResult typeNone(const TypingRequest &R) {
  return {intrinsicTy(R.info.key)};
}

TypingResult typeSpecialReg(const TypingRequest &R) { return {int32Ty()}; }

TypingResult typeGrid(const TypingRequest &R) {
  expectArgs(R, 1, 1);
  noKeywords(R);
  bc::ConstValue V;
  if (!R.args[0].constant(V) || V.kind != bc::ConstValue::Kind::Int ||
      V.i < 1 || V.i > 3)
    R.fail(name(R) + "() takes a constant number of dimensions: 1, 2 or 3");
  if (V.i == 1)
    return {int64Ty()};
  return {tupleTy(std::vector<TypeRef>(V.i, int64Ty()))};
}

TypingResult typeLocalArray(const TypingRequest &R) {
  int S = R.find(0, "shape"), D = R.find(1, "dtype");
  if (S < 0 || D < 0 || R.args.size() != 2)
    R.fail(name(R) + "(shape, dtype) takes exactly a shape and a dtype");
  std::vector<int64_t> Dims = constShape(R, S);
  TypeRef DT = R.args[D].type;
  if (DT->kind() != Kind::DType)
    R.fail(name(R) + "() dtype must be a scalar type such as np.float32, not " +
           DT->str());
  int64_t Elems = 1;
  for (int64_t X : Dims)
    Elems *= X;
  if (Elems == 0)
    R.fail(name(R) + "() of size 0 is not supported yet",
           "dynamic shared memory is not available yet; give a fixed shape");
  AddrSpace Space = R.info.idata == 1 ? AddrSpace::Shared : AddrSpace::Local;
  return {arrayTy(DT->inner(), unsigned(Dims.size()), Layout::C, Space)};
}

TypingResult typeSyncthreads(const TypingRequest &R) {
  expectArgs(R, 0, 0);
  return {noneTy()};
}

} // namespace pcj::stdlib::rules
