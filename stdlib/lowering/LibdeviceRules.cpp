// Lowering of cuda.libdevice.NAME(...) (registry/libdevice.def): one rule for
// every row.  The call goes to the function TargetHooks::libdeviceFunction
// names (NVPTX: __nv_NAME, linked from libdevice.10.bc; host: the CPU
// runtime's pcj_nv_NAME, runtime/cpu/Libdevice*.cpp); out-pointer
// parameters get a stack slot each, read back after the call into the
// result tuple:
//   s, c = libdevice.sincosf(x)
//     %s = alloca float ; %c = alloca float
//     call void @__nv_sincosf(float %x, ptr %s, ptr %c)
//     { load %s, load %c }
#include "stdlib/Libdevice.h"
#include "stdlib/lowering/Rules.h"

namespace pcj::stdlib::lowering {

llvm::Value *lowerLibdevice(const LoweringRequest &R) {
  auto &Cx = R.cx;
  auto &B = Cx.b;
  const LibdeviceSignature &S = libdeviceSignature(R.info);
  std::vector<llvm::Type *> ParamTys;
  std::vector<llvm::Value *> Args;
  std::vector<std::pair<llvm::Type *, llvm::Value *>> Slots; // out-pointers
  size_t K = 0;
  for (const LibdeviceParam &P : S.params) {
    llvm::Type *T = Cx.valueType(P.type);
    if (!P.out) {
      ParamTys.push_back(T);
      Args.push_back(R.args[K++]);
      continue;
    }
    llvm::Value *Slot = Cx.entryAlloca(T, S.name + ".out");
    ParamTys.push_back(B.getPtrTy());
    Args.push_back(Slot);
    Slots.push_back({T, Slot});
  }
  llvm::Type *RetTy = S.ret ? Cx.valueType(S.ret) : B.getVoidTy();
  auto *FT = llvm::FunctionType::get(RetTy, ParamTys, false);
  llvm::Value *Ret =
      B.CreateCall(Cx.target.libdeviceFunction(Cx.module, S.name, FT), Args);
  if (Slots.empty())
    return Ret;
  std::vector<llvm::Value *> Results;
  if (S.ret)
    Results.push_back(Ret);
  for (auto [T, Slot] : Slots)
    Results.push_back(B.CreateLoad(T, Slot));
  if (Results.size() == 1)
    return Results[0];
  llvm::Value *Tuple = llvm::UndefValue::get(Cx.valueType(R.instr.type));
  for (unsigned I = 0; I < Results.size(); ++I)
    Tuple = B.CreateInsertValue(Tuple, Results[I], {I});
  return Tuple;
}

} // namespace pcj::stdlib::lowering
