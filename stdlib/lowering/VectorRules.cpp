// Lowering rules for CUDA vector types (registry/vector.def).  A vector
// value is a literal struct of its elements ({float, float, float, float}
// for float32x4), on both targets; its constructor inserts the scalars
// (already converted to the element type) and the elements of vector
// arguments, in order:
//
//   cuda.float32x3(v2, c)  ->  insertvalue {v2.x, v2.y, c}
#include "stdlib/lowering/CudaHelpers.h"

namespace pcj::stdlib::lowering {

using namespace types;

llvm::Value *lowerVectorCtor(const LoweringRequest &R) {
  auto &Cx = R.cx;
  auto &B = Cx.b;
  TypeRef V = R.instr.type;
  llvm::Value *Out = llvm::PoisonValue::get(Cx.valueType(V));
  unsigned At = 0;
  for (size_t K = 0; K < R.args.size(); ++K) {
    TypeRef T = R.argTypes[K];
    if (T->kind() != Kind::Vector) {
      Out = B.CreateInsertValue(Out, R.args[K], {At++});
      continue;
    }
    for (unsigned E = 0; E < T->elems().size(); ++E)
      Out = B.CreateInsertValue(
          Out,
          Cx.cast(B.CreateExtractValue(R.args[K], {E}), T->inner(), V->inner()),
          {At++});
  }
  return Out;
}

llvm::Value *lowerVectorField(const LoweringRequest &R) {
  return R.cx.b.CreateExtractValue(R.args[0], {unsigned(R.info.idata)});
}

} // namespace pcj::stdlib::lowering
