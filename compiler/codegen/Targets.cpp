// Targets: one-time LLVM target registration, module configuration and
// TargetMachine factories for the NVPTX and host backends (see Targets.h).
#include "codegen/Targets.h"

#include "support/Diagnostics.h"
#include "support/GpuTargets.h"

#include "llvm/Config/llvm-config.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/CodeGen.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/SubtargetFeature.h"
#include "llvm/TargetParser/Triple.h"

#include <algorithm>
#include <map>
#include <mutex>

extern "C" {
void LLVMInitializeNVPTXTargetInfo();
void LLVMInitializeNVPTXTarget();
void LLVMInitializeNVPTXTargetMC();
void LLVMInitializeNVPTXAsmPrinter();
}

namespace pcj::codegen {

namespace {

// A per-thread TargetMachine is rebuilt after this many uses: the NVPTX
// TargetMachine keeps a string pool that grows with every call site it
// lowers, so an immortal one would grow without bound in a long process.
constexpr unsigned kMaxUsesPerCachedTM = 512;

[[noreturn]] void backendError(std::string Msg) {
  throw CompileError(ErrorKind::Backend, SourceLoc{}, std::move(Msg));
}

llvm::CodeGenOptLevel codeGenLevel(int OptLevel) {
  if (OptLevel <= 0)
    return llvm::CodeGenOptLevel::None;
  if (OptLevel == 1)
    return llvm::CodeGenOptLevel::Less;
  if (OptLevel == 2)
    return llvm::CodeGenOptLevel::Default;
  return llvm::CodeGenOptLevel::Aggressive;
}

const llvm::Target &lookupTarget(const std::string &Triple) {
  initializeTargets();
  std::string Err;
  const llvm::Target *T = llvm::TargetRegistry::lookupTarget(Triple, Err);
  if (!T)
    backendError("LLVM has no target for '" + Triple + "': " + Err);
  return *T;
}

struct HostInfo {
  std::string Triple;
  std::string Cpu;
  std::string Features;
};

const HostInfo &hostInfo() {
  static const HostInfo Info = [] {
    HostInfo I;
    I.Triple = llvm::sys::getProcessTriple();
    I.Cpu = llvm::sys::getHostCPUName().str();
    llvm::SubtargetFeatures F;
    // Sorted by name (StringMap order is not deterministic).
    std::map<std::string, bool> Sorted;
    for (const auto &KV : llvm::sys::getHostCPUFeatures())
      Sorted[KV.getKey().str()] = KV.getValue();
    // float16 goes through float32 (F16C) even where the CPU has AVX512-FP16:
    // LLVM 19 commutes masked half compares (vcmpph ... {k}) without swapping
    // the predicate (LLVM issue 159723, fixed in LLVM 22), which gave wrong
    // comparisons (tests/kernels/test_fuzz_regressions.py).
    // bfloat16 rounds in integer code (__truncsfbf2): AVX512-BF16's and
    // AVX-NE-CONVERT's float -> bfloat16 instructions flush subnormals.
    if (llvm::Triple(I.Triple).isX86()) {
      Sorted["avx512fp16"] = false;
      Sorted["avx512bf16"] = false;
      Sorted["avxneconvert"] = false;
    }
    for (const auto &[Name, On] : Sorted)
      F.AddFeature(Name, On);
    I.Features = F.getString();
    return I;
  }();
  return Info;
}

struct CachedTM {
  std::unique_ptr<llvm::TargetMachine> TM;
  unsigned Uses = 0;
};

template <typename Create>
llvm::TargetMachine &cachedForThread(const std::string &Key, Create &&Make) {
  thread_local std::map<std::string, CachedTM> Cache;
  CachedTM &Entry = Cache[Key];
  if (!Entry.TM || Entry.Uses >= kMaxUsesPerCachedTM) {
    Entry.TM.reset();
    Entry.TM = Make();
    Entry.Uses = 0;
  }
  ++Entry.Uses;
  return *Entry.TM;
}

} // namespace

void initializeTargets() {
  static std::once_flag Once;
  std::call_once(Once, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::InitializeNativeTargetAsmParser();
  });
}

std::string nvptxArchName(int ccMajor, int ccMinor, char suffix) {
  std::string S = "sm_" + std::to_string(ccMajor) + std::to_string(ccMinor);
  if (suffix)
    S += suffix;
  return S;
}

bool nvptxSupportsArch(int ccMajor, int ccMinor, char suffix) {
  if (ccMajor < 1 || ccMinor < 0 || ccMinor > 9 ||
      (suffix && suffix != 'a' && suffix != 'f'))
    return false;
  static const std::unique_ptr<const llvm::MCSubtargetInfo> STI = [] {
    const llvm::Target &T = lookupTarget(kNvptxTriple);
    return std::unique_ptr<const llvm::MCSubtargetInfo>(
        T.createMCSubtargetInfo(kNvptxTriple, "sm_52", ""));
  }();
  return STI && STI->isCPUStringValid(nvptxArchName(ccMajor, ccMinor, suffix));
}

void requireNvptxArch(int ccMajor, int ccMinor, char suffix) {
  if (nvptxSupportsArch(ccMajor, ccMinor, suffix))
    return;
  backendError("architecture " + nvptxArchName(ccMajor, ccMinor, suffix) +
               " is not supported by this LLVM's NVPTX backend (LLVM " +
               std::to_string(LLVM_VERSION_MAJOR) +
               " knows up to sm_121); a newer GPU runs PTX compiled for the "
               "newest known architecture through the JIT");
}

std::unique_ptr<llvm::TargetMachine>
createNvptxTargetMachine(int ccMajor, int ccMinor, int optLevel, bool fastMath,
                         int ptxVersion, char suffix) {
  requireNvptxArch(ccMajor, ccMinor, suffix);
  const llvm::Target &T = lookupTarget(kNvptxTriple);
  llvm::TargetOptions Opts;
  // (Approximate division and square root come from the instructions'
  // fast-math flags: LLVM 22 has no TargetOptions::UnsafeFPMath.)
  // Fusion is decided before the backend (FuseMultiplyAdd): only operations
  // marked `contract` may fuse, and every other mul/add/sub is emitted with
  // .rn, which ptxas never fuses.  fastMath lets LLVM and ptxas fuse freely
  // (mul/add without .rn).
  Opts.AllowFPOpFusion =
      fastMath ? llvm::FPOpFusion::Fast : llvm::FPOpFusion::Standard;
  // PTX ISA 7.8 at least (CUDA 11.8+): every instruction the kernel
  // language emits (activemask, nanosleep, *.sync) is then available on
  // every architecture that has it in hardware.  Newer architectures need
  // more (8.6 for sm_100: support/GpuTargets.cpp's table; LLVM refuses a
  // lower one).
  int Ptx = std::max(
      {78, ptxVersion, minPtxIsaFor(GpuArch{ccMajor, ccMinor, suffix})});
  std::unique_ptr<llvm::TargetMachine> TM(T.createTargetMachine(
      llvm::Triple(kNvptxTriple), nvptxArchName(ccMajor, ccMinor, suffix),
      "+ptx" + std::to_string(Ptx), Opts, std::nullopt, std::nullopt,
      codeGenLevel(optLevel)));
  if (!TM)
    backendError("could not create the NVPTX TargetMachine for " +
                 nvptxArchName(ccMajor, ccMinor, suffix));
  return TM;
}

std::unique_ptr<llvm::TargetMachine> createHostTargetMachine(int optLevel,
                                                             bool fastMath) {
  const HostInfo &H = hostInfo();
  const llvm::Target &T = lookupTarget(H.Triple);
  llvm::TargetOptions Opts;
  // As on NVPTX: only operations marked `contract` may fuse (none, unless
  // fastmath kept them; see FuseMultiplyAdd.h).
  Opts.AllowFPOpFusion = llvm::FPOpFusion::Standard;
  // PIC + small code model: JITLink places code anywhere and builds
  // GOT/PLT stubs for calls into libm and the runtime.
  std::unique_ptr<llvm::TargetMachine> TM(T.createTargetMachine(
      llvm::Triple(H.Triple), H.Cpu, H.Features, Opts, llvm::Reloc::PIC_,
      llvm::CodeModel::Small, codeGenLevel(optLevel)));
  if (!TM)
    backendError("could not create the host TargetMachine for " + H.Triple);
  return TM;
}

llvm::TargetMachine &nvptxTargetMachineForThread(int ccMajor, int ccMinor,
                                                 int optLevel, bool fastMath,
                                                 int ptxVersion, char suffix) {
  std::string Key = nvptxArchName(ccMajor, ccMinor, suffix) + "/O" +
                    std::to_string(optLevel) + (fastMath ? "/fast" : "") +
                    "/ptx" + std::to_string(ptxVersion);
  return cachedForThread(Key, [&] {
    return createNvptxTargetMachine(ccMajor, ccMinor, optLevel, fastMath,
                                    ptxVersion, suffix);
  });
}

llvm::TargetMachine &hostTargetMachineForThread(int optLevel, bool fastMath) {
  std::string Key =
      "host/O" + std::to_string(optLevel) + (fastMath ? "/fast" : "");
  return cachedForThread(
      Key, [&] { return createHostTargetMachine(optLevel, fastMath); });
}

void configureForNvptx(llvm::Module &M, int ccMajor, int ccMinor) {
  requireNvptxArch(ccMajor, ccMinor);
  // The NVPTX data layout does not depend on the SM version.
  static const std::string Layout = createNvptxTargetMachine(5, 2, 0, false)
                                        ->createDataLayout()
                                        .getStringRepresentation();
  M.setTargetTriple(llvm::Triple(kNvptxTriple));
  M.setDataLayout(Layout);
}

const std::string &hostCpuName() { return hostInfo().Cpu; }
const std::string &hostCpuFeatures() { return hostInfo().Features; }
std::string hostTarget() { return hostCpuName() + " " + hostCpuFeatures(); }

void configureForHost(llvm::Module &M) {
  static const std::string Layout = createHostTargetMachine(0, false)
                                        ->createDataLayout()
                                        .getStringRepresentation();
  M.setTargetTriple(llvm::Triple(hostInfo().Triple));
  M.setDataLayout(Layout);
}

} // namespace pcj::codegen
