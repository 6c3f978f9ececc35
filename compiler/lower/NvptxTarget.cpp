// Target hooks for NVIDIA GPUs (LLVM NVPTX backend).
//
//   kernel       ptx_kernel void @k(<flattened params>)
//   %tid.x       call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
//   syncthreads  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
//   math.sin     call float @__nv_sinf(float)   (libdevice, linked by codegen)
//   shared       @name = internal addrspace(3) global [N x T] undef
//   dyn. shared  @pcj_dynshared = external addrspace(3) global [0 x i8]
//   constant     @const_<hash> = internal addrspace(4) constant [N x T] [...]
//   atomics      atomicrmw (atom.*), `red` via inline asm when unused
//   warp ops     @llvm.nvvm.shfl.sync.* / vote.sync.* / match.*.sync
//   grid sync    @pcj_grid_sync (barrier word of the cooperative launch)
//   float -> int cvt.rzi.s32.f32 etc. (inline asm: saturating, NaN -> 0)
//   raise/assert call @pcj.error (cold): the error record, PTX exit
//   (NvptxErrors.cpp)
#include "lower/Lower.h"
#include "lower/NvptxErrors.h"
#include "lower/TargetHooks.h"

#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/IntrinsicsNVPTX.h>

#include <set>

namespace pcj::lower {

using namespace types;

namespace {

// The inline-assembly constraint of a PTX register holding `Bits` bits
// (8-bit values live in 16-bit registers).
const char *registerConstraint(unsigned Bits) {
  return Bits <= 16 ? "h" : Bits == 32 ? "r" : "l";
}

class NvptxTarget : public TargetHooks {
public:
  llvm::Function *createKernel(llvm::Module &M, const std::string &Name,
                               const std::vector<KernelParam> &Params,
                               llvm::IRBuilder<> &B,
                               std::vector<llvm::Value *> &Values) override {
    // An aggregate is a byval pointer: `.param .align A .b8 p[size]`, read
    // in place (ld.param) by NVPTXLowerArgs.
    std::vector<llvm::Type *> Types;
    for (const KernelParam &P : Params)
      Types.push_back(P.aggregate ? B.getPtrTy() : P.type);
    auto *FT = llvm::FunctionType::get(B.getVoidTy(), Types, false);
    auto *F =
        llvm::Function::Create(FT, llvm::Function::ExternalLinkage, Name, M);
    for (unsigned K = 0; K < Params.size(); ++K) {
      if (!Params[K].aggregate)
        continue;
      llvm::Type *T = Params[K].type;
      F->addParamAttr(K, llvm::Attribute::getWithByValType(M.getContext(), T));
      F->addParamAttr(
          K, llvm::Attribute::getWithAlignment(
                 M.getContext(), M.getDataLayout().getABITypeAlign(T)));
    }
    for (llvm::Argument &A : F->args())
      Values.push_back(&A);
    B.SetInsertPoint(llvm::BasicBlock::Create(M.getContext(), "entry", F));
    return F;
  }

  // PTX ISA 8.1 on sm_70+ (the backend raises the PTX version when a
  // kernel needs it), 4352 bytes before.
  size_t maxKernelParamBytes() const override {
    return CcMajor >= 7 ? 32764 : 4352;
  }

  void finishKernel(llvm::Module &M, llvm::Function *K) override {
    // The calling convention marks kernels (LLVM 20+ ignores the older
    // !nvvm.annotations form).
    K->setCallingConv(llvm::CallingConv::PTX_Kernel);
    if (usesGridSync) // the kernel is lowered last: every site is known
      trapAfterRecording(M);
  }

  llvm::Function *declareDeviceFunction(llvm::Module &M,
                                        const std::string &Name,
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
    return B.CreateIntrinsic(Ids[int(R)][Dim], {});
  }

  // bar.sync 0 (LLVM 21+ names it barrier.cta.sync.aligned.all).
  static void ctaBarrier(llvm::IRBuilder<> &B) {
    B.CreateIntrinsic(llvm::Intrinsic::nvvm_barrier_cta_sync_aligned_all,
                      {B.getInt32(0)});
  }

  // bar.red.{popc,and,or} on barrier 0 over an i1 predicate (Kind 0, 1, 2);
  // the result as i32 (and/or give i1 in LLVM 21+).
  static llvm::Value *ctaBarrierReduce(llvm::IRBuilder<> &B, unsigned Kind,
                                       llvm::Value *Pred) {
    using namespace llvm::Intrinsic;
    static const ID Ids[3] = {nvvm_barrier_cta_red_popc_aligned_all,
                              nvvm_barrier_cta_red_and_aligned_all,
                              nvvm_barrier_cta_red_or_aligned_all};
    if (!Pred->getType()->isIntegerTy(1))
      Pred =
          B.CreateICmpNE(Pred, llvm::Constant::getNullValue(Pred->getType()));
    llvm::Value *R = B.CreateIntrinsic(Ids[Kind], {B.getInt32(0), Pred});
    return R->getType()->isIntegerTy(32) ? R : B.CreateZExt(R, B.getInt32Ty());
  }

  void barrier(llvm::IRBuilder<> &B, int Line) override {
    usesBarriers = true;
    ctaBarrier(B);
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

  llvm::FunctionCallee mathFunctionOfType(llvm::Module &M,
                                          const std::string &Name, bool Single,
                                          llvm::FunctionType *FT) override {
    return M.getOrInsertFunction("__nv_" + Name + (Single ? "f" : ""), FT);
  }

  llvm::Value *opaqueBits(llvm::IRBuilder<> &B, llvm::Value *IntBits) override {
    unsigned Bits = IntBits->getType()->getIntegerBitWidth();
    const char *Asm = Bits == 16   ? "mov.b16 $0, $1;"
                      : Bits == 32 ? "mov.b32 $0, $1;"
                                   : "mov.b64 $0, $1;";
    const char *Cons = Bits == 16 ? "=h,h" : Bits == 32 ? "=r,r" : "=l,l";
    if (Bits != 16 && Bits != 32 && Bits != 64)
      return IntBits;
    auto *FT = llvm::FunctionType::get(IntBits->getType(), {IntBits->getType()},
                                       false);
    return B.CreateCall(llvm::InlineAsm::get(FT, Asm, Cons, false), {IntBits});
  }

  llvm::FunctionCallee approxMathFunction(llvm::Module &M,
                                          const std::string &Name,
                                          unsigned Arity) override {
    static const std::set<std::string> Fast = {
        "sin", "cos", "tan", "exp", "exp10", "log", "log2", "log10", "pow"};
    llvm::Type *F = llvm::Type::getFloatTy(M.getContext());
    // __nv_fast_tanhf is tanh.approx.f32, an sm_75 instruction
    if (!Fast.count(Name) && !(Name == "tanh" && cc() >= 75))
      return {};
    std::vector<llvm::Type *> Args(Arity, F);
    return M.getOrInsertFunction("__nv_fast_" + Name + "f",
                                 llvm::FunctionType::get(F, Args, false));
  }

  llvm::FunctionCallee libdeviceFunction(llvm::Module &M,
                                         const std::string &Name,
                                         llvm::FunctionType *FT) override {
    return M.getOrInsertFunction("__nv_" + Name, FT);
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
    case AddrSpace::Generic:
      return 0;
    }
    return 0;
  }

  llvm::Value *sharedArray(llvm::Module &M, llvm::IRBuilder<> &B,
                           llvm::Type *ElemTy, uint64_t Count,
                           const std::string &Name, unsigned Align) override {
    auto *AT = llvm::ArrayType::get(ElemTy, Count);
    staticSharedBytes = (staticSharedBytes + Align - 1) / Align * Align +
                        M.getDataLayout().getTypeAllocSize(AT);
    auto *G = new llvm::GlobalVariable(
        M, AT, false, llvm::GlobalValue::InternalLinkage,
        llvm::UndefValue::get(AT), Name, nullptr,
        llvm::GlobalValue::NotThreadLocal, addrSpace(AddrSpace::Shared));
    G->setAlignment(llvm::Align(Align));
    return G;
  }

  // Failing threads fill the context's error record and exit
  // (NvptxErrors.cpp): the host raises the exception at its next
  // synchronizing call, and the context survives.
  void indexError(llvm::IRBuilder<> &B,
                  const std::vector<llvm::Value *> &Indices,
                  const std::vector<llvm::Value *> &Shape, unsigned Axis,
                  const std::string &Kernel, const std::string &File,
                  int Line) override {
    DeviceErrorSite Site{"KernelIndexError", "", "", Kernel, File, Line,
                         int(Axis)};
    emitDeviceError(B, Site, Indices, Shape);
  }

  void recursionCheck(llvm::IRBuilder<> &, const std::string &,
                      const std::string &, int) override {}

  void raiseError(llvm::IRBuilder<> &B, RaisedError Kind,
                  const std::string &Message, const std::string &Kernel,
                  const std::string &File, int Line) override {
    const char *Class =
        Kind == RaisedError::ZeroDivisionError   ? "KernelZeroDivisionError"
        : Kind == RaisedError::ValueError        ? "KernelValueError"
        : Kind == RaisedError::UnboundLocalError ? "KernelUnboundLocalError"
                                                 : "KernelIndexError";
    emitDeviceError(B, {Class, "", Message, Kernel, File, Line});
  }

  void raiseException(llvm::IRBuilder<> &B, const std::string &Class,
                      const std::string &Message, const std::string &Kernel,
                      const std::string &File, int Line) override {
    emitDeviceError(B, {"", Class, Message, Kernel, File, Line});
  }

  // cvt.rzi saturates to the destination's range and turns NaN into 0 --
  // the definition -- in one instruction.  Through inline asm: LLVM's
  // fptosi.sat expands to compares and selects around the cvt, and
  // InstCombine rewrites the nvvm.f2i.rz family into plain fptosi (poison
  // out of range).  Constants fold through the generic intrinsic.  8- and
  // 16-bit results clamp the 32-bit conversion.
  llvm::Value *floatToInt(llvm::IRBuilder<> &B, llvm::Value *V,
                          llvm::Type *IntTy, bool Signed) override {
    if (llvm::isa<llvm::Constant>(V))
      return B.CreateIntrinsic(Signed ? llvm::Intrinsic::fptosi_sat
                                      : llvm::Intrinsic::fptoui_sat,
                               {IntTy, V->getType()}, {V});
    // float16 converts itself (cvt.rzi.s32.f16, as CUDA's __half2int_rz);
    // bfloat16 through float32, exactly.
    if (V->getType()->isBFloatTy())
      V = B.CreateFPExt(V, B.getFloatTy());
    bool Double = V->getType()->isDoubleTy();
    bool Half = V->getType()->isHalfTy();
    unsigned Bits = IntTy->getIntegerBitWidth();
    bool Narrow = Bits < 32;
    llvm::Type *CvtTy = Bits == 64 ? B.getInt64Ty() : B.getInt32Ty();
    std::string Asm = std::string("cvt.rzi.") + (Signed || Narrow ? "s" : "u") +
                      (Bits == 64 ? "64" : "32") +
                      (Double ? ".f64"
                       : Half ? ".f16"
                              : ".f32") +
                      " $0, $1;";
    std::string Constraints =
        std::string(Bits == 64 ? "=l," : "=r,") + (Double ? "d"
                                                   : Half ? "h"
                                                          : "f");
    auto *FT = llvm::FunctionType::get(CvtTy, {V->getType()}, false);
    llvm::Value *R = B.CreateCall(
        FT,
        llvm::InlineAsm::get(FT, Asm, Constraints, /*hasSideEffects=*/false),
        {V});
    // cvt.rzi saturates, but NaN is 0 only for some conversions: on the
    // H200, f64 -> s32 and every conversion to a 64-bit integer give the
    // most negative value (0x80...0).  One select makes NaN 0 everywhere.
    R = B.CreateSelect(B.CreateFCmpUNO(V, V), llvm::ConstantInt::get(CvtTy, 0),
                       R);
    if (!Narrow)
      return R;
    llvm::APInt Lo = Signed ? llvm::APInt::getSignedMinValue(Bits)
                            : llvm::APInt::getMinValue(Bits);
    llvm::APInt Hi = Signed ? llvm::APInt::getSignedMaxValue(Bits)
                            : llvm::APInt::getMaxValue(Bits);
    R = B.CreateBinaryIntrinsic(
        llvm::Intrinsic::smax, R,
        B.getInt32(uint32_t(Signed ? Lo.getSExtValue() : Lo.getZExtValue())));
    R = B.CreateBinaryIntrinsic(
        llvm::Intrinsic::smin, R,
        B.getInt32(uint32_t(Signed ? Hi.getSExtValue() : Hi.getZExtValue())));
    return B.CreateTrunc(R, IntTy);
  }

  // The device runtime's malloc/free: PTX declares them .extern and the
  // linker (nvJitLink, the driver) supplies them.
  llvm::Value *heapAlloc(llvm::IRBuilder<> &B, llvm::Value *Bytes) override {
    llvm::Module &M = *B.GetInsertBlock()->getModule();
    llvm::FunctionCallee Fn = M.getOrInsertFunction(
        "malloc",
        llvm::FunctionType::get(B.getPtrTy(), {B.getInt64Ty()}, false));
    return B.CreateCall(Fn, {Bytes});
  }
  void heapFree(llvm::IRBuilder<> &B, llvm::Value *Ptr) override {
    llvm::Module &M = *B.GetInsertBlock()->getModule();
    llvm::FunctionCallee Fn = M.getOrInsertFunction(
        "free", llvm::FunctionType::get(B.getVoidTy(), {B.getPtrTy()}, false));
    B.CreateCall(Fn, {Ptr});
  }

  void vprintf(llvm::IRBuilder<> &B, llvm::Value *Fmt,
               llvm::Value *Args) override {
    llvm::Module &M = *B.GetInsertBlock()->getModule();
    llvm::FunctionCallee VPrintf = M.getOrInsertFunction(
        "vprintf", llvm::FunctionType::get(
                       B.getInt32Ty(), {B.getPtrTy(), B.getPtrTy()}, false));
    B.CreateCall(VPrintf, {Fmt, Args});
  }

  // ---- CUDA device intrinsics -----------------------------------------------

  int CcMajor = 9, CcMinor = 0; // of the target GPU (set by makeNvptxTarget)

  int cc() const { return CcMajor * 10 + CcMinor; }

  // The PTX ISA version LLVM emits follows the architecture (sm_70: 6.0,
  // sm_75: 6.3, sm_80: 7.0), so some instructions need a newer sm_ than
  // the hardware would.
  std::string missing(Feature F) const override {
    std::string Arch = "sm_" + std::to_string(cc());
    switch (F) {
    case Feature::WarpSync:
      if (cc() < 70)
        return "needs a GPU of compute capability 7.0 or newer (compiling "
               "for " +
               Arch + ", whose PTX has no *.sync warp instructions)";
      return {};
    case Feature::MatchSync:
      if (cc() < 70)
        return "needs a GPU of compute capability 7.0 or newer (match.sync; "
               "compiling for " +
               Arch + ")";
      return {};
    case Feature::ActiveMask:
      if (cc() < 75)
        return "needs compute capability 7.5 or newer (activemask is PTX ISA "
               "6.2; code for " +
               Arch + " is emitted as an older PTX ISA)";
      return {};
    }
    return {};
  }

  // `.extern .shared .align 16 .b8 pcj_dynshared[]`: the launch's dynamic
  // shared memory; every dynamic array aliases it.
  llvm::Value *dynamicSharedArray(llvm::Module &M,
                                  llvm::IRBuilder<> &B) override {
    const char *Name = "pcj_dynshared";
    if (llvm::GlobalVariable *G = M.getNamedGlobal(Name))
      return G;
    auto *AT = llvm::ArrayType::get(B.getInt8Ty(), 0);
    auto *G = new llvm::GlobalVariable(
        M, AT, false, llvm::GlobalValue::ExternalLinkage, nullptr, Name,
        nullptr, llvm::GlobalValue::NotThreadLocal,
        addrSpace(AddrSpace::Shared));
    G->setAlignment(llvm::Align(16));
    return G;
  }

  llvm::Value *dynamicSharedBytes(llvm::IRBuilder<> &B) override {
    auto *FT = llvm::FunctionType::get(B.getInt32Ty(), false);
    auto *Asm = llvm::InlineAsm::get(FT, "mov.u32 $0, %dynamic_smem_size;",
                                     "=r", /*hasSideEffects=*/false);
    return B.CreateZExt(B.CreateCall(FT, Asm), B.getInt64Ty(), "dynsmem.bytes");
  }

  // `.const` data (addrspace 4).
  llvm::Value *constArray(llvm::Module &M, llvm::Constant *Init,
                          const std::string &Name) override {
    if (llvm::GlobalVariable *G = M.getNamedGlobal(Name))
      return G;
    auto *G = new llvm::GlobalVariable(
        M, Init->getType(), true, llvm::GlobalValue::InternalLinkage, Init,
        Name, nullptr, llvm::GlobalValue::NotThreadLocal,
        addrSpace(AddrSpace::Const));
    G->setAlignment(llvm::Align(16));
    return G;
  }

  // bar.red.popc / .and / .or
  llvm::Value *barrierReduce(llvm::IRBuilder<> &B, unsigned Kind,
                             llvm::Value *Pred, int Line) override {
    usesBarriers = true;
    using namespace llvm::Intrinsic;
    return ctaBarrierReduce(B, Kind, Pred);
  }

  // membar.cta / membar.gl / membar.sys
  void fence(llvm::IRBuilder<> &B, unsigned Scope) override {
    using namespace llvm::Intrinsic;
    static const ID Ids[3] = {nvvm_membar_cta, nvvm_membar_gl, nvvm_membar_sys};
    B.CreateIntrinsic(Ids[Scope], {});
  }

  // nanosleep.u32.  Where it cannot be emitted (see below) nothing is: the
  // sleep is a hint whose length may be anything from 0 to twice the
  // request.
  void nanosleep(llvm::IRBuilder<> &B, llvm::Value *Ns) override {
    if (cc() >= 75) // nanosleep is sm_70 and PTX ISA 6.3 (emitted from sm_75)
      B.CreateIntrinsic(llvm::Intrinsic::nvvm_nanosleep, {Ns});
  }

  // The grid barrier of CUDA's cooperative groups, on the barrier word of the
  // driver's grid workspace (%envreg1:%envreg2, high:low, of a cooperative
  // launch; the word is at offset 4): after a block barrier, one thread of
  // each block (the master) adds 1 (block 0 adds 2^31 - (blocks - 1)), so
  // the word's top bit flips when the last block arrives; each waits for the
  // flip, then the block meets again.  Threads that exited count as arrived
  // (bar.sync and bar.red do not wait for them), so the master is thread 0
  // when it is alive (the first barrier counts it with bar.red.popc), else
  // the live thread with the lowest linear index, found bit by bit with
  // bar.red.or (uniform control flow: every live thread runs the same
  // barriers).  A block all of whose threads exited never arrives.
  void gridSync(llvm::IRBuilder<> &B, int Line) override {
    usesBarriers = true;
    usesGridSync = true;
    llvm::Module &M = *B.GetInsertBlock()->getModule();
    llvm::Function *F = M.getFunction("pcj_grid_sync");
    if (!F)
      F = buildGridSync(M);
    llvm::CallInst *Call = B.CreateCall(F, {});
    Call->setConvergent();
  }

  llvm::Function *buildGridSync(llvm::Module &M) {
    using namespace llvm::Intrinsic;
    llvm::LLVMContext &C = M.getContext();
    auto *F = llvm::Function::Create(
        llvm::FunctionType::get(llvm::Type::getVoidTy(C), false),
        llvm::GlobalValue::InternalLinkage, "pcj_grid_sync", M);
    F->addFnAttr(llvm::Attribute::Convergent);
    F->addFnAttr(llvm::Attribute::AlwaysInline);
    auto *Entry = llvm::BasicBlock::Create(C, "entry", F);
    auto *Elect = llvm::BasicBlock::Create(C, "elect", F);
    auto *Decide = llvm::BasicBlock::Create(C, "decide", F);
    auto *Master = llvm::BasicBlock::Create(C, "master", F);
    auto *Spin = llvm::BasicBlock::Create(C, "spin", F);
    auto *Flipped = llvm::BasicBlock::Create(C, "flipped", F);
    auto *Done = llvm::BasicBlock::Create(C, "done", F);
    llvm::IRBuilder<> B(Entry);
    llvm::Type *I32 = B.getInt32Ty(), *I64 = B.getInt64Ty();
    auto Or3 = [&](SReg R) {
      return B.CreateOr(B.CreateOr(specialReg(B, R, 0), specialReg(B, R, 1)),
                        specialReg(B, R, 2));
    };
    // Linear thread index: x + ntid.x * (y + ntid.y * z).
    llvm::Value *Linear = B.CreateAdd(
        specialReg(B, SReg::Tid, 0),
        B.CreateMul(specialReg(B, SReg::NTid, 0),
                    B.CreateAdd(specialReg(B, SReg::Tid, 1),
                                B.CreateMul(specialReg(B, SReg::NTid, 1),
                                            specialReg(B, SReg::Tid, 2)))));
    llvm::Value *IsZero = B.CreateICmpEQ(Linear, B.getInt32(0));
    llvm::Value *ZeroAlive = ctaBarrierReduce(B, 0, IsZero);
    B.CreateCondBr(B.CreateICmpNE(ZeroAlive, B.getInt32(0)), Decide, Elect);

    // Thread 0 exited: keep the candidates whose bit is clear wherever some
    // candidate has it clear, from bit 9 down (1024 threads at most).
    B.SetInsertPoint(Elect);
    llvm::PHINode *Bit = B.CreatePHI(I32, 2, "bit");
    llvm::PHINode *Cand = B.CreatePHI(B.getInt1Ty(), 2, "cand");
    Bit->addIncoming(B.getInt32(9), Entry);
    Cand->addIncoming(B.getTrue(), Entry);
    llvm::Value *Clear = B.CreateICmpEQ(
        B.CreateAnd(B.CreateLShr(Linear, Bit), B.getInt32(1)), B.getInt32(0));
    llvm::Value *Keep = B.CreateAnd(Cand, Clear);
    llvm::Value *Any = ctaBarrierReduce(B, 2, Keep);
    llvm::Value *Next =
        B.CreateSelect(B.CreateICmpNE(Any, B.getInt32(0)), Keep, Cand);
    Bit->addIncoming(B.CreateSub(Bit, B.getInt32(1)), Elect);
    Cand->addIncoming(Next, Elect);
    llvm::Instruction *Latch =
        B.CreateCondBr(B.CreateICmpEQ(Bit, B.getInt32(0)), Decide, Elect);
    // A rare path: keep it a loop rather than ten unrolled barriers.
    llvm::MDNode *NoUnroll = llvm::MDNode::get(
        C, llvm::MDString::get(C, "llvm.loop.unroll.disable"));
    llvm::MDNode *Loop = llvm::MDNode::getDistinct(C, {nullptr, NoUnroll});
    Loop->replaceOperandWith(0, Loop);
    Latch->setMetadata(llvm::LLVMContext::MD_loop, Loop);

    B.SetInsertPoint(Decide);
    llvm::PHINode *IsMaster = B.CreatePHI(B.getInt1Ty(), 2, "is.master");
    IsMaster->addIncoming(IsZero, Entry);
    IsMaster->addIncoming(Next, Elect);
    B.CreateCondBr(IsMaster, Master, Done);

    B.SetInsertPoint(Master);
    // CUDA's `mov.b64 %ws, {%envreg2, %envreg1}`: envreg2 is the low half.
    llvm::Value *Lo =
        B.CreateZExt(B.CreateIntrinsic(nvvm_read_ptx_sreg_envreg2, {}), I64);
    llvm::Value *Hi =
        B.CreateZExt(B.CreateIntrinsic(nvvm_read_ptx_sreg_envreg1, {}), I64);
    llvm::Value *Ws = B.CreateIntToPtr(B.CreateOr(B.CreateShl(Hi, 32), Lo),
                                       B.getPtrTy(), "grid.workspace");
    llvm::Value *Word =
        B.CreateConstInBoundsGEP1_64(B.getInt8Ty(), Ws, 4, "grid.barrier");
    llvm::Value *Blocks =
        B.CreateMul(B.CreateMul(specialReg(B, SReg::NCtaId, 0),
                                specialReg(B, SReg::NCtaId, 1)),
                    specialReg(B, SReg::NCtaId, 2));
    llvm::Value *First = B.CreateICmpEQ(Or3(SReg::CtaId), B.getInt32(0));
    llvm::Value *Add =
        B.CreateSelect(First,
                       B.CreateSub(B.getInt32(0x80000000u),
                                   B.CreateSub(Blocks, B.getInt32(1))),
                       B.getInt32(1));
    B.CreateIntrinsic(nvvm_membar_gl, {});
    llvm::Value *Old =
        B.CreateAtomicRMW(llvm::AtomicRMWInst::Add, Word, Add,
                          llvm::MaybeAlign(4), llvm::AtomicOrdering::Monotonic);
    B.CreateBr(Spin);

    B.SetInsertPoint(Spin);
    auto *Cur =
        B.CreateAlignedLoad(I32, Word, llvm::Align(4), /*isVolatile=*/true);
    llvm::Value *Flip =
        B.CreateAnd(B.CreateXor(Old, Cur), B.getInt32(0x80000000u));
    B.CreateCondBr(B.CreateICmpNE(Flip, B.getInt32(0)), Flipped, Spin);

    B.SetInsertPoint(Flipped);
    B.CreateIntrinsic(nvvm_membar_gl, {});
    B.CreateBr(Done);

    B.SetInsertPoint(Done);
    ctaBarrier(B);
    B.CreateRetVoid();
    return F;
  }

  // atomicrmw, except: PTX `red` when the result is unused, and atom.inc /
  // atom.dec for 32-bit inc/dec (LLVM 19 expands uinc_wrap / udec_wrap into
  // CAS loops).  LLVM's own atom.* selection covers the rest, with CAS loops
  // where PTX has no instruction (e.g. 64-bit inc/dec).
  llvm::Value *atomicRMW(llvm::IRBuilder<> &B, llvm::AtomicRMWInst::BinOp Op,
                         llvm::Value *Ptr, llvm::Value *Val, AddrSpace S,
                         bool ResultUsed) override {
    using BinOp = llvm::AtomicRMWInst::BinOp;
    llvm::Type *T = Val->getType();
    std::string Space = S == AddrSpace::Shared   ? ".shared"
                        : S == AddrSpace::Global ? ".global"
                                                 : "";
    bool I32 = T->isIntegerTy(32), I64 = T->isIntegerTy(64);
    std::string Inst, Ty;
    switch (Op) {
    case BinOp::Add:
    case BinOp::Sub:
      Inst = "add"; // sub: add of the negated value
      Ty = I32 ? "u32" : I64 ? "u64" : "";
      break;
    case BinOp::FAdd:
      Inst = "add";
      Ty = T->isFloatTy()                    ? "f32"
           : T->isDoubleTy() && CcMajor >= 6 ? "f64"
           : T->isHalfTy() && cc() >= 75     ? "noftz.f16" // PTX 6.3
                                             : "";
      break;
    case BinOp::And:
    case BinOp::Or:
    case BinOp::Xor:
      Inst = Op == BinOp::And ? "and" : Op == BinOp::Or ? "or" : "xor";
      Ty = I32 ? "b32" : I64 ? "b64" : "";
      break;
    case BinOp::Max:
    case BinOp::Min:
      Inst = Op == BinOp::Max ? "max" : "min";
      Ty = I32 ? "s32" : I64 ? "s64" : "";
      break;
    case BinOp::UMax:
    case BinOp::UMin:
      Inst = Op == BinOp::UMax ? "max" : "min";
      Ty = I32 ? "u32" : I64 ? "u64" : "";
      break;
    case BinOp::UIncWrap:
    case BinOp::UDecWrap:
      Inst = Op == BinOp::UIncWrap ? "inc" : "dec";
      Ty = I32 ? "u32" : "";
      break;
    default:
      break;
    }
    bool Inc = Op == BinOp::UIncWrap || Op == BinOp::UDecWrap;
    if (!Ty.empty() && (!ResultUsed || Inc)) {
      bool Half = T->isHalfTy();
      llvm::Type *RT = Half ? B.getInt16Ty() : T;
      llvm::Value *V = Half ? B.CreateBitCast(Val, RT) : Val;
      if (Op == BinOp::Sub)
        V = B.CreateNeg(V);
      std::string C = RT->isIntegerTy(16)   ? "h"
                      : RT->isIntegerTy(32) ? "r"
                      : RT->isIntegerTy(64) ? "l"
                      : RT->isFloatTy()     ? "f"
                                            : "d";
      if (!ResultUsed) {
        auto *FT =
            llvm::FunctionType::get(B.getVoidTy(), {Ptr->getType(), RT}, false);
        auto *Asm = llvm::InlineAsm::get(
            FT, "red" + Space + "." + Inst + "." + Ty + " [$0], $1;",
            "l," + C + ",~{memory}", /*hasSideEffects=*/true);
        B.CreateCall(FT, Asm, {Ptr, V});
        return llvm::PoisonValue::get(T);
      }
      auto *FT = llvm::FunctionType::get(RT, {Ptr->getType(), RT}, false);
      auto *Asm = llvm::InlineAsm::get(
          FT, "atom" + Space + "." + Inst + "." + Ty + " $0, [$1], $2;",
          "=" + C + ",l," + C + ",~{memory}", /*hasSideEffects=*/true);
      llvm::Value *R = B.CreateCall(FT, Asm, {Ptr, V});
      return Half ? B.CreateBitCast(R, T) : R;
    }
    return B.CreateAtomicRMW(Op, Ptr, Val, llvm::MaybeAlign(),
                             llvm::AtomicOrdering::Monotonic);
  }

  // ld.global.<op>.b<bits> / st.global.<op>.b<bits> as inline assembly
  // (LLVM has no cache operators on loads and stores).  PTX has no 8-bit
  // registers: .b8 moves the low byte of a 16-bit one.  Both are ordered
  // with the kernel's other memory accesses (side effects, memory clobber).
  llvm::Value *cacheHintLoad(llvm::IRBuilder<> &B, llvm::Type *T,
                             llvm::Value *Ptr, const std::string &Op) override {
    unsigned Bits = T->getPrimitiveSizeInBits();
    llvm::Type *RT = B.getIntNTy(std::max(16u, Bits));
    auto *FT = llvm::FunctionType::get(RT, {Ptr->getType()}, false);
    auto *Asm = llvm::InlineAsm::get(
        FT, "ld.global." + Op + ".b" + std::to_string(Bits) + " $0, [$1];",
        std::string("=") + registerConstraint(Bits) + ",l,~{memory}",
        /*hasSideEffects=*/true);
    llvm::Value *V = B.CreateCall(FT, Asm, {Ptr});
    if (Bits == 8)
      V = B.CreateTrunc(V, B.getInt8Ty());
    return B.CreateBitCast(V, T);
  }

  void cacheHintStore(llvm::IRBuilder<> &B, llvm::Value *Ptr, llvm::Value *Val,
                      const std::string &Op) override {
    unsigned Bits = Val->getType()->getPrimitiveSizeInBits();
    llvm::Value *V = B.CreateBitCast(Val, B.getIntNTy(Bits));
    if (Bits == 8)
      V = B.CreateZExt(V, B.getInt16Ty());
    auto *FT = llvm::FunctionType::get(B.getVoidTy(),
                                       {Ptr->getType(), V->getType()}, false);
    auto *Asm = llvm::InlineAsm::get(
        FT, "st.global." + Op + ".b" + std::to_string(Bits) + " [$0], $1;",
        std::string("l,") + registerConstraint(Bits) + ",~{memory}",
        /*hasSideEffects=*/true);
    B.CreateCall(FT, Asm, {Ptr, V});
  }

  void syncWarp(llvm::IRBuilder<> &B, llvm::Value *Mask) override {
    B.CreateIntrinsic(llvm::Intrinsic::nvvm_bar_warp_sync, {Mask});
  }

  // shfl.sync.{idx,up,down,bfly}.b32; 64-bit values as two 32-bit halves.
  // c = ((32 - width) << 8) | clamp with width 32: 0 for up, 0x1f otherwise.
  llvm::Value *shuffle(llvm::IRBuilder<> &B, unsigned Mode, llvm::Value *Mask,
                       llvm::Value *Value, llvm::Value *Lane) override {
    using namespace llvm::Intrinsic;
    static const ID I32[4] = {nvvm_shfl_sync_idx_i32, nvvm_shfl_sync_up_i32,
                              nvvm_shfl_sync_down_i32, nvvm_shfl_sync_bfly_i32};
    static const ID F32[4] = {nvvm_shfl_sync_idx_f32, nvvm_shfl_sync_up_f32,
                              nvvm_shfl_sync_down_f32, nvvm_shfl_sync_bfly_f32};
    llvm::Value *C = B.getInt32(Mode == 1 ? 0 : 0x1f);
    llvm::Type *T = Value->getType();
    if (T->isFloatTy())
      return B.CreateIntrinsic(F32[Mode], {Mask, Value, Lane, C});
    if (T->isIntegerTy(32))
      return B.CreateIntrinsic(I32[Mode], {Mask, Value, Lane, C});
    llvm::Value *V = B.CreateBitCast(Value, B.getInt64Ty());
    llvm::Value *Lo = B.CreateTrunc(V, B.getInt32Ty());
    llvm::Value *Hi = B.CreateTrunc(B.CreateLShr(V, 32), B.getInt32Ty());
    Lo = B.CreateIntrinsic(I32[Mode], {Mask, Lo, Lane, C});
    Hi = B.CreateIntrinsic(I32[Mode], {Mask, Hi, Lane, C});
    llvm::Value *R =
        B.CreateOr(B.CreateShl(B.CreateZExt(Hi, B.getInt64Ty()), 32),
                   B.CreateZExt(Lo, B.getInt64Ty()));
    return B.CreateBitCast(R, T);
  }

  llvm::Value *vote(llvm::IRBuilder<> &B, unsigned Mode, llvm::Value *Mask,
                    llvm::Value *Pred) override {
    using namespace llvm::Intrinsic;
    static const ID Ids[4] = {nvvm_vote_all_sync, nvvm_vote_any_sync,
                              nvvm_vote_uni_sync, nvvm_vote_ballot_sync};
    llvm::Value *R = B.CreateIntrinsic(Ids[Mode], {Mask, Pred});
    return Mode == 3 ? R : B.CreateZExt(R, B.getInt32Ty());
  }

  llvm::Value *matchAny(llvm::IRBuilder<> &B, llvm::Value *Mask,
                        llvm::Value *Value) override {
    using namespace llvm::Intrinsic;
    bool Wide = Value->getType()->isIntegerTy(64);
    return B.CreateIntrinsic(Wide ? nvvm_match_any_sync_i64
                                  : nvvm_match_any_sync_i32,
                             {Mask, Value});
  }

  llvm::Value *matchAll(llvm::IRBuilder<> &B, llvm::Value *Mask,
                        llvm::Value *Value) override {
    using namespace llvm::Intrinsic;
    bool Wide = Value->getType()->isIntegerTy(64);
    return B.CreateIntrinsic(Wide ? nvvm_match_all_sync_i64p
                                  : nvvm_match_all_sync_i32p,
                             {Mask, Value});
  }

  llvm::Value *activeMask(llvm::IRBuilder<> &B) override {
    return B.CreateIntrinsic(llvm::Intrinsic::nvvm_activemask, {});
  }
  llvm::Value *laneMaskLt(llvm::IRBuilder<> &B) override {
    return B.CreateIntrinsic(llvm::Intrinsic::nvvm_read_ptx_sreg_lanemask_lt,
                             {});
  }
  llvm::Value *laneId(llvm::IRBuilder<> &B) override {
    return B.CreateIntrinsic(llvm::Intrinsic::nvvm_read_ptx_sreg_laneid, {});
  }
};

} // namespace

std::unique_ptr<TargetHooks> makeNvptxTarget(const LowerOptions &O) {
  auto T = std::make_unique<NvptxTarget>();
  T->CcMajor = O.ccMajor;
  T->CcMinor = O.ccMinor;
  return T;
}

} // namespace pcj::lower
