// Lowering rules for math functions (registry/math.def).  They emit LLVM IR through
// LowerContext and reach target differences only via its TargetHooks.
#include "stdlib/lowering/Rules.h"

#include "support/Diagnostics.h"

#include <llvm/IR/Intrinsics.h>

namespace pcj::stdlib::lowering {

using namespace types;
using lower::SReg;

llvm::Value *lowerFloatMath(const LoweringRequest &R) {
  auto &Cx = R.cx;
  TypeRef T = R.instr.type;
  std::string Name = R.info.sdata;
  if (Name == "sqrt") // exact IEEE sqrt on both targets, vectorizable on the host
    return Cx.b.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, R.args[0]);
  llvm::FunctionCallee Fn =
      Cx.target.mathFunction(Cx.module, Name, T, unsigned(R.args.size()));
  return Cx.b.CreateCall(Fn, R.args);
}

} // namespace pcj::stdlib::lowering
