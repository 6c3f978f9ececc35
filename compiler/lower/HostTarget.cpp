// Target hooks for the host CPU (the CPU executor, runtime/cpu).
//
//   kernel       void @k(ptr %args, ptr %ctx): parameter i is *args[i],
//                exactly like CUDA's kernelParams array
//   %tid.x       load i32 from %ctx (pcj_thread_ctx, runtime/cpu/ThreadCtx.h)
//   syncthreads  call void @pcj_cpu_syncthreads(ptr %ctx, i32 site, i32 line)
//                (site: a number per call site in the module)
//   math.sin     call float @sinf(float)   (libm of the process)
//   shared       ctx->shared + a constant offset (static shared memory)
//   dyn. shared  ctx->dynShared, ctx->dynSharedBytes
//   atomics      atomicrmw / cmpxchg (real host atomics)
//   warp ops     call @pcj_cpu_shfl_sync(ptr %ctx, ...) etc. (fibers)
//   grid sync    call void @pcj_cpu_grid_sync(ptr %ctx, i32 line)
//   sanitize     call void @pcj_san_access(ptr %ctx, ptr @san.site, ptr %elem,
//                ptr %data) before each array element access
#include "lower/Lower.h"
#include "lower/TargetHooks.h"

#include "runtime/cpu/ThreadCtx.h" // the layout only (no runtime code)

#include <cstddef>

namespace pcj::lower {

using namespace types;

namespace {

// Field offsets in pcj_thread_ctx, read from the ABI's one definition
// (runtime/cpu/ThreadCtx.h: changing them bumps kCpuAbiVersion, which is
// part of every cache key).
constexpr unsigned kSRegOffset[4] = {
    offsetof(pcj_thread_ctx, tid), offsetof(pcj_thread_ctx, ntid),
    offsetof(pcj_thread_ctx, ctaid), offsetof(pcj_thread_ctx, nctaid)};
constexpr unsigned kSharedOffset = offsetof(pcj_thread_ctx, shared);
// The alignment of a block's shared memory (runtime/cpu/GridRunner.cpp's
// SharedAlign).
constexpr unsigned kSharedBaseAlign = 64;
constexpr unsigned kLaneIdOffset = offsetof(pcj_thread_ctx, laneid);
constexpr unsigned kDynSharedOffset = offsetof(pcj_thread_ctx, dynShared);
constexpr unsigned kDynSharedBytesOffset =
    offsetof(pcj_thread_ctx, dynSharedBytes);

class HostTarget : public TargetHooks {
public:
  llvm::Function *createKernel(llvm::Module &M, const std::string &Name,
                               const std::vector<KernelParam> &Params,
                               llvm::IRBuilder<> &B,
                               std::vector<llvm::Value *> &Values) override {
    llvm::Type *Ptr = B.getPtrTy();
    auto *FT = llvm::FunctionType::get(B.getVoidTy(), {Ptr, Ptr}, false);
    auto *F =
        llvm::Function::Create(FT, llvm::Function::ExternalLinkage, Name, M);
    F->getArg(0)->setName("args");
    F->getArg(1)->setName("ctx");
    Ctx = F->getArg(1);
    B.SetInsertPoint(llvm::BasicBlock::Create(M.getContext(), "entry", F));
    for (unsigned K = 0; K < Params.size(); ++K) {
      llvm::Value *Slot = B.CreateConstInBoundsGEP1_64(Ptr, F->getArg(0), K);
      llvm::Value *P = B.CreateLoad(Ptr, Slot);
      Values.push_back(
          Params[K].aggregate
              ? P // an aggregate: its address
              : B.CreateLoad(Params[K].type, P, "param" + std::to_string(K)));
    }
    return F;
  }

  size_t maxKernelParamBytes() const override { return SIZE_MAX; }

  void finishKernel(llvm::Module &M, llvm::Function *K) override {}

  llvm::Function *declareDeviceFunction(llvm::Module &M,
                                        const std::string &Name,
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
        llvm::FunctionType::get(B.getVoidTy(),
                                {B.getPtrTy(), B.getInt32Ty(), B.getInt32Ty()},
                                false));
    B.CreateCall(Fn, {Ctx, B.getInt32(++Sites), B.getInt32(Line)});
  }

  llvm::FunctionCallee mathFunction(llvm::Module &M, const std::string &Name,
                                    TypeRef T, unsigned Arity) override {
    bool Single = T->bits() <= 32;
    llvm::Type *FT = Single ? llvm::Type::getFloatTy(M.getContext())
                            : llvm::Type::getDoubleTy(M.getContext());
    std::vector<llvm::Type *> Args(Arity, FT);
    return libmFunction(M, Name + (Single ? "f" : ""),
                        llvm::FunctionType::get(FT, Args, false));
  }

  llvm::FunctionCallee mathFunctionOfType(llvm::Module &M,
                                          const std::string &Name, bool Single,
                                          llvm::FunctionType *FT) override {
    return libmFunction(M, Name + (Single ? "f" : ""), FT);
  }

  // The C library's function Name, called as an opaque pure function:
  // `nobuiltin` keeps LLVM's library-call folding and rewriting away from
  // it, so the optimizer cannot turn a defined libm result into something
  // else (LLVM 22's instcombine folds fmod(select(c, 1.0, 0.0), NaN) to
  // poison; a branch on it is undefined behaviour and deleted the rest of a
  // kernel: fuzz seed 1 kernel 1378).  NVPTX calls libdevice's __nv_*
  // bitcode, which LLVM does not treat as library calls either.  errno is
  // never read, so a call touches no memory (CSE and hoisting still apply)
  // but through its pointer parameters (frexp's exponent, modf's integer
  // part).
  static llvm::FunctionCallee libmFunction(llvm::Module &M,
                                           const std::string &Name,
                                           llvm::FunctionType *FT) {
    llvm::FunctionCallee C = M.getOrInsertFunction(Name, FT);
    if (auto *F = llvm::dyn_cast<llvm::Function>(C.getCallee())) {
      F->addFnAttr(llvm::Attribute::NoBuiltin);
      F->addFnAttr(llvm::Attribute::NoUnwind);
      F->addFnAttr(llvm::Attribute::WillReturn);
      F->addFnAttr(llvm::Attribute::NoSync);
      F->addFnAttr(llvm::Attribute::NoFree);
      bool Pointers = llvm::any_of(
          FT->params(), [](llvm::Type *T) { return T->isPointerTy(); });
      if (Pointers)
        F->setOnlyAccessesArgMemory();
      else
        F->setDoesNotAccessMemory();
    }
    return C;
  }

  llvm::FunctionCallee libdeviceFunction(llvm::Module &M,
                                         const std::string &Name,
                                         llvm::FunctionType *FT) override {
    return M.getOrInsertFunction("pcj_nv_" + Name, FT);
  }

  unsigned addrSpace(AddrSpace S) const override { return 0; }

  llvm::Value *sharedArray(llvm::Module &M, llvm::IRBuilder<> &B,
                           llvm::Type *ElemTy, uint64_t Count,
                           const std::string &Name, unsigned Align) override {
    uint64_t Offset = (staticSharedBytes + Align - 1) / Align * Align;
    uint64_t Bytes = M.getDataLayout().getTypeAllocSize(ElemTy) * Count;
    // The executor's shared memory starts kSharedBaseAlign-aligned; a
    // larger alignment rounds the address up at run time, within Align - 1
    // bytes reserved after the array.
    bool RoundUp = Align > kSharedBaseAlign;
    staticSharedBytes = Offset + Bytes + (RoundUp ? Align - 1 : 0);
    llvm::Value *BaseP =
        B.CreateConstInBoundsGEP1_64(B.getInt8Ty(), Ctx, kSharedOffset);
    llvm::Value *Base = B.CreateLoad(B.getPtrTy(), BaseP, "shared.base");
    llvm::Value *P =
        B.CreateConstInBoundsGEP1_64(B.getInt8Ty(), Base, Offset, Name);
    if (!RoundUp)
      return P;
    llvm::Value *Addr = B.CreatePtrToInt(P, B.getInt64Ty());
    llvm::Value *Pad =
        B.CreateAnd(B.CreateSub(B.getInt64(0), Addr), B.getInt64(Align - 1));
    return B.CreateInBoundsGEP(B.getInt8Ty(), P, Pad, Name);
  }

  void raiseError(llvm::IRBuilder<> &B, RaisedError Kind,
                  const std::string &Message, const std::string &Kernel,
                  const std::string &File, int Line) override {
    cpuError(B,
             Kind == RaisedError::ZeroDivisionError   ? PCJ_ERROR_ZERO_DIVISION
             : Kind == RaisedError::ValueError        ? PCJ_ERROR_VALUE
             : Kind == RaisedError::UnboundLocalError ? PCJ_ERROR_UNBOUND_LOCAL
                                                      : PCJ_ERROR_INDEX,
             "", Message, Kernel, File, Line);
  }

  void raiseException(llvm::IRBuilder<> &B, const std::string &Class,
                      const std::string &Message, const std::string &Kernel,
                      const std::string &File, int Line) override {
    cpuError(B, PCJ_ERROR_RAISED, Class, Message, Kernel, File, Line);
  }

  // pcj_cpu_error with a pcj_error_site (runtime/cpu/ThreadCtx.h); Kind:
  // pcj_error_kind, Class: PCJ_ERROR_RAISED's exception class.
  void cpuError(llvm::IRBuilder<> &B, pcj_error_kind Kind,
                const std::string &Class, const std::string &Message,
                const std::string &Kernel, const std::string &File, int Line) {
    llvm::Module &M = *B.GetInsertBlock()->getModule();
    llvm::Constant *G = errorSite(B, Kernel, File, Message, Line, Kind, Class);
    llvm::Type *Ptr = B.getPtrTy();
    llvm::FunctionCallee Fn = M.getOrInsertFunction(
        "pcj_cpu_error",
        llvm::FunctionType::get(B.getVoidTy(), {Ptr, Ptr}, false));
    B.CreateCall(Fn, {Ctx, G})->setDoesNotReturn();
  }

  // call void @pcj_cpu_check_stack(ptr %ctx, ptr @err.site): returns while
  // the thread's stack has room; else records a RecursionError naming the
  // function and ends the thread.
  void recursionCheck(llvm::IRBuilder<> &B, const std::string &Function,
                      const std::string &File, int Line) override {
    llvm::Module &M = *B.GetInsertBlock()->getModule();
    llvm::Constant *G =
        errorSite(B, Function, File, "maximum recursion depth exceeded", Line,
                  PCJ_ERROR_RECURSION);
    llvm::Type *Ptr = B.getPtrTy();
    llvm::FunctionCallee Fn = M.getOrInsertFunction(
        "pcj_cpu_check_stack",
        llvm::FunctionType::get(B.getVoidTy(), {Ptr, Ptr}, false));
    B.CreateCall(Fn, {Ctx, G});
  }

  // llvm.fpto[su]i.sat: exactly cvt.rzi's saturation and NaN -> 0.
  // (half and bfloat go through float, exactly: LLVM 19's x86 lowering of a
  // NaN half gives INT_MIN.)
  llvm::Value *floatToInt(llvm::IRBuilder<> &B, llvm::Value *V,
                          llvm::Type *IntTy, bool Signed) override {
    if (V->getType()->isHalfTy() || V->getType()->isBFloatTy())
      V = B.CreateFPExt(V, B.getFloatTy());
    return B.CreateIntrinsic(Signed ? llvm::Intrinsic::fptosi_sat
                                    : llvm::Intrinsic::fptoui_sat,
                             {IntTy, V->getType()}, {V});
  }

  // runtime/cpu/Heap.cpp: malloc/free under the heap limit.
  llvm::Value *heapAlloc(llvm::IRBuilder<> &B, llvm::Value *Bytes) override {
    llvm::Module &M = *B.GetInsertBlock()->getModule();
    llvm::FunctionCallee Fn = M.getOrInsertFunction(
        "pcj_cpu_heap_alloc",
        llvm::FunctionType::get(B.getPtrTy(), {B.getInt64Ty()}, false));
    return B.CreateCall(Fn, {Bytes});
  }
  void heapFree(llvm::IRBuilder<> &B, llvm::Value *Ptr) override {
    llvm::Module &M = *B.GetInsertBlock()->getModule();
    llvm::FunctionCallee Fn = M.getOrInsertFunction(
        "pcj_cpu_heap_free",
        llvm::FunctionType::get(B.getVoidTy(), {B.getPtrTy()}, false));
    B.CreateCall(Fn, {Ptr});
  }

  void vprintf(llvm::IRBuilder<> &B, llvm::Value *Fmt,
               llvm::Value *Args) override {
    llvm::Module &M = *B.GetInsertBlock()->getModule();
    llvm::FunctionCallee Fn = M.getOrInsertFunction(
        "pcj_cpu_vprintf",
        llvm::FunctionType::get(B.getInt32Ty(), {B.getPtrTy(), B.getPtrTy()},
                                false));
    B.CreateCall(Fn, {Fmt, Args});
  }

  // The cold path of a bounds check: the indices and the shape go to two
  // [8 x i64] buffers (one pair per function, in its entry block) and
  // pcj_cpu_index_error, which never returns.
  void indexError(llvm::IRBuilder<> &B, const std::vector<llvm::Value *> &Index,
                  const std::vector<llvm::Value *> &Shape, unsigned Axis,
                  const std::string &Kernel, const std::string &File,
                  int Line) override {
    llvm::Module &M = *B.GetInsertBlock()->getModule();
    llvm::LLVMContext &C = M.getContext();
    llvm::Type *Ptr = B.getPtrTy(), *I32 = B.getInt32Ty(),
               *I64 = B.getInt64Ty();
    auto *SiteTy = llvm::StructType::get(C, {Ptr, Ptr, I32, I32});
    llvm::Constant *Site = llvm::ConstantStruct::get(
        SiteTy, {B.CreateGlobalStringPtr(Kernel, "oob.kernel", 0, &M),
                 B.CreateGlobalStringPtr(File, "oob.file", 0, &M),
                 B.getInt32(Line), B.getInt32(0)});
    auto *G = new llvm::GlobalVariable(
        M, SiteTy, true, llvm::GlobalValue::PrivateLinkage, Site, "oob.site");
    llvm::Function *Fn = B.GetInsertBlock()->getParent();
    if (IndexBufFn != Fn) {
      llvm::IRBuilder<> EB(&Fn->getEntryBlock(), Fn->getEntryBlock().begin());
      auto *BufTy = llvm::ArrayType::get(I64, 8);
      IndexBuf = EB.CreateAlloca(BufTy, nullptr, "oob.index");
      ShapeBuf = EB.CreateAlloca(BufTy, nullptr, "oob.shape");
      IndexBufFn = Fn;
    }
    for (unsigned K = 0; K < Index.size(); ++K) {
      B.CreateStore(Index[K], B.CreateConstInBoundsGEP1_64(I64, IndexBuf, K));
      B.CreateStore(Shape[K], B.CreateConstInBoundsGEP1_64(I64, ShapeBuf, K));
    }
    llvm::FunctionCallee Err =
        runtimeFn(B, "pcj_cpu_index_error", B.getVoidTy(),
                  {Ptr, Ptr, Ptr, Ptr, I32, I32});
    if (auto *D = llvm::dyn_cast<llvm::Function>(Err.getCallee())) {
      D->setDoesNotReturn();
      D->addFnAttr(llvm::Attribute::Cold);
    }
    auto *Call = B.CreateCall(Err, {Ctx, G, IndexBuf, ShapeBuf,
                                    B.getInt32(int32_t(Index.size())),
                                    B.getInt32(int32_t(Axis))});
    Call->setDoesNotReturn();
  }

  // Sanitized kernels: a writable pcj_san_site per access (ThreadCtx.h; the
  // runtime numbers it on first use) and a call before the access.
  void memoryAccess(llvm::IRBuilder<> &B, const AccessSite &A, llvm::Value *Ptr,
                    llvm::Value *Base) override {
    uint32_t Space = A.space == AddrSpace::Shared  ? 1 << 2
                     : A.space == AddrSpace::Local ? 2 << 2
                                                   : 0;
    uint32_t ReadOnly = A.readOnly ? 1 << 4 : 0; // PCJ_SAN_READONLY
    llvm::Value *Site = siteGlobal(B, A, uint32_t(A.kind) | Space | ReadOnly);
    llvm::Type *P = B.getPtrTy();
    B.CreateCall(runtimeFn(B, "pcj_san_access", B.getVoidTy(), {P, P, P, P}),
                 {Ctx, Site, Ptr, Base});
  }

  // A writable pcj_san_site (ThreadCtx.h) for A with `Flags`.
  static llvm::Value *siteGlobal(llvm::IRBuilder<> &B, const AccessSite &A,
                                 uint32_t Flags) {
    llvm::Module &M = *B.GetInsertBlock()->getModule();
    llvm::Type *P = B.getPtrTy(), *I32 = B.getInt32Ty();
    auto *SiteTy = llvm::StructType::get(
        M.getContext(), {I32, I32, I32, I32, I32, I32, P, P, P});
    llvm::Constant *Site = llvm::ConstantStruct::get(
        SiteTy,
        {B.getInt32(0), B.getInt32(Flags), B.getInt32(uint32_t(A.bytes)),
         B.getInt32(A.line), B.getInt32(A.col), B.getInt32(A.endCol),
         B.CreateGlobalStringPtr(A.function, "san.fn", 0, &M),
         B.CreateGlobalStringPtr(A.file, "san.file", 0, &M),
         B.CreateGlobalStringPtr(A.array, "san.array", 0, &M)});
    return new llvm::GlobalVariable(M, SiteTy, /*isConstant=*/false,
                                    llvm::GlobalValue::PrivateLinkage, Site,
                                    "san.site");
  }

  void syncPoint(llvm::IRBuilder<> &B, const AccessSite &A) override {
    AccessSite S = A;
    S.kind = Access::Read; // flags 3: a synchronization site
    llvm::Value *Site = siteGlobal(B, S, 3);
    B.CreateCall(runtimeFn(B, "pcj_san_sync", B.getVoidTy(),
                           {B.getPtrTy(), B.getPtrTy()}),
                 {Ctx, Site});
  }

  void atomicDone(llvm::IRBuilder<> &B) override {
    B.CreateCall(
        runtimeFn(B, "pcj_san_atomic_done", B.getVoidTy(), {B.getPtrTy()}),
        {Ctx});
  }

  // ---- CUDA device intrinsics -----------------------------------------------

  llvm::Value *dynamicSharedArray(llvm::Module &M,
                                  llvm::IRBuilder<> &B) override {
    llvm::Value *P =
        B.CreateConstInBoundsGEP1_64(B.getInt8Ty(), Ctx, kDynSharedOffset);
    return B.CreateLoad(B.getPtrTy(), P, "dynshared.base");
  }

  llvm::Value *dynamicSharedBytes(llvm::IRBuilder<> &B) override {
    llvm::Value *P =
        B.CreateConstInBoundsGEP1_64(B.getInt8Ty(), Ctx, kDynSharedBytesOffset);
    return B.CreateLoad(B.getInt64Ty(), P, "dynshared.bytes");
  }

  llvm::Value *constArray(llvm::Module &M, llvm::Constant *Init,
                          const std::string &Name) override {
    if (llvm::GlobalVariable *G = M.getNamedGlobal(Name))
      return G;
    auto *G =
        new llvm::GlobalVariable(M, Init->getType(), true,
                                 llvm::GlobalValue::PrivateLinkage, Init, Name);
    G->setAlignment(llvm::Align(16));
    return G;
  }

  llvm::Value *barrierReduce(llvm::IRBuilder<> &B, unsigned Kind,
                             llvm::Value *Pred, int Line) override {
    usesBarriers = true;
    static const char *const Names[3] = {"pcj_cpu_syncthreads_count",
                                         "pcj_cpu_syncthreads_and",
                                         "pcj_cpu_syncthreads_or"};
    llvm::Type *I32 = B.getInt32Ty();
    return B.CreateCall(
        runtimeFn(B, Names[Kind], I32, {B.getPtrTy(), I32, I32, I32}),
        {Ctx, B.CreateZExt(Pred, I32), B.getInt32(++Sites), B.getInt32(Line)});
  }

  // Host threads of a block share memory coherently; a sequentially
  // consistent fence orders this thread's accesses at every scope.
  void fence(llvm::IRBuilder<> &B, unsigned Scope) override {
    B.CreateFence(llvm::AtomicOrdering::SequentiallyConsistent);
  }

  // Yields to the block's other threads (fiber mode), so spin loops that
  // sleep make progress.
  // Foreign CUDA C compiled for the host reads threadIdx & co. through
  // this context (compiler/support/HostCuda.h).
  void foreignCall(llvm::IRBuilder<> &B) override {
    B.CreateCall(
        runtimeFn(B, "pcj_cpu_foreign_enter", B.getVoidTy(), {B.getPtrTy()}),
        {Ctx});
  }

  void nanosleep(llvm::IRBuilder<> &B, llvm::Value *Ns) override {
    B.CreateCall(runtimeFn(B, "pcj_cpu_nanosleep", B.getVoidTy(),
                           {B.getPtrTy(), B.getInt32Ty()}),
                 {Ctx, Ns});
  }

  void gridSync(llvm::IRBuilder<> &B, int Line) override {
    usesBarriers = true; // the block part of the grid barrier needs fibers
    usesGridSync = true;
    B.CreateCall(runtimeFn(B, "pcj_cpu_grid_sync", B.getVoidTy(),
                           {B.getPtrTy(), B.getInt32Ty()}),
                 {Ctx, B.getInt32(Line)});
  }

  // Real host atomics; LLVM expands what x86/aarch64 lack (float add,
  // inc/dec, min/max) into CAS loops.
  llvm::Value *atomicRMW(llvm::IRBuilder<> &B, llvm::AtomicRMWInst::BinOp Op,
                         llvm::Value *Ptr, llvm::Value *Val, AddrSpace S,
                         bool ResultUsed) override {
    return B.CreateAtomicRMW(Op, Ptr, Val, llvm::MaybeAlign(),
                             llvm::AtomicOrdering::Monotonic);
  }

  // The CPU has no cache operators to choose: plain accesses, naturally
  // aligned like a[i].
  llvm::Value *cacheHintLoad(llvm::IRBuilder<> &B, llvm::Type *T,
                             llvm::Value *Ptr, const std::string &Op) override {
    return B.CreateAlignedLoad(T, Ptr,
                               llvm::Align(T->getPrimitiveSizeInBits() / 8));
  }
  void cacheHintStore(llvm::IRBuilder<> &B, llvm::Value *Ptr, llvm::Value *Val,
                      const std::string &Op) override {
    B.CreateAlignedStore(
        Val, Ptr, llvm::Align(Val->getType()->getPrimitiveSizeInBits() / 8));
  }

  std::string missing(Feature F) const override { return {}; }

  void syncWarp(llvm::IRBuilder<> &B, llvm::Value *Mask) override {
    usesWarpOps = true;
    B.CreateCall(runtimeFn(B, "pcj_cpu_syncwarp", B.getVoidTy(),
                           {B.getPtrTy(), B.getInt32Ty()}),
                 {Ctx, Mask});
  }

  // pcj_cpu_shfl_sync moves 64-bit words; narrower values are widened.
  llvm::Value *shuffle(llvm::IRBuilder<> &B, unsigned Mode, llvm::Value *Mask,
                       llvm::Value *Value, llvm::Value *Lane) override {
    usesWarpOps = true;
    llvm::Type *T = Value->getType(), *I32 = B.getInt32Ty(),
               *I64 = B.getInt64Ty();
    unsigned Bits = T->getPrimitiveSizeInBits();
    llvm::Value *W = B.CreateBitCast(Value, B.getIntNTy(Bits));
    W = B.CreateZExt(W, I64);
    llvm::Value *R =
        B.CreateCall(runtimeFn(B, "pcj_cpu_shfl_sync", I64,
                               {B.getPtrTy(), I32, I64, I32, I32, I32}),
                     {Ctx, Mask, W, B.getInt32(Mode), Lane, B.getInt32(32)});
    return B.CreateBitCast(B.CreateTrunc(R, B.getIntNTy(Bits)), T);
  }

  llvm::Value *vote(llvm::IRBuilder<> &B, unsigned Mode, llvm::Value *Mask,
                    llvm::Value *Pred) override {
    usesWarpOps = true;
    llvm::Type *I32 = B.getInt32Ty();
    return B.CreateCall(
        runtimeFn(B, "pcj_cpu_vote_sync", I32, {B.getPtrTy(), I32, I32, I32}),
        {Ctx, Mask, B.CreateZExt(Pred, I32), B.getInt32(Mode)});
  }

  llvm::Value *matchAny(llvm::IRBuilder<> &B, llvm::Value *Mask,
                        llvm::Value *Value) override {
    usesWarpOps = true;
    llvm::Type *I32 = B.getInt32Ty(), *I64 = B.getInt64Ty();
    return B.CreateCall(
        runtimeFn(B, "pcj_cpu_match_any_sync", I32, {B.getPtrTy(), I32, I64}),
        {Ctx, Mask, B.CreateZExt(Value, I64)});
  }

  llvm::Value *matchAll(llvm::IRBuilder<> &B, llvm::Value *Mask,
                        llvm::Value *Value) override {
    usesWarpOps = true;
    llvm::Type *I32 = B.getInt32Ty(), *I64 = B.getInt64Ty();
    llvm::Function *Fn = B.GetInsertBlock()->getParent();
    llvm::IRBuilder<> EB(&Fn->getEntryBlock(), Fn->getEntryBlock().begin());
    llvm::Value *PredSlot = EB.CreateAlloca(I32, nullptr, "match.pred");
    llvm::Value *M =
        B.CreateCall(runtimeFn(B, "pcj_cpu_match_all_sync", I32,
                               {B.getPtrTy(), I32, I64, B.getPtrTy()}),
                     {Ctx, Mask, B.CreateZExt(Value, I64), PredSlot});
    llvm::Value *P = B.CreateICmpNE(B.CreateLoad(I32, PredSlot), B.getInt32(0));
    llvm::Value *R = llvm::UndefValue::get(
        llvm::StructType::get(B.getContext(), {I32, B.getInt1Ty()}));
    R = B.CreateInsertValue(R, M, {0});
    return B.CreateInsertValue(R, P, {1});
  }

  // The lanes of the warp converged at this call site (emulated with
  // fibers, runtime/cpu/Sync.cpp).
  llvm::Value *activeMask(llvm::IRBuilder<> &B) override {
    usesWarpOps = true;
    llvm::Type *I32 = B.getInt32Ty();
    return B.CreateCall(
        runtimeFn(B, "pcj_cpu_activemask", I32, {B.getPtrTy(), I32}),
        {Ctx, B.getInt32(++Sites)});
  }

  llvm::Value *laneMaskLt(llvm::IRBuilder<> &B) override {
    llvm::Value *Bit = B.CreateShl(B.getInt32(1), laneId(B));
    return B.CreateSub(Bit, B.getInt32(1));
  }

  llvm::Value *laneId(llvm::IRBuilder<> &B) override {
    llvm::Value *P =
        B.CreateConstInBoundsGEP1_64(B.getInt8Ty(), Ctx, kLaneIdOffset);
    auto *L = B.CreateLoad(B.getInt32Ty(), P, "laneid");
    L->setMetadata(llvm::LLVMContext::MD_invariant_load,
                   llvm::MDNode::get(B.getContext(), {}));
    return L;
  }

private:
  // A constant pcj_error_site (runtime/cpu/ThreadCtx.h).
  static llvm::Constant *
  errorSite(llvm::IRBuilder<> &B, const std::string &Kernel,
            const std::string &File, const std::string &Message, int Line,
            pcj_error_kind Kind, const std::string &Exception = "") {
    llvm::Module &M = *B.GetInsertBlock()->getModule();
    llvm::Type *Ptr = B.getPtrTy(), *I32 = B.getInt32Ty();
    auto *SiteTy =
        llvm::StructType::get(M.getContext(), {Ptr, Ptr, Ptr, I32, I32, Ptr});
    llvm::Constant *Exc =
        Exception.empty()
            ? llvm::ConstantPointerNull::get(
                  llvm::PointerType::get(M.getContext(), 0))
            : B.CreateGlobalStringPtr(Exception, "err.class", 0, &M);
    llvm::Constant *Site = llvm::ConstantStruct::get(
        SiteTy, {B.CreateGlobalStringPtr(Kernel, "err.kernel", 0, &M),
                 B.CreateGlobalStringPtr(File, "err.file", 0, &M),
                 B.CreateGlobalStringPtr(Message, "err.message", 0, &M),
                 B.getInt32(Line), B.getInt32(Kind), Exc});
    return new llvm::GlobalVariable(
        M, SiteTy, true, llvm::GlobalValue::PrivateLinkage, Site, "err.site");
  }

  static llvm::FunctionCallee runtimeFn(llvm::IRBuilder<> &B, const char *Name,
                                        llvm::Type *Ret,
                                        std::vector<llvm::Type *> Params) {
    llvm::Module &M = *B.GetInsertBlock()->getModule();
    return M.getOrInsertFunction(Name,
                                 llvm::FunctionType::get(Ret, Params, false));
  }

  llvm::Value *Ctx = nullptr;
  int32_t Sites = 0; // call sites of barriers and activemask numbered so far
  // The index/shape buffers of the function being lowered (indexError).
  llvm::Function *IndexBufFn = nullptr;
  llvm::Value *IndexBuf = nullptr, *ShapeBuf = nullptr;
};

} // namespace

std::unique_ptr<TargetHooks> makeHostTarget(const LowerOptions &O) {
  return std::make_unique<HostTarget>();
}

} // namespace pcj::lower
