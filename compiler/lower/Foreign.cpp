// Calls of foreign functions (cuda.declare_device): one internal,
// always-inlined wrapper per declaration, which the kernel's calls reach
// like any device function, calls the external symbol with its ABI.  The
// symbol stays undefined in the module (PTX `.extern .func`); the runtime
// links the code that defines it (NVRTC-compiled CUDA C++, PTX, cubin...).
//
//   times2 = cuda.declare_device("times2", "int32(int32)")       (numba ABI)
//
//   define internal i32 @pcj_ffi_times2_...(i32 %a) alwaysinline {
//     %ret = alloca i32
//     %status = call i32 @times2(ptr %ret, i32 %a)   ; status ignored
//     %r = load i32, ptr %ret
//     ret i32 %r
//   }
//
// With abi="c" the wrapper calls `i32 @times2(i32 %a)` and returns its
// result.  Scalars are passed in their in-memory form (bool as a byte, as
// C's bool); a foreign function's void result is None.  An array passed
// where the declaration says CPointer(dtype) or voidptr passes its data
// pointer as a generic address (`float *` in CUDA C).  On the CPU
// executor the wrapper first hands the calling thread's context to the
// host-compiled CUDA C (TargetHooks::foreignCall).
#include "lower/LowerContext.h"
#include "lower/TargetHooks.h"

#include <llvm/IR/Module.h>

namespace pcj::lower {

using namespace types;

void defineForeignWrapper(const ForeignFunction &FF, LowerContext &Types,
                          TargetHooks &T) {
  llvm::Module &M = Types.module;
  llvm::LLVMContext &C = M.getContext();
  bool HasResult = FF.ret->kind() != Kind::None;
  std::vector<llvm::Type *> Params, CParams;
  for (size_t K = 0; K < FF.params.size(); ++K) {
    Params.push_back(Types.valueType(FF.params[K]));
    CParams.push_back(Types.memoryType(FF.declared[K]));
  }
  llvm::Type *Ret =
      HasResult ? Types.valueType(FF.ret) : llvm::Type::getVoidTy(C);
  llvm::Function *W = T.declareDeviceFunction(M, FF.wrapper, Params, Ret);
  W->addFnAttr(llvm::Attribute::AlwaysInline);
  llvm::IRBuilder<> B(C);
  std::vector<llvm::Value *> Args;
  T.beginDeviceFunction(W, B, Args);
  std::vector<llvm::Value *> CallArgs;
  for (size_t K = 0; K < FF.params.size(); ++K) {
    if (FF.params[K]->isArray()) { // decays to its data pointer (generic)
      llvm::Value *Data = B.CreateExtractValue(Args[K], {0});
      if (Data->getType()->getPointerAddressSpace() != 0)
        Data = B.CreateAddrSpaceCast(Data, B.getPtrTy(0));
      CallArgs.push_back(Data);
      continue;
    }
    CallArgs.push_back(Types.toMemory(Args[K], FF.params[K]));
  }
  T.foreignCall(B);

  llvm::Type *CRet =
      HasResult ? Types.memoryType(FF.ret) : llvm::Type::getVoidTy(C);
  if (FF.cAbi) {
    auto *FT = llvm::FunctionType::get(CRet, CParams, false);
    llvm::FunctionCallee Ext = M.getOrInsertFunction(FF.symbol, FT);
    llvm::Value *R = B.CreateCall(Ext, CallArgs);
    if (HasResult)
      B.CreateRet(Types.fromMemory(R, FF.ret));
    else
      B.CreateRetVoid();
    return;
  }
  // Numba's ABI: the result through a pointer (to a local slot), an int
  // status returned (always 0 from foreign code, so not checked).
  const llvm::DataLayout &DL = M.getDataLayout();
  llvm::Type *SlotTy = HasResult ? CRet : B.getInt32Ty();
  llvm::Value *Slot =
      B.CreateAlloca(SlotTy, DL.getAllocaAddrSpace(), nullptr, "ret");
  llvm::Value *SlotPtr = Slot;
  if (DL.getAllocaAddrSpace() != 0)
    SlotPtr = B.CreateAddrSpaceCast(Slot, B.getPtrTy(0));
  std::vector<llvm::Type *> NParams{B.getPtrTy(0)};
  NParams.insert(NParams.end(), CParams.begin(), CParams.end());
  CallArgs.insert(CallArgs.begin(), SlotPtr);
  auto *FT = llvm::FunctionType::get(B.getInt32Ty(), NParams, false);
  llvm::FunctionCallee Ext = M.getOrInsertFunction(FF.symbol, FT);
  B.CreateCall(Ext, CallArgs);
  if (HasResult)
    B.CreateRet(Types.fromMemory(B.CreateLoad(SlotTy, Slot), FF.ret));
  else
    B.CreateRetVoid();
}

} // namespace pcj::lower
