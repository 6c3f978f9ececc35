// Libdevice: locate libdevice.10.bc, keep its bytes in memory once per
// process, extract the functions a set of `__nv_*` names needs once per
// process into a small bitcode module, and link that into each module
// that needs the same set (see Libdevice.h for the search order); NVVM
// intrinsics the linked functions call that this LLVM does not know become
// their PTX instruction.
//
//   before: every compile parsed the headers of libdevice's 575 functions
//           lazily and linked sinf from them (~1.5 ms)
//   after:  the second compile needing {__nv_sinf} links it once more,
//           into a private context, and keeps the result as bitcode; later
//           ones parse only that bitcode (sinf and what it calls)
#include "codegen/Libdevice.h"

#include "codegen/Pipeline.h"
#include "support/Diagnostics.h"
#include "support/Toolkit.h"

#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/Module.h"
#include "llvm/Linker/Linker.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <map>
#include <mutex>
#include <set>

namespace pcj::codegen {

namespace {

constexpr const char *kFileName = "libdevice.10.bc";

// At most this many extracts are kept (distinct sets of libdevice
// functions); a module needing another set links from libdevice itself.
constexpr size_t kMaxExtracts = 1024;

// Process-wide state: the cache of libdevice bytes by path, and the
// extracts (bitcode of the functions one set of names needs) by key.
// Buffers and extracts are never freed or changed once stored: modules
// being linked in other threads may still point into them.
struct LibdeviceState {
  std::mutex Mu;
  std::map<std::string, std::unique_ptr<llvm::MemoryBuffer>> Files;
  // Extracting runs under its own lock (loading takes Mu).
  std::mutex ExtractMu;
  std::map<std::string, std::unique_ptr<const std::string>> Extracts;
  // The keys of sets linked once from libdevice itself.
  std::set<std::string> Seen;
  // The functions each libdevice file defines, by path.
  std::map<std::string, std::set<std::string>> Defined;
  std::atomic<uint64_t> FileReads{0};
  std::atomic<uint64_t> Links{0};
  std::atomic<uint64_t> ExtractsMade{0};
};

LibdeviceState &state() {
  static LibdeviceState *S = new LibdeviceState(); // immortal, see above
  return *S;
}

[[noreturn]] void backendError(std::string Msg, std::string Hint = {}) {
  throw CompileError(ErrorKind::Backend, SourceLoc{}, std::move(Msg),
                     std::move(Hint));
}

const llvm::MemoryBuffer &loadLibdevice(const LibdeviceSearch &Found) {
  if (Found.path.empty()) {
    std::string Msg =
        "libdevice (" + std::string(kFileName) +
        ") is needed for math functions but was not found; looked in:";
    for (const std::string &P : Found.searched)
      Msg += "\n  " + P;
    if (!toolkitSystemSearchEnabled())
      Msg += "\n(the system toolkit is not searched: PYCUDA_JIT_SYSTEM_CUDA=0)";
    backendError(std::move(Msg), toolkitInstallHint(ToolkitPiece::Libdevice));
  }

  LibdeviceState &S = state();
  std::lock_guard<std::mutex> Lock(S.Mu);
  auto It = S.Files.find(Found.path);
  if (It != S.Files.end())
    return *It->second;
  auto BufOrErr = llvm::MemoryBuffer::getFile(Found.path, /*IsText=*/false,
                                              /*RequiresNullTerminator=*/false);
  if (!BufOrErr)
    backendError("cannot read libdevice at " + Found.path + ": " +
                 BufOrErr.getError().message());
  if (!llvm::isBitcode(
          reinterpret_cast<const unsigned char *>(
              (*BufOrErr)->getBufferStart()),
          reinterpret_cast<const unsigned char *>((*BufOrErr)->getBufferEnd())))
    backendError(Found.path + " is not an LLVM bitcode file",
                 std::string("point ") + kLibdeviceEnv +
                     " at the toolkit's nvvm/libdevice/libdevice.10.bc");
  S.FileReads.fetch_add(1, std::memory_order_relaxed);
  return *S.Files.emplace(Found.path, std::move(*BufOrErr)).first->second;
}

// NVVM intrinsics a newer libdevice calls that this LLVM's NVPTX backend
// may not know (it would print them as calls of an undefined function):
// the PTX instruction each stands for.  CUDA 13's __nv_fast_tanhf calls
// llvm.nvvm.tanh.approx.f32 (LLVM 20+).
struct NvvmFallback {
  const char *name;
  const char *ptx;         // inline assembly
  const char *constraints; // result and operands
};
constexpr NvvmFallback kNvvmFallbacks[] = {
    {"llvm.nvvm.tanh.approx.f32", "tanh.approx.f32 $0, $1;", "=f,f"},
};

// NVVM intrinsics this LLVM knows but simplifies wrongly: InstCombine turns
// the round-toward-zero integer -> float conversions into sitofp/uitofp,
// which round to nearest (found by libdevice's int2float_rz on the H200).
// They are emitted as their instruction instead.
constexpr NvvmFallback kNvvmPinned[] = {
    {"llvm.nvvm.i2f.rz", "cvt.rz.f32.s32 $0, $1;", "=f,r"},
    {"llvm.nvvm.ui2f.rz", "cvt.rz.f32.u32 $0, $1;", "=f,r"},
    {"llvm.nvvm.ll2f.rz", "cvt.rz.f32.s64 $0, $1;", "=f,l"},
    {"llvm.nvvm.ull2f.rz", "cvt.rz.f32.u64 $0, $1;", "=f,l"},
    {"llvm.nvvm.ll2d.rz", "cvt.rz.f64.s64 $0, $1;", "=d,l"},
    {"llvm.nvvm.ull2d.rz", "cvt.rz.f64.u64 $0, $1;", "=d,l"},
};

// Replaces every call of F by the inline assembly of Fb.
void replaceByInstruction(llvm::Function *F, const NvvmFallback &Fb) {
  auto *Asm = llvm::InlineAsm::get(F->getFunctionType(), Fb.ptx, Fb.constraints,
                                   /*hasSideEffects=*/false);
  for (llvm::User *U : llvm::make_early_inc_range(F->users())) {
    auto *Call = llvm::cast<llvm::CallInst>(U);
    llvm::IRBuilder<> B(Call);
    std::vector<llvm::Value *> Args(Call->arg_begin(), Call->arg_end());
    Call->replaceAllUsesWith(B.CreateCall(Asm, Args));
    Call->eraseFromParent();
  }
  F->eraseFromParent();
}

// Replaces calls of NVVM intrinsics unknown to this LLVM (and the pinned
// ones above) by their instruction; an unknown one without a fallback is a
// clear error instead of PTX that ptxas cannot parse.
void lowerUnknownNvvmIntrinsics(llvm::Module &M) {
  std::vector<llvm::Function *> Unknown;
  for (llvm::Function &F : M)
    if (F.isDeclaration() && F.getName().starts_with("llvm.nvvm.") &&
        F.getIntrinsicID() == llvm::Intrinsic::not_intrinsic && !F.use_empty())
      Unknown.push_back(&F);
  for (llvm::Function *F : Unknown) {
    const NvvmFallback *Fb = nullptr;
    for (const NvvmFallback &C : kNvvmFallbacks)
      if (F->getName() == C.name)
        Fb = &C;
    if (!Fb)
      backendError("libdevice calls " + F->getName().str() +
                   ", which this LLVM's NVPTX backend does not know");
    replaceByInstruction(F, *Fb);
  }
  for (const NvvmFallback &P : kNvvmPinned)
    if (llvm::Function *F = M.getFunction(P.name); F && !F->use_empty())
      replaceByInstruction(F, P);
}

// libdevice parsed lazily (only the function bodies the linker pulls are
// read) into Ctx, with the triple and data layout of Like: libdevice
// carries an old generic layout and triple, and the linker would warn or
// mix layouts.
std::unique_ptr<llvm::Module> lazyLibdevice(const llvm::MemoryBuffer &Bytes,
                                            llvm::LLVMContext &Ctx,
                                            const llvm::Module &Like) {
  auto Lib = llvm::getLazyBitcodeModule(Bytes.getMemBufferRef(), Ctx);
  if (!Lib)
    backendError("cannot parse libdevice: " + llvm::toString(Lib.takeError()));
  (*Lib)->setDataLayout(Like.getDataLayout());
  (*Lib)->setTargetTriple(Like.getTargetTriple());
  return std::move(*Lib);
}

// Links from Src the functions (and what they use) that M declares.
void linkNeeded(llvm::Module &M, std::unique_ptr<llvm::Module> Src) {
  detail::DiagnosticCapture Diags(M.getContext());
  if (llvm::Linker::linkModules(M, std::move(Src),
                                llvm::Linker::LinkOnlyNeeded)) {
    Diags.throwIfErrors("linking libdevice failed");
    backendError("linking libdevice failed");
  }
  Diags.throwIfErrors("linking libdevice failed");
}

// The declared names of M that libdevice (whose defined names are
// Defined) defines: what LinkOnlyNeeded pulls, so the extract's identity
// with the file, triple and data layout.
std::string extractKey(const std::string &Path,
                       const std::set<std::string> &Defined,
                       const llvm::Module &M) {
  std::set<std::string> Needed; // sorted
  for (const llvm::Function &F : M)
    if (F.isDeclaration() && Defined.count(F.getName().str()))
      Needed.insert(F.getName().str());
  std::string Key = Path + "\n" + M.getTargetTriple().str() + "\n" +
                    M.getDataLayoutStr() + "\n";
  for (const std::string &N : Needed)
    Key += N + ",";
  return Key;
}

// Records, from Lib (libdevice parsed lazily to link it into M directly),
// the names libdevice defines, and that M's set of functions was linked
// once: its next use makes the extract.
void noteDirectLink(const std::string &Path, const llvm::Module &Lib,
                    const llvm::Module &M) {
  LibdeviceState &S = state();
  std::lock_guard<std::mutex> Lock(S.ExtractMu);
  auto Defined = S.Defined.find(Path);
  if (Defined == S.Defined.end()) {
    std::set<std::string> Names;
    for (const llvm::Function &F : Lib)
      if (!F.isDeclaration()) // a body not read yet counts as defined
        Names.insert(F.getName().str());
    Defined = S.Defined.emplace(Path, std::move(Names)).first;
  }
  if (S.Seen.size() < kMaxExtracts)
    S.Seen.insert(extractKey(Path, Defined->second, M));
}

// The bitcode of the libdevice functions M's declarations name (with all
// they use), extracted once per process per set of names, triple and data
// layout, at the set's second use (the first links from libdevice itself:
// a single compile would only pay for the extract); nullptr when M links
// from libdevice itself: the first use, or once kMaxExtracts sets are kept.
// Linking the extract into M gives M what linking libdevice itself would:
// the same functions, pulled by the same linker rule (LinkOnlyNeeded) from
// the same bytes.
const std::string *extractFor(const std::string &Path,
                              const llvm::MemoryBuffer &Bytes,
                              const llvm::Module &M) {
  LibdeviceState &S = state();
  std::lock_guard<std::mutex> Lock(S.ExtractMu);
  auto Defined = S.Defined.find(Path);
  if (Defined == S.Defined.end())
    return nullptr; // not linked yet: noteDirectLink learns the names
  std::string Key = extractKey(Path, Defined->second, M);
  if (auto It = S.Extracts.find(Key); It != S.Extracts.end())
    return It->second.get();
  if (!S.Seen.count(Key) || S.Extracts.size() >= kMaxExtracts)
    return nullptr;

  // A module declaring the names, linked from libdevice in a private
  // context (destroyed here: only the bitcode stays).
  llvm::LLVMContext Ctx;
  std::unique_ptr<llvm::Module> Lib = lazyLibdevice(Bytes, Ctx, M);
  auto Dest = std::make_unique<llvm::Module>("libdevice-extract", Ctx);
  Dest->setDataLayout(M.getDataLayout());
  Dest->setTargetTriple(M.getTargetTriple());
  for (const llvm::Function &F : M)
    if (F.isDeclaration() && Defined->second.count(F.getName().str()))
      Dest->getOrInsertFunction(
          F.getName(), Lib->getFunction(F.getName())->getFunctionType());
  linkNeeded(*Dest, std::move(Lib));
  std::string Blob;
  llvm::raw_string_ostream OS(Blob);
  llvm::WriteBitcodeToFile(*Dest, OS);
  OS.flush();
  Dest.reset(); // before its context
  S.ExtractsMade.fetch_add(1, std::memory_order_relaxed);
  auto Stored = std::make_unique<const std::string>(std::move(Blob));
  return S.Extracts.emplace(Key, std::move(Stored)).first->second.get();
}

} // namespace

LibdeviceSearch findLibdevice() {
  LibdeviceSearch R;
  R.path = findToolkitFile(ToolkitPiece::Libdevice, &R.searched);
  return R;
}

bool moduleNeedsLibdevice(const llvm::Module &M) {
  for (const llvm::Function &F : M)
    if (F.isDeclaration() && F.getName().starts_with("__nv_"))
      return true;
  return false;
}

bool linkLibdeviceIfNeeded(llvm::Module &M) {
  if (!moduleNeedsLibdevice(M))
    return false;
  LibdeviceSearch Found = findLibdevice();
  const llvm::MemoryBuffer &Bytes = loadLibdevice(Found);
  std::unique_ptr<llvm::Module> Src;
  if (const std::string *Blob = extractFor(Found.path, Bytes, M)) {
    auto Lib = llvm::getLazyBitcodeModule(
        llvm::MemoryBufferRef(*Blob, "libdevice-extract"), M.getContext());
    if (!Lib)
      backendError("cannot parse the libdevice extract: " +
                   llvm::toString(Lib.takeError()));
    Src = std::move(*Lib);
  } else {
    Src = lazyLibdevice(Bytes, M.getContext(), M);
    noteDirectLink(Found.path, *Src, M);
  }

  bool HadVersionMD = M.getNamedMetadata("nvvmir.version") != nullptr;
  linkNeeded(M, std::move(Src));
  // libdevice's NVVM IR version tag means nothing to the NVPTX backend.
  if (!HadVersionMD)
    if (llvm::NamedMDNode *MD = M.getNamedMetadata("nvvmir.version"))
      M.eraseNamedMetadata(MD);
  lowerUnknownNvvmIntrinsics(M);
  state().Links.fetch_add(1, std::memory_order_relaxed);
  return true;
}

LibdeviceStats libdeviceStats() {
  LibdeviceState &S = state();
  return {S.FileReads.load(), S.Links.load(), S.ExtractsMade.load()};
}

} // namespace pcj::codegen
