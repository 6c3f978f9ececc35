// Lowering rules for array attributes (registry/array.def).  They emit LLVM IR through
// LowerContext and reach target differences only via its TargetHooks.
#include "stdlib/lowering/Rules.h"

#include "support/Diagnostics.h"

#include <llvm/IR/Intrinsics.h>

namespace pcj::stdlib::lowering {

using namespace types;
using lower::SReg;

llvm::Value *lowerArrayAttr(const LoweringRequest &R) {
  auto &Cx = R.cx;
  TypeRef T = R.argTypes[0];
  llvm::Value *A = R.args[0];
  switch (R.info.idata) {
  case 0:
  case 1: {
    llvm::Value *Tup = llvm::UndefValue::get(Cx.valueType(R.instr.type));
    for (unsigned D = 0; D < T->ndim(); ++D)
      Tup = Cx.b.CreateInsertValue(
          Tup, R.info.idata == 0 ? Cx.arrayShape(A, D) : Cx.arrayStride(A, D),
          {D});
    return Tup;
  }
  case 2: {
    llvm::Value *N = Cx.b.getInt64(1);
    for (unsigned D = 0; D < T->ndim(); ++D)
      N = Cx.b.CreateMul(N, Cx.arrayShape(A, D));
    return N;
  }
  default:
    return Cx.b.getInt64(T->ndim());
  }
}

} // namespace pcj::stdlib::lowering
