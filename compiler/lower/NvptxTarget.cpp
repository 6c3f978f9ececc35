// Target hooks for NVIDIA GPUs (LLVM NVPTX backend).
//
//   kernel       ptx_kernel void @k(<flattened params>)
//   %tid.x       call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
//   syncthreads  call void @llvm.nvvm.barrier0()
//   math.sin     call float @__nv_sinf(float)   (libdevice, linked by codegen)
//   shared       @name = internal addrspace(3) global [N x T] undef
#include "lower/Lower.h"
#include "lower/TargetHooks.h"

#include <llvm/IR/IntrinsicsNVPTX.h>

namespace pcj::lower {

using namespace types;

namespace {

class NvptxTarget : public TargetHooks {
public:
  llvm::Function *createKernel(llvm::Module &M, const std::string &Name,
                               const std::vector<llvm::Type *> &Params,
                               llvm::IRBuilder<> &B,
                               std::vector<llvm::Value *> &Values) override {
    auto *FT = llvm::FunctionType::get(B.getVoidTy(), Params, false);
    auto *F = llvm::Function::Create(FT, llvm::Function::ExternalLinkage, Name, M);
    for (llvm::Argument &A : F->args())
      Values.push_back(&A);
    B.SetInsertPoint(llvm::BasicBlock::Create(M.getContext(), "entry", F));
    return F;
  }

  void finishKernel(llvm::Module &M, llvm::Function *K) override {
    // The calling convention is what LLVM 20+ relies on; LLVM 19 accepts it
    // as well as the older !nvvm.annotations form.
    K->setCallingConv(llvm::CallingConv::PTX_Kernel);
  }

  llvm::Function *declareDeviceFunction(llvm::Module &M, const std::string &Name,
                                        const std::vector<llvm::Type *> &Params,
                                        llvm::Type *Ret) override {
    auto *FT = llvm::FunctionType::get(Ret, Params, false);
    return llvm::Function::Create(FT, llvm::Function::InternalLinkage, Name, M);
  }

  void beginDeviceFunction(llvm::Function *F, llvm::IRBuilder<> &B,
                           std::vector<llvm::Value *> &Values) override {
    for (llvm::Argument &A : F->args())
      Values.push_back(&A);
    B.SetInsertPoint(llvm::BasicBlock::Create(F->getContext(), "entry", F));
  }

  std::vector<llvm::Value *> hiddenCallArgs() override { return {}; }

  llvm::Value *specialReg(llvm::IRBuilder<> &B, SReg R, int Dim) override {
    using namespace llvm::Intrinsic;
    static const ID Ids[4][3] = {
        {nvvm_read_ptx_sreg_tid_x, nvvm_read_ptx_sreg_tid_y,
         nvvm_read_ptx_sreg_tid_z},
        {nvvm_read_ptx_sreg_ntid_x, nvvm_read_ptx_sreg_ntid_y,
         nvvm_read_ptx_sreg_ntid_z},
        {nvvm_read_ptx_sreg_ctaid_x, nvvm_read_ptx_sreg_ctaid_y,
         nvvm_read_ptx_sreg_ctaid_z},
        {nvvm_read_ptx_sreg_nctaid_x, nvvm_read_ptx_sreg_nctaid_y,
         nvvm_read_ptx_sreg_nctaid_z}};
    return B.CreateIntrinsic(Ids[int(R)][Dim], {}, {});
  }

  void barrier(llvm::IRBuilder<> &B, int Line) override {
    usesBarriers = true;
    B.CreateIntrinsic(llvm::Intrinsic::nvvm_barrier0, {}, {});
  }

  llvm::FunctionCallee mathFunction(llvm::Module &M, const std::string &Name,
                                    TypeRef T, unsigned Arity) override {
    bool Single = T->bits() <= 32;
    llvm::Type *FT = Single ? llvm::Type::getFloatTy(M.getContext())
                            : llvm::Type::getDoubleTy(M.getContext());
    std::vector<llvm::Type *> Args(Arity, FT);
    return M.getOrInsertFunction("__nv_" + Name + (Single ? "f" : ""),
                                 llvm::FunctionType::get(FT, Args, false));
  }

  llvm::FunctionCallee mathFunctionOfType(llvm::Module &M, const std::string &Name,
                                          bool Single,
                                          llvm::FunctionType *FT) override {
    return M.getOrInsertFunction("__nv_" + Name + (Single ? "f" : ""), FT);
  }

  unsigned addrSpace(AddrSpace S) const override {
    switch (S) {
    case AddrSpace::Global:
      return 1;
    case AddrSpace::Shared:
      return 3;
    case AddrSpace::Const:
      return 4;
    case AddrSpace::Local:
      return 0; // allocas are generic; NVPTX lowers them to .local
    }
    return 0;
  }

  llvm::Value *sharedArray(llvm::Module &M, llvm::IRBuilder<> &B,
                           llvm::Type *ElemTy, uint64_t Count,
                           const std::string &Name) override {
    auto *AT = llvm::ArrayType::get(ElemTy, Count);
    auto *G = new llvm::GlobalVariable(
        M, AT, false, llvm::GlobalValue::InternalLinkage,
        llvm::UndefValue::get(AT), Name, nullptr,
        llvm::GlobalValue::NotThreadLocal, addrSpace(AddrSpace::Shared));
    G->setAlignment(llvm::Align(16));
    return G;
  }

  void indexError(llvm::IRBuilder<> &B, llvm::Value *Index, unsigned Axis,
                  llvm::Value *Extent, const std::string &Kernel,
                  const std::string &File, int Line) override {
    llvm::Module &M = *B.GetInsertBlock()->getModule();
    llvm::LLVMContext &C = M.getContext();
    std::string Fmt = "IndexError: index %lld is out of bounds for axis %d "
                      "with size %lld in kernel '" +
                      Kernel + "' (" + File + ":" + std::to_string(Line) +
                      "), thread (%d, %d, %d) block (%d, %d, %d)\n";
    llvm::Value *FmtPtr = B.CreateGlobalStringPtr(Fmt, "oob.fmt", 0, &M);
    llvm::Type *I32 = B.getInt32Ty(), *I64 = B.getInt64Ty();
    auto *ST = llvm::StructType::get(C, {I64, I32, I64, I32, I32, I32, I32, I32, I32});
    llvm::IRBuilder<> EB(&B.GetInsertBlock()->getParent()->getEntryBlock(),
                         B.GetInsertBlock()->getParent()->getEntryBlock().begin());
    llvm::Value *Buf = EB.CreateAlloca(ST);
    llvm::Value *Fields[] = {Index,
                             B.getInt32(Axis),
                             Extent,
                             specialReg(B, SReg::Tid, 0),
                             specialReg(B, SReg::Tid, 1),
                             specialReg(B, SReg::Tid, 2),
                             specialReg(B, SReg::CtaId, 0),
                             specialReg(B, SReg::CtaId, 1),
                             specialReg(B, SReg::CtaId, 2)};
    for (unsigned K = 0; K < 9; ++K)
      B.CreateStore(Fields[K], B.CreateStructGEP(ST, Buf, K));
    vprintf(B, FmtPtr, Buf);
    B.CreateIntrinsic(llvm::Intrinsic::trap, {}, {});
  }

  void vprintf(llvm::IRBuilder<> &B, llvm::Value *Fmt, llvm::Value *Args) override {
    llvm::Module &M = *B.GetInsertBlock()->getModule();
    llvm::FunctionCallee VPrintf = M.getOrInsertFunction(
        "vprintf", llvm::FunctionType::get(B.getInt32Ty(),
                                           {B.getPtrTy(), B.getPtrTy()}, false));
    B.CreateCall(VPrintf, {Fmt, Args});
  }
};

} // namespace

std::unique_ptr<TargetHooks> makeNvptxTarget(const LowerOptions &O) {
  return std::make_unique<NvptxTarget>();
}

} // namespace pcj::lower
