// NvptxErrors: the device side of the error record
// (runtime/ErrorRecordAbi.h).  A failing site calls a cold, never-inlined
// function of its own, so the kernel's hot path holds a call and nothing
// else (no printf buffer, no registers kept for it):
//
//   before:  fail: <vprintf argument buffer>; call @vprintf; call @llvm.trap
//   after:   fail: call void @pcj.error(); unreachable
//            (an index error passes the index and shape: @pcj.error(i64 %i, i64
//            %n))
//
//   define internal void @pcj.error(...) cold noinline noreturn {
//     %v = alloca [8 x i64]                     ; the index and shape, or 0
//     call void @pcj.record(i32 <site id>, ptr %v)  ; exits if recorded
//     call @vprintf("<Class>: <message> in kernel ..."); call @llvm.trap
//   }
//   define internal void @pcj.record(i32 %site, ptr %v) cold noinline {
//     %rec = load @pcj_error_record            ; 0: not loaded by pycuda_jit
//     cmpxchg %rec.state 0 -> 1                ; the first failing thread wins
//     won: store site, module, tid, ctaid, %v[0..8); membar.sys; store 2
//     call @llvm.nvvm.exit()                   ; PTX `exit`: no trap
//   }
//
// The site's text (class, message, kernel, file, line) goes into the
// module's site table, @pcj_error_sites, which the host reads when it loads
// the module; a site id is its position there.  A module the pycuda_jit
// runtime did not load (compile_ptx output) has a null record address and
// prints and traps as before.
#include "lower/NvptxErrors.h"

#include "runtime/ErrorRecordAbi.h" // the layout only (no runtime code)

#include <llvm/IR/IntrinsicsNVPTX.h>
#include <llvm/IR/Module.h>

#include <algorithm>

namespace pcj::lower {

namespace {

std::string clean(const std::string &S) {
  std::string R = S;
  for (char &C : R)
    if (C == rt::kFieldEnd || C == '\0')
      C = '?';
  return R;
}

// Appends Site (of Rank recorded dimensions) to the module's site table (a
// fresh global replaces the old one: nothing uses it inside the module) and
// returns its id.
unsigned addSite(llvm::Module &M, const DeviceErrorSite &Site, unsigned Rank) {
  std::string Table;
  llvm::GlobalVariable *Old = M.getNamedGlobal(rt::kErrorSitesGlobal);
  if (Old)
    Table = llvm::cast<llvm::ConstantDataArray>(Old->getInitializer())
                ->getAsString()
                .str();
  unsigned Id =
      unsigned(std::count(Table.begin(), Table.end(), rt::kFieldEnd)) /
      rt::kErrorSiteFields;
  for (const std::string &F :
       {Site.errorClass, Site.exception, Site.message, Site.kernel, Site.file,
        std::to_string(Site.line), std::to_string(Site.axis),
        std::to_string(Rank)})
    Table += clean(F) + rt::kFieldEnd;
  llvm::Constant *Init = llvm::ConstantDataArray::getString(
      M.getContext(), Table, /*AddNull=*/false);
  auto *G =
      new llvm::GlobalVariable(M, Init->getType(), /*isConstant=*/true,
                               llvm::GlobalValue::ExternalLinkage, Init, "",
                               nullptr, llvm::GlobalValue::NotThreadLocal, 1);
  if (Old) {
    G->takeName(Old);
    Old->eraseFromParent();
  } else {
    G->setName(rt::kErrorSitesGlobal);
  }
  return Id;
}

// @pcj_error_record: {record address, module id}, set by the host.
llvm::GlobalVariable *recordGlobal(llvm::Module &M) {
  if (llvm::GlobalVariable *G = M.getNamedGlobal(rt::kErrorRecordGlobal))
    return G;
  auto *T = llvm::ArrayType::get(llvm::Type::getInt64Ty(M.getContext()), 2);
  auto *G = new llvm::GlobalVariable(
      M, T, /*isConstant=*/false, llvm::GlobalValue::ExternalLinkage,
      llvm::ConstantAggregateZero::get(T), rt::kErrorRecordGlobal, nullptr,
      llvm::GlobalValue::NotThreadLocal, 1, /*isExternallyInitialized=*/true);
  G->setAlignment(llvm::Align(8));
  return G;
}

llvm::Value *sreg(llvm::IRBuilder<> &B, bool Block, unsigned Dim) {
  using namespace llvm::Intrinsic;
  static const ID Ids[2][3] = {
      {nvvm_read_ptx_sreg_tid_x, nvvm_read_ptx_sreg_tid_y,
       nvvm_read_ptx_sreg_tid_z},
      {nvvm_read_ptx_sreg_ctaid_x, nvvm_read_ptx_sreg_ctaid_y,
       nvvm_read_ptx_sreg_ctaid_z}};
  return B.CreateIntrinsic(Ids[Block][Dim], {});
}

// @pcj.record(i32 site, ptr values): see the header comment; `values`
// points at ErrorRecord::values' 8 words.
llvm::Function *recordFunction(llvm::Module &M) {
  if (llvm::Function *F = M.getFunction("pcj.record"))
    return F;
  llvm::LLVMContext &C = M.getContext();
  llvm::Type *I32 = llvm::Type::getInt32Ty(C), *I64 = llvm::Type::getInt64Ty(C);
  auto *F = llvm::Function::Create(
      llvm::FunctionType::get(llvm::Type::getVoidTy(C),
                              {I32, llvm::PointerType::get(C, 0)}, false),
      llvm::GlobalValue::InternalLinkage, "pcj.record", M);
  for (auto A : {llvm::Attribute::NoInline, llvm::Attribute::Cold,
                 llvm::Attribute::NoUnwind})
    F->addFnAttr(A);
  auto *Entry = llvm::BasicBlock::Create(C, "entry", F);
  auto *Claim = llvm::BasicBlock::Create(C, "claim", F);
  auto *Write = llvm::BasicBlock::Create(C, "write", F);
  auto *Exit = llvm::BasicBlock::Create(C, "exit", F);
  auto *None = llvm::BasicBlock::Create(C, "none", F);
  llvm::IRBuilder<> B(Entry);
  llvm::GlobalVariable *G = recordGlobal(M);
  llvm::Value *RecAddr =
      B.CreateAlignedLoad(I64, G, llvm::Align(8), "rec.addr");
  llvm::Value *Module = B.CreateAlignedLoad(
      I64, B.CreateConstInBoundsGEP1_64(I64, G, 1), llvm::Align(8), "module");
  B.CreateCondBr(B.CreateICmpEQ(RecAddr, B.getInt64(0)), None, Claim);

  B.SetInsertPoint(Claim);
  llvm::Value *Rec = B.CreateIntToPtr(RecAddr, B.getPtrTy(), "rec");
  llvm::Value *Cas = B.CreateAtomicCmpXchg(
      Rec, B.getInt32(rt::kRecordFree), B.getInt32(rt::kRecordWriting),
      llvm::MaybeAlign(4), llvm::AtomicOrdering::Monotonic,
      llvm::AtomicOrdering::Monotonic);
  B.CreateCondBr(
      B.CreateICmpEQ(B.CreateExtractValue(Cas, 0), B.getInt32(rt::kRecordFree)),
      Write, Exit);

  B.SetInsertPoint(Write);
  auto Store = [&](llvm::Value *V, uint64_t Offset) {
    B.CreateAlignedStore(
        V, B.CreateConstInBoundsGEP1_64(B.getInt8Ty(), Rec, Offset),
        llvm::Align(4), /*isVolatile=*/true);
  };
  Store(F->getArg(0), offsetof(rt::ErrorRecord, site));
  Store(B.CreateTrunc(Module, I32), offsetof(rt::ErrorRecord, module));
  for (unsigned D = 0; D < 3; ++D) {
    Store(sreg(B, false, D), offsetof(rt::ErrorRecord, thread) + 4 * D);
    Store(sreg(B, true, D), offsetof(rt::ErrorRecord, block) + 4 * D);
  }
  for (unsigned K = 0; K < 8; ++K)
    Store(B.CreateAlignedLoad(
              I64, B.CreateConstInBoundsGEP1_64(I64, F->getArg(1), K),
              llvm::Align(8)),
          offsetof(rt::ErrorRecord, values) + 8 * K);
  // The fields before the state, at system scope (the host reads them).
  B.CreateIntrinsic(llvm::Intrinsic::nvvm_membar_sys, {});
  Store(B.getInt32(rt::kRecordWritten), offsetof(rt::ErrorRecord, state));
  B.CreateBr(Exit);

  B.SetInsertPoint(Exit);
  B.CreateIntrinsic(llvm::Intrinsic::nvvm_exit, {});
  B.CreateUnreachable();

  B.SetInsertPoint(None);
  B.CreateRetVoid();
  return F;
}

llvm::Function *exitIntrinsicCall(llvm::Function *F, llvm::CallInst *&Call) {
  for (llvm::BasicBlock &BB : *F)
    for (llvm::Instruction &I : BB)
      if (auto *C = llvm::dyn_cast<llvm::CallInst>(&I);
          C && C->getIntrinsicID() == llvm::Intrinsic::nvvm_exit) {
        Call = C;
        return F;
      }
  return nullptr;
}

std::string printfText(const std::string &S) {
  std::string R;
  for (char C : S)
    R += C == '%' ? std::string("%%") : std::string(1, C);
  return R;
}

} // namespace

void emitDeviceError(llvm::IRBuilder<> &B, const DeviceErrorSite &Site,
                     const std::vector<llvm::Value *> &Index,
                     const std::vector<llvm::Value *> &Shape) {
  llvm::Module &M = *B.GetInsertBlock()->getModule();
  llvm::LLVMContext &C = M.getContext();
  llvm::Type *I32 = B.getInt32Ty(), *I64 = B.getInt64Ty();
  // The index and shape in the record: all of them up to kMaxRecordedRank
  // dimensions, else the axis' (rank 0).
  bool IsIndex = Site.axis >= 0;
  unsigned Rank =
      IsIndex && Index.size() <= rt::kMaxRecordedRank ? Index.size() : 0;
  std::vector<llvm::Value *> Args;
  if (IsIndex) {
    if (Rank) {
      Args.insert(Args.end(), Index.begin(), Index.end());
      Args.insert(Args.end(), Shape.begin(), Shape.end());
    } else {
      Args = {Index[Site.axis], Shape[Site.axis]};
    }
  }
  unsigned Id = addSite(M, Site, Rank);
  auto *Fn = llvm::Function::Create(
      llvm::FunctionType::get(
          B.getVoidTy(), std::vector<llvm::Type *>(Args.size(), I64), false),
      llvm::GlobalValue::InternalLinkage, "pcj.error", M);
  for (auto A : {llvm::Attribute::NoInline, llvm::Attribute::Cold,
                 llvm::Attribute::NoReturn, llvm::Attribute::NoUnwind})
    Fn->addFnAttr(A);
  llvm::IRBuilder<> FB(llvm::BasicBlock::Create(C, "entry", Fn));
  auto *VT = llvm::ArrayType::get(I64, 8);
  llvm::Value *Values = FB.CreateAlloca(VT);
  FB.CreateStore(llvm::ConstantAggregateZero::get(VT), Values);
  unsigned Half = Rank ? Rank : 1;
  for (unsigned K = 0; K < Args.size(); ++K)
    FB.CreateStore(
        Fn->getArg(K),
        FB.CreateConstInBoundsGEP2_64(
            VT, Values, 0, K < Half ? K : rt::kMaxRecordedRank + (K - Half)));
  FB.CreateCall(recordFunction(M), {FB.getInt32(Id), Values});

  // No record: print and trap.
  std::string Where = " in kernel '" + printfText(Site.kernel) + "' (" +
                      printfText(Site.file) + ":" + std::to_string(Site.line) +
                      "), thread (%d, %d, %d) block (%d, %d, %d)\n";
  std::string Fmt;
  std::vector<llvm::Value *> Fields;
  std::vector<llvm::Type *> Types;
  if (IsIndex) {
    Fmt = "IndexError: index %lld is out of bounds for axis " +
          std::to_string(Site.axis) + " with size %lld" + Where;
    Fields = {Fn->getArg(Rank ? Site.axis : 0),
              Fn->getArg(Rank ? Rank + Site.axis : 1)};
    Types = {I64, I64};
  } else {
    std::string Class = Site.exception;
    if (Class.empty()) // KernelZeroDivisionError -> ZeroDivisionError
      Class = Site.errorClass.substr(
          Site.errorClass.rfind("Kernel", 0) == 0 ? 6 : 0);
    Fmt =
        printfText(Site.message.empty() ? Class : Class + ": " + Site.message) +
        Where;
  }
  for (unsigned K = 0; K < 6; ++K) {
    Fields.push_back(sreg(FB, K >= 3, K % 3));
    Types.push_back(I32);
  }
  auto *ST = llvm::StructType::get(C, Types);
  llvm::Value *Buf = FB.CreateAlloca(ST);
  for (unsigned K = 0; K < Fields.size(); ++K)
    FB.CreateStore(Fields[K], FB.CreateStructGEP(ST, Buf, K));
  llvm::FunctionCallee VPrintf = M.getOrInsertFunction(
      "vprintf",
      llvm::FunctionType::get(I32, {FB.getPtrTy(), FB.getPtrTy()}, false));
  FB.CreateCall(VPrintf,
                {FB.CreateGlobalStringPtr(Fmt, "err.fmt", 0, &M), Buf});
  FB.CreateIntrinsic(llvm::Intrinsic::trap, {});
  FB.CreateUnreachable();

  B.CreateCall(Fn, Args)->setDoesNotReturn();
}

void trapAfterRecording(llvm::Module &M) {
  llvm::Function *F = M.getFunction("pcj.record");
  llvm::CallInst *Exit = nullptr;
  if (!F || !exitIntrinsicCall(F, Exit))
    return;
  llvm::IRBuilder<> B(Exit);
  B.CreateIntrinsic(llvm::Intrinsic::trap, {});
  Exit->eraseFromParent();
}

} // namespace pcj::lower
