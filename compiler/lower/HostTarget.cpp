// Target hooks for the host CPU (the CPU executor, runtime/cpu).
//
//   kernel       void @k(ptr %args, ptr %ctx): parameter i is *args[i],
//                exactly like CUDA's kernelParams array
//   %tid.x       load i32 from %ctx (pcj_thread_ctx, runtime/cpu/ThreadCtx.h)
//   syncthreads  call void @pcj_cpu_syncthreads(ptr %ctx, i32 line)
//   math.sin     call float @sinf(float)   (libm of the process)
//   shared       ctx->shared + a constant offset (static shared memory)
#include "lower/Lower.h"
#include "lower/TargetHooks.h"

namespace pcj::lower {

using namespace types;

namespace {

// Field offsets in pcj_thread_ctx (runtime/cpu/ThreadCtx.h, frozen ABI).
constexpr unsigned kSRegOffset[4] = {0, 12, 24, 36}; // tid ntid ctaid nctaid
constexpr unsigned kSharedOffset = 56;

class HostTarget : public TargetHooks {
public:
  llvm::Function *createKernel(llvm::Module &M, const std::string &Name,
                               const std::vector<llvm::Type *> &Params,
                               llvm::IRBuilder<> &B,
                               std::vector<llvm::Value *> &Values) override {
    llvm::Type *Ptr = B.getPtrTy();
    auto *FT = llvm::FunctionType::get(B.getVoidTy(), {Ptr, Ptr}, false);
    auto *F = llvm::Function::Create(FT, llvm::Function::ExternalLinkage, Name, M);
    F->getArg(0)->setName("args");
    F->getArg(1)->setName("ctx");
    Ctx = F->getArg(1);
    B.SetInsertPoint(llvm::BasicBlock::Create(M.getContext(), "entry", F));
    for (unsigned K = 0; K < Params.size(); ++K) {
      llvm::Value *Slot = B.CreateConstInBoundsGEP1_64(Ptr, F->getArg(0), K);
      llvm::Value *P = B.CreateLoad(Ptr, Slot);
      Values.push_back(B.CreateLoad(Params[K], P, "param" + std::to_string(K)));
    }
    return F;
  }

  void finishKernel(llvm::Module &M, llvm::Function *K) override {}

  llvm::Function *declareDeviceFunction(llvm::Module &M, const std::string &Name,
                                        const std::vector<llvm::Type *> &Params,
                                        llvm::Type *Ret) override {
    std::vector<llvm::Type *> All = Params;
    All.push_back(llvm::PointerType::get(M.getContext(), 0)); // ctx
    auto *FT = llvm::FunctionType::get(Ret, All, false);
    return llvm::Function::Create(FT, llvm::Function::InternalLinkage, Name, M);
  }

  void beginDeviceFunction(llvm::Function *F, llvm::IRBuilder<> &B,
                           std::vector<llvm::Value *> &Values) override {
    for (unsigned K = 0; K + 1 < F->arg_size(); ++K)
      Values.push_back(F->getArg(K));
    Ctx = F->getArg(F->arg_size() - 1);
    Ctx->setName("ctx");
    B.SetInsertPoint(llvm::BasicBlock::Create(F->getContext(), "entry", F));
  }

  std::vector<llvm::Value *> hiddenCallArgs() override { return {Ctx}; }

  llvm::Value *specialReg(llvm::IRBuilder<> &B, SReg R, int Dim) override {
    llvm::Value *P = B.CreateConstInBoundsGEP1_64(
        B.getInt8Ty(), Ctx, kSRegOffset[int(R)] + 4 * Dim);
    auto *L = B.CreateLoad(B.getInt32Ty(), P);
    L->setMetadata(llvm::LLVMContext::MD_invariant_load,
                   llvm::MDNode::get(B.getContext(), {}));
    return L;
  }

  void barrier(llvm::IRBuilder<> &B, int Line) override {
    usesBarriers = true;
    llvm::Module &M = *B.GetInsertBlock()->getModule();
    llvm::FunctionCallee Fn = M.getOrInsertFunction(
        "pcj_cpu_syncthreads",
        llvm::FunctionType::get(B.getVoidTy(), {B.getPtrTy(), B.getInt32Ty()},
                                false));
    B.CreateCall(Fn, {Ctx, B.getInt32(Line)});
  }

  llvm::FunctionCallee mathFunction(llvm::Module &M, const std::string &Name,
                                    TypeRef T, unsigned Arity) override {
    bool Single = T->bits() <= 32;
    llvm::Type *FT = Single ? llvm::Type::getFloatTy(M.getContext())
                            : llvm::Type::getDoubleTy(M.getContext());
    std::vector<llvm::Type *> Args(Arity, FT);
    return M.getOrInsertFunction(Name + (Single ? "f" : ""),
                                 llvm::FunctionType::get(FT, Args, false));
  }

  llvm::FunctionCallee mathFunctionOfType(llvm::Module &M, const std::string &Name,
                                          bool Single,
                                          llvm::FunctionType *FT) override {
    return M.getOrInsertFunction(Name + (Single ? "f" : ""), FT);
  }

  unsigned addrSpace(AddrSpace S) const override { return 0; }

  llvm::Value *sharedArray(llvm::Module &M, llvm::IRBuilder<> &B,
                           llvm::Type *ElemTy, uint64_t Count,
                           const std::string &Name) override {
    uint64_t Offset = (staticSharedBytes + 15) / 16 * 16;
    uint64_t Bytes = M.getDataLayout().getTypeAllocSize(ElemTy) * Count;
    staticSharedBytes = Offset + Bytes;
    llvm::Value *BaseP =
        B.CreateConstInBoundsGEP1_64(B.getInt8Ty(), Ctx, kSharedOffset);
    llvm::Value *Base = B.CreateLoad(B.getPtrTy(), BaseP, "shared.base");
    return B.CreateConstInBoundsGEP1_64(B.getInt8Ty(), Base, Offset, Name);
  }

  void vprintf(llvm::IRBuilder<> &B, llvm::Value *Fmt, llvm::Value *Args) override {
    llvm::Module &M = *B.GetInsertBlock()->getModule();
    llvm::FunctionCallee Fn = M.getOrInsertFunction(
        "pcj_cpu_vprintf", llvm::FunctionType::get(B.getInt32Ty(),
                                                   {B.getPtrTy(), B.getPtrTy()}, false));
    B.CreateCall(Fn, {Fmt, Args});
  }

  void indexError(llvm::IRBuilder<> &B, llvm::Value *Index, unsigned Axis,
                  llvm::Value *Extent, const std::string &Kernel,
                  const std::string &File, int Line) override {
    llvm::Module &M = *B.GetInsertBlock()->getModule();
    llvm::LLVMContext &C = M.getContext();
    llvm::Type *Ptr = B.getPtrTy(), *I32 = B.getInt32Ty(), *I64 = B.getInt64Ty();
    auto *SiteTy = llvm::StructType::get(C, {Ptr, Ptr, I32, I32});
    llvm::Constant *Site = llvm::ConstantStruct::get(
        SiteTy, {B.CreateGlobalStringPtr(Kernel, "oob.kernel", 0, &M),
                 B.CreateGlobalStringPtr(File, "oob.file", 0, &M),
                 B.getInt32(Line), B.getInt32(0)});
    auto *G = new llvm::GlobalVariable(M, SiteTy, true,
                                       llvm::GlobalValue::PrivateLinkage, Site,
                                       "oob.site");
    llvm::FunctionCallee Fn = M.getOrInsertFunction(
        "pcj_cpu_index_error",
        llvm::FunctionType::get(B.getVoidTy(), {Ptr, Ptr, I64, I32, I64}, false));
    auto *Call = B.CreateCall(Fn, {Ctx, G, Index, B.getInt32(Axis), Extent});
    Call->setDoesNotReturn();
  }

private:
  llvm::Value *Ctx = nullptr;
};

} // namespace

std::unique_ptr<TargetHooks> makeHostTarget(const LowerOptions &O) {
  return std::make_unique<HostTarget>();
}

} // namespace pcj::lower
