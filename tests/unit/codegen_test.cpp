// Tests for compiler/codegen: PTX emission (libdevice, kernels, fast math,
// determinism across threads, ptxas acceptance) and the host JIT (libm
// intrinsics, registered runtime symbols, module isolation and release).
// Inputs are hand-written textual LLVM IR.
#include "codegen/Codegen.h"
#include "support/Diagnostics.h"

#include "llvm/AsmParser/Parser.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/BasicBlock.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"

#include <gtest/gtest.h>

#include "support/ScopedEnv.h"
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <random>
#include <sstream>
#include <thread>

using namespace pcj;
using namespace pcj::codegen;

namespace {

using pcj::test::ScopedEnv;

// ---- helpers
// -----------------------------------------------------------------

std::unique_ptr<llvm::Module> parseIR(llvm::LLVMContext &Ctx,
                                      const std::string &Text) {
  llvm::SMDiagnostic Err;
  auto M = llvm::parseAssemblyString(Text, Err, Ctx);
  if (!M) {
    std::string S;
    llvm::raw_string_ostream OS(S);
    Err.print("test", OS);
    ADD_FAILURE() << "IR does not parse: " << OS.str();
  }
  return M;
}

std::string findPtxas() {
  if (llvm::sys::fs::can_execute("/usr/local/cuda/bin/ptxas"))
    return "/usr/local/cuda/bin/ptxas";
  if (auto P = llvm::sys::findProgramByName("ptxas"))
    return *P;
  return {};
}

// Assembles PTX with ptxas for the given arch; returns "" on success or the
// diagnostic output.
std::string runPtxas(const std::string &Ptxas, const std::string &Ptx,
                     const std::string &Arch) {
  llvm::SmallString<128> In, Out, Log;
  llvm::sys::fs::createTemporaryFile("pcj-codegen", "ptx", In);
  llvm::sys::fs::createTemporaryFile("pcj-codegen", "cubin", Out);
  llvm::sys::fs::createTemporaryFile("pcj-codegen", "log", Log);
  {
    std::ofstream F(In.c_str());
    F << Ptx;
  }
  std::string ArchArg = "-arch=" + Arch;
  llvm::StringRef Args[] = {Ptxas, ArchArg, In.str(), "-o", Out.str()};
  std::optional<llvm::StringRef> Redirects[] = {std::nullopt, Log.str(),
                                                Log.str()};
  std::string ErrMsg;
  int Rc = llvm::sys::ExecuteAndWait(Ptxas, Args, std::nullopt, Redirects,
                                     /*SecondsToWait=*/120, 0, &ErrMsg);
  std::string Result;
  if (Rc != 0) {
    std::ifstream L(Log.c_str());
    std::stringstream SS;
    SS << L.rdbuf();
    Result = "ptxas " + ArchArg + " failed (rc " + std::to_string(Rc) +
             "): " + ErrMsg + "\n" + SS.str();
  }
  llvm::sys::fs::remove(In);
  llvm::sys::fs::remove(Out);
  llvm::sys::fs::remove(Log);
  return Result;
}

#define REQUIRE_PTXAS(Var)                                                     \
  std::string Var = findPtxas();                                               \
  if (Var.empty())                                                             \
  GTEST_SKIP() << "ptxas not found in /usr/local/cuda/bin or on PATH; PTX "    \
                  "assembly checks skipped"

// saxpy-like kernel: out[i] = a*x[i] + expf(y[i]); d[i] = sin((double)x[i]).
// `Mark` is either "ptx_kernel" (calling convention) or "" with an
// nvvm.annotations kernel entry.
std::string saxpyIR(bool UseAnnotation, const std::string &Name = "saxpy") {
  std::string CC = UseAnnotation ? "" : "ptx_kernel ";
  std::string S = R"(
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare float @__nv_expf(float)
declare double @__nv_sin(double)

define )" + CC + "void @" +
                  Name +
                  R"((float %a, ptr %x, ptr %y, ptr %out, ptr %d, i32 %n) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %ctaid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %ntid = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %base = mul i32 %ctaid, %ntid
  %i = add i32 %base, %tid
  %inb = icmp slt i32 %i, %n
  br i1 %inb, label %body, label %exit
body:
  %idx = sext i32 %i to i64
  %px = getelementptr inbounds float, ptr %x, i64 %idx
  %py = getelementptr inbounds float, ptr %y, i64 %idx
  %xv = load float, ptr %px, align 4
  %yv = load float, ptr %py, align 4
  %ax = fmul float %a, %xv
  %e = call float @__nv_expf(float %yv)
  %r = fadd float %ax, %e
  %po = getelementptr inbounds float, ptr %out, i64 %idx
  store float %r, ptr %po, align 4
  %xd = fpext float %xv to double
  %s = call double @__nv_sin(double %xd)
  %pd = getelementptr inbounds double, ptr %d, i64 %idx
  store double %s, ptr %pd, align 8
  br label %exit
exit:
  ret void
}
)";
  if (UseAnnotation)
    S += "!nvvm.annotations = !{!0}\n!0 = !{ptr @" + Name +
         ", !\"kernel\", i32 1}\n";
  return S;
}

// A kernel without libdevice calls: p[tid] = p[tid] / q[tid].
std::string divIR(const std::string &Name = "divk", bool Declare = true) {
  return std::string(Declare ? "declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n"
                             : "") +
         R"(
define ptx_kernel void @)" +
         Name + R"((ptr %p, ptr %q) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %i = zext i32 %t to i64
  %pp = getelementptr inbounds float, ptr %p, i64 %i
  %pq = getelementptr inbounds float, ptr %q, i64 %i
  %a = load float, ptr %pp, align 4
  %b = load float, ptr %pq, align 4
  %c = fdiv float %a, %b
  store float %c, ptr %pp, align 4
  ret void
}
)";
}

NvptxOptions optsFor(int Major, int Minor, std::vector<std::string> Kernels) {
  NvptxOptions O;
  O.ccMajor = Major;
  O.ccMinor = Minor;
  O.kernelNames = std::move(Kernels);
  O.keepOptimizedIR = true; // the tests read it
  return O;
}

NvptxResult compilePtx(const std::string &IR, const NvptxOptions &O) {
  llvm::LLVMContext Ctx;
  auto M = parseIR(Ctx, IR);
  if (!M)
    throw std::runtime_error("test IR does not parse");
  configureForNvptx(*M, O.ccMajor, O.ccMinor);
  return emitPtx(*M, O);
}

// ---- NVPTX -----------------------------------------------------------------

TEST(CodegenNvptx, ConfigureForNvptxSetsTripleAndLayout) {
  llvm::LLVMContext Ctx;
  llvm::Module M("m", Ctx);
  configureForNvptx(M, 9, 0);
  EXPECT_EQ(M.getTargetTriple().str(), "nvptx64-nvidia-cuda");
  EXPECT_EQ(M.getDataLayout().getPointerSizeInBits(0), 64u);
  EXPECT_FALSE(M.getDataLayout().isDefault());
  EXPECT_TRUE(nvptxSupportsArch(8, 0));
  EXPECT_TRUE(nvptxSupportsArch(9, 0));
  EXPECT_FALSE(nvptxSupportsArch(12, 7));
}

TEST(CodegenNvptx, SaxpyForSm80AndSm90AssemblesWithPtxas) {
  std::string Ptxas = findPtxas();
  for (auto [Major, Minor] : {std::pair{8, 0}, std::pair{9, 0}}) {
    SCOPED_TRACE("sm_" + std::to_string(Major) + std::to_string(Minor));
    NvptxResult R =
        compilePtx(saxpyIR(false), optsFor(Major, Minor, {"saxpy"}));
    std::string Arch = nvptxArchName(Major, Minor);
    EXPECT_NE(R.ptx.find(".visible .entry saxpy("), std::string::npos) << R.ptx;
    EXPECT_NE(R.ptx.find(".target " + Arch), std::string::npos);
    EXPECT_EQ(R.ptx.find("__nv_"), std::string::npos) << R.ptx;
    EXPECT_EQ(R.ptx.find("__nvvm_reflect"), std::string::npos);
    EXPECT_EQ(R.optimizedIR.find("__nvvm_reflect"), std::string::npos);
    EXPECT_EQ(R.optimizedIR.find("@__nv_"), std::string::npos)
        << "dead libdevice functions were not dropped";
    EXPECT_TRUE(R.linkedLibdevice);
    if (Ptxas.empty()) {
      std::cout << "[ SKIPPED  ] ptxas not found; PTX not assembled\n";
      continue;
    }
    EXPECT_EQ(runPtxas(Ptxas, R.ptx, Arch), "");
  }
}

TEST(CodegenNvptx, AnnotationAndCallingConventionGiveSamePtx) {
  NvptxResult ByCC = compilePtx(saxpyIR(false), optsFor(9, 0, {"saxpy"}));
  NvptxResult ByAnnot = compilePtx(saxpyIR(true), optsFor(9, 0, {"saxpy"}));
  EXPECT_EQ(ByCC.ptx, ByAnnot.ptx);
  // Canonical form: calling convention, no kernel annotation left.
  EXPECT_NE(ByAnnot.optimizedIR.find("define ptx_kernel void @saxpy"),
            std::string::npos);
  EXPECT_EQ(ByAnnot.optimizedIR.find("!\"kernel\""), std::string::npos);
}

// The optimized module is printed only when a dump asks for it (printing
// a module costs a compile more than it gives when nobody reads it).
TEST(CodegenNvptx, OptimizedIRRenderedOnlyWhenAsked) {
  NvptxOptions O = optsFor(9, 0, {"saxpy"});
  O.keepOptimizedIR = false;
  NvptxResult Quiet = compilePtx(saxpyIR(false), O);
  EXPECT_TRUE(Quiet.optimizedIR.empty());
  NvptxResult Kept = compilePtx(saxpyIR(false), optsFor(9, 0, {"saxpy"}));
  EXPECT_NE(Kept.optimizedIR.find("@saxpy"), std::string::npos);
  EXPECT_EQ(Quiet.ptx, Kept.ptx);
}

TEST(CodegenNvptx, UnlistedKernelIsInternalError) {
  llvm::LLVMContext Ctx;
  auto M = parseIR(Ctx, saxpyIR(false) + divIR("divk", false));
  ASSERT_TRUE(M);
  configureForNvptx(*M, 9, 0);
  try {
    emitPtx(*M, optsFor(9, 0, {"saxpy"}));
    FAIL() << "expected CompileError";
  } catch (const CompileError &E) {
    EXPECT_EQ(E.kind(), ErrorKind::Internal);
    EXPECT_NE(E.message().find("divk"), std::string::npos) << E.message();
  }
  // A kernel name that is not defined.
  llvm::LLVMContext Ctx2;
  auto M2 = parseIR(Ctx2, divIR());
  ASSERT_TRUE(M2);
  configureForNvptx(*M2, 9, 0);
  try {
    emitPtx(*M2, optsFor(9, 0, {"divk", "nope"}));
    FAIL() << "expected CompileError";
  } catch (const CompileError &E) {
    EXPECT_EQ(E.kind(), ErrorKind::Internal);
    EXPECT_NE(E.message().find("nope"), std::string::npos) << E.message();
  }
}

TEST(CodegenNvptx, ModuleWithoutNvCallsNeverLoadsLibdevice) {
  LibdeviceStats Before = libdeviceStats();
  // Even a bogus override is never consulted.
  ScopedEnv Env(kLibdeviceEnv, "/nonexistent/libdevice.10.bc");
  NvptxResult R = compilePtx(divIR(), optsFor(9, 0, {"divk"}));
  LibdeviceStats After = libdeviceStats();
  EXPECT_FALSE(R.linkedLibdevice);
  EXPECT_EQ(After.links, Before.links);
  EXPECT_EQ(After.fileReads, Before.fileReads);
  EXPECT_NE(R.ptx.find(".visible .entry divk("), std::string::npos);
}

TEST(CodegenNvptx, LibdeviceIsReadOncePerProcess) {
  compilePtx(saxpyIR(false), optsFor(9, 0, {"saxpy"}));
  LibdeviceStats A = libdeviceStats();
  compilePtx(saxpyIR(false), optsFor(8, 0, {"saxpy"}));
  LibdeviceStats B = libdeviceStats();
  EXPECT_EQ(B.fileReads, A.fileReads);
  EXPECT_EQ(B.links, A.links + 1);
  EXPECT_GE(B.fileReads, 1u);
}

// A kernel Name that calls each float function of Fns (float -> float) on
// p[0], summing the results into p[0].
std::string nvCallsIR(const std::string &Name,
                      const std::vector<std::string> &Fns) {
  std::string IR;
  for (const std::string &F : Fns)
    IR += "declare float @" + F + "(float)\n";
  IR += "define ptx_kernel void @" + Name + "(ptr %p) {\n";
  IR += "  %a = load float, ptr %p, align 4\n  %s0 = fadd float %a, 1.0\n";
  for (size_t I = 0; I < Fns.size(); ++I) {
    std::string K = std::to_string(I);
    IR += "  %c" + K + " = call float @" + Fns[I] + "(float %a)\n";
    IR += "  %s" + std::to_string(I + 1) + " = fadd float %s" + K + ", %c" + K +
          "\n";
  }
  IR += "  store float %s" + std::to_string(Fns.size()) +
        ", ptr %p, align 4\n  ret void\n}\n";
  return IR;
}

// Threads compiling modules that need distinct sets of libdevice functions
// at once.  A set's first compiles link from libdevice itself, the next
// one extracts the set once (whichever thread comes first), and the later
// ones link the extract: every PTX is the same, with every libdevice
// function linked in.
TEST(CodegenNvptx, LibdeviceExtractsAreSharedByThreads) {
  const std::vector<std::vector<std::string>> Sets = {
      {"__nv_sinf"},
      {"__nv_cosf"},
      {"__nv_expf", "__nv_logf"},
      {"__nv_tanhf"},
      {"__nv_sinf", "__nv_cosf"},
      {"__nv_atanf", "__nv_erff"},
      {"__nv_log1pf", "__nv_expm1f"},
      {"__nv_cbrtf", "__nv_asinhf", "__nv_sinf"}};
  constexpr size_t kRounds = 3;
  auto onThreads = [&] {
    std::vector<std::string> Ptx(Sets.size() * kRounds), Errors(Ptx.size());
    std::vector<std::thread> Threads;
    for (size_t I = 0; I < Ptx.size(); ++I)
      Threads.emplace_back([&, I] {
        try {
          Ptx[I] = compilePtx(nvCallsIR("k", Sets[I % Sets.size()]),
                              optsFor(9, 0, {"k"}))
                       .ptx;
        } catch (const std::exception &E) {
          Errors[I] = E.what();
        }
      });
    for (std::thread &T : Threads)
      T.join();
    for (size_t I = 0; I < Ptx.size(); ++I)
      EXPECT_EQ(Errors[I], "");
    return Ptx;
  };
  LibdeviceStats Before = libdeviceStats();
  std::vector<std::string> First = onThreads();
  // One more use of each set: by now each has an extract.
  std::vector<std::string> Alone;
  for (const std::vector<std::string> &Set : Sets)
    Alone.push_back(compilePtx(nvCallsIR("k", Set), optsFor(9, 0, {"k"})).ptx);
  LibdeviceStats Mid = libdeviceStats();
  std::vector<std::string> Later = onThreads();
  LibdeviceStats After = libdeviceStats();
  EXPECT_LE(Mid.extracts - Before.extracts, Sets.size());
  EXPECT_EQ(After.extracts, Mid.extracts) << "a set was extracted twice";
  EXPECT_EQ(After.links - Before.links, 2 * First.size() + Sets.size());
  std::string Ptxas = findPtxas();
  for (size_t I = 0; I < First.size(); ++I) {
    const std::vector<std::string> &Set = Sets[I % Sets.size()];
    SCOPED_TRACE(Set.front() + " (" + std::to_string(Set.size()) + ")");
    EXPECT_EQ(First[I].find(".extern .func"), std::string::npos) << First[I];
    EXPECT_EQ(First[I], Alone[I % Sets.size()]);
    EXPECT_EQ(Later[I], Alone[I % Sets.size()]);
    if (I < Sets.size() && !Ptxas.empty())
      EXPECT_EQ(runPtxas(Ptxas, First[I], "sm_90"), "");
  }
}

// A set of libdevice functions links from libdevice itself at its first
// use, is extracted at its second, and links from the extract after: the
// same PTX each time.
TEST(CodegenNvptx, LibdeviceSetIsExtractedAtItsSecondUse) {
  // A set no other test uses.
  std::string IR = nvCallsIR("k", {"__nv_j0f", "__nv_y1f"});
  std::vector<std::string> Ptx;
  std::vector<uint64_t> Extracts{libdeviceStats().extracts};
  for (int I = 0; I < 3; ++I) {
    Ptx.push_back(compilePtx(IR, optsFor(9, 0, {"k"})).ptx);
    Extracts.push_back(libdeviceStats().extracts);
  }
  EXPECT_EQ(Extracts[1], Extracts[0]);
  EXPECT_EQ(Extracts[2], Extracts[1] + 1);
  EXPECT_EQ(Extracts[3], Extracts[2]);
  EXPECT_EQ(Ptx[0].find(".extern .func"), std::string::npos) << Ptx[0];
  EXPECT_EQ(Ptx[1], Ptx[0]);
  EXPECT_EQ(Ptx[2], Ptx[0]);
}

TEST(CodegenNvptx, MissingLibdeviceIsBackendError) {
  ScopedEnv Env(kLibdeviceEnv, "/nonexistent/pcj/libdevice.10.bc");
  try {
    compilePtx(saxpyIR(false), optsFor(9, 0, {"saxpy"}));
    FAIL() << "expected CompileError";
  } catch (const CompileError &E) {
    EXPECT_EQ(E.kind(), ErrorKind::Backend);
    std::string All = E.message() + "\n" + E.hint();
    EXPECT_NE(All.find("/nonexistent/pcj/libdevice.10.bc"), std::string::npos)
        << All;
    EXPECT_NE(All.find("PYCUDA_JIT_LIBDEVICE"), std::string::npos) << All;
    std::cout << "  message: " << E.message() << "\n  hint: " << E.hint()
              << "\n";
  }
  // A directory override works too.
  ScopedEnv Dir(kLibdeviceEnv, "/usr/local/cuda/nvvm/libdevice");
  if (llvm::sys::fs::exists("/usr/local/cuda/nvvm/libdevice/libdevice.10.bc")) {
    EXPECT_EQ(findLibdevice().path,
              "/usr/local/cuda/nvvm/libdevice/libdevice.10.bc");
  }
}

TEST(CodegenNvptx, DefaultSearchListsWhereItLooked) {
  ScopedEnv E1(kLibdeviceEnv, nullptr);
  ScopedEnv E2("CUDA_HOME", "/nonexistent/cuda-home");
  ScopedEnv E3(kSitePackagesEnv, "/nonexistent/site-a:/nonexistent/site-b");
  LibdeviceSearch S = findLibdevice();
  ASSERT_FALSE(S.searched.empty());
  EXPECT_EQ(S.searched.front(),
            "/nonexistent/cuda-home/nvvm/libdevice/libdevice.10.bc");
  if (S.path.empty()) {
    std::string All;
    for (auto &P : S.searched)
      All += P + "\n";
    EXPECT_NE(All.find("/nonexistent/site-b/nvidia/cuda_nvcc/nvvm/libdevice"),
              std::string::npos)
        << All;
  }
}

TEST(CodegenNvptx, InvalidModuleIsCompileErrorNotCrash) {
  llvm::LLVMContext Ctx;
  llvm::Module M("broken", Ctx);
  configureForNvptx(M, 9, 0);
  auto *FT = llvm::FunctionType::get(llvm::Type::getVoidTy(Ctx), false);
  auto *F = llvm::Function::Create(FT, llvm::Function::ExternalLinkage, "k", M);
  F->setCallingConv(llvm::CallingConv::PTX_Kernel);
  // A block without a terminator.
  auto *BB = llvm::BasicBlock::Create(Ctx, "entry", F);
  llvm::IRBuilder<> B(BB);
  B.CreateAdd(B.getInt32(1), B.getInt32(2));
  try {
    emitPtx(M, optsFor(9, 0, {"k"}));
    FAIL() << "expected CompileError";
  } catch (const CompileError &E) {
    EXPECT_EQ(E.kind(), ErrorKind::Internal);
    EXPECT_NE(E.message().find("invalid LLVM module"), std::string::npos)
        << E.message();
    std::cout << "  message: " << E.message() << "\n";
  }
}

TEST(CodegenNvptx, UnsupportedArchIsBackendError) {
  try {
    compilePtx(divIR(), optsFor(13, 0, {"divk"}));
    FAIL() << "expected CompileError";
  } catch (const CompileError &E) {
    EXPECT_EQ(E.kind(), ErrorKind::Backend);
    EXPECT_NE(E.message().find("sm_130"), std::string::npos) << E.message();
  }
}

TEST(CodegenNvptx, FastMathMaxRegistersAndO0) {
  REQUIRE_PTXAS(Ptxas);
  NvptxOptions Precise = optsFor(9, 0, {"divk"});
  NvptxResult P = compilePtx(divIR(), Precise);
  EXPECT_NE(P.ptx.find("div.rn.f32"), std::string::npos) << P.ptx;

  NvptxOptions Fast = Precise;
  Fast.fastMath = true;
  Fast.maxRegisters = 32;
  NvptxResult F = compilePtx(divIR(), Fast);
  EXPECT_NE(F.ptx.find("div.approx.ftz.f32"), std::string::npos) << F.ptx;
  EXPECT_NE(F.ptx.find(".maxnreg 32"), std::string::npos) << F.ptx;
  EXPECT_EQ(runPtxas(Ptxas, F.ptx, "sm_90"), "");

  // ftz reaches libdevice through __nvvm_reflect("__CUDA_FTZ").
  NvptxOptions FastSaxpy = optsFor(9, 0, {"saxpy"});
  FastSaxpy.fastMath = true;
  NvptxResult FS = compilePtx(saxpyIR(false), FastSaxpy);
  EXPECT_NE(FS.ptx.find("fma.rn.ftz.f32"), std::string::npos);
  EXPECT_EQ(runPtxas(Ptxas, FS.ptx, "sm_90"), "");
  NvptxResult PS = compilePtx(saxpyIR(false), optsFor(9, 0, {"saxpy"}));
  EXPECT_NE(PS.ptx.find("fma.rn.f32"), std::string::npos);
  // (libdevice's expf uses ex2.approx.ftz by design, in both modes.)
  EXPECT_EQ(PS.ptx.find("fma.rn.ftz.f32"), std::string::npos);

  for (int Level = 0; Level <= 2; ++Level) {
    SCOPED_TRACE("O" + std::to_string(Level));
    NvptxOptions O = optsFor(8, 0, {"saxpy"});
    O.optLevel = Level;
    NvptxResult R = compilePtx(saxpyIR(false), O);
    EXPECT_EQ(R.ptx.find("__nvvm_reflect"), std::string::npos);
    EXPECT_EQ(runPtxas(Ptxas, R.ptx, "sm_80"), "");
  }
}

TEST(CodegenNvptx, LineInfoKeepsLocations) {
  const std::string IR = R"(
define ptx_kernel void @k(ptr %p) !dbg !5 {
  store float 1.0, ptr %p, align 4, !dbg !8
  ret void, !dbg !8
}
!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!3}
!0 = distinct !DICompileUnit(language: DW_LANG_Python, file: !1, producer: "pycuda_jit", isOptimized: true, runtimeVersion: 0, emissionKind: DebugDirectivesOnly)
!1 = !DIFile(filename: "kern.py", directory: "/tmp")
!3 = !{i32 2, !"Debug Info Version", i32 3}
!5 = distinct !DISubprogram(name: "k", scope: !1, file: !1, line: 3, type: !6, scopeLine: 3, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!6 = !DISubroutineType(types: !7)
!7 = !{}
!8 = !DILocation(line: 4, column: 5, scope: !5)
)";
  NvptxOptions O = optsFor(9, 0, {"k"});
  O.lineInfo = true;
  NvptxResult With = compilePtx(IR, O);
  EXPECT_NE(With.ptx.find(".loc"), std::string::npos) << With.ptx;
  EXPECT_NE(With.ptx.find("kern.py"), std::string::npos);
  O.lineInfo = false;
  NvptxResult Without = compilePtx(IR, O);
  EXPECT_EQ(Without.ptx.find(".loc"), std::string::npos) << Without.ptx;
  std::string Ptxas = findPtxas();
  if (!Ptxas.empty()) {
    EXPECT_EQ(runPtxas(Ptxas, With.ptx, "sm_90"), "");
  }
}

TEST(CodegenNvptx, SharedMemoryBarrierAndExportedGlobal) {
  // Static + dynamic shared memory, a barrier, a device global that the
  // runtime looks up by name (exportedSymbols) and a helper function.
  const std::string IR = R"(
@tile = internal addrspace(3) global [32 x float] undef, align 4
@dyn = external addrspace(3) global [0 x float], align 16
@counter = addrspace(1) global i32 0, align 4
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare void @llvm.nvvm.barrier0()
define float @helper(float %v) {
  %r = fmul float %v, 3.0
  ret float %r
}
define ptx_kernel void @k(ptr %p) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %i = zext i32 %t to i64
  %pp = getelementptr inbounds float, ptr %p, i64 %i
  %v = load float, ptr %pp, align 4
  %s = getelementptr inbounds [32 x float], ptr addrspace(3) @tile, i64 0, i64 %i
  store float %v, ptr addrspace(3) %s, align 4
  %d = getelementptr inbounds float, ptr addrspace(3) @dyn, i64 %i
  store float %v, ptr addrspace(3) %d, align 4
  call void @llvm.nvvm.barrier0()
  %j = xor i64 %i, 1
  %s2 = getelementptr inbounds [32 x float], ptr addrspace(3) @tile, i64 0, i64 %j
  %w = load float, ptr addrspace(3) %s2, align 4
  %h = call float @helper(float %w)
  store float %h, ptr %pp, align 4
  %old = atomicrmw add ptr addrspace(1) @counter, i32 1 monotonic
  ret void
}
)";
  NvptxOptions O = optsFor(9, 0, {"k"});
  O.exportedSymbols = {"counter"};
  NvptxResult R = compilePtx(IR, O);
  EXPECT_NE(R.ptx.find(".visible .global .align 4 .u32 counter"),
            std::string::npos)
      << R.ptx;
  EXPECT_NE(R.ptx.find(".extern .shared .align 16 .b8 dyn[]"),
            std::string::npos)
      << R.ptx;
  EXPECT_NE(R.ptx.find("bar.sync"), std::string::npos);
  EXPECT_EQ(R.ptx.find(".visible .func"), std::string::npos)
      << "helper should be internal (and inlined)";
  std::string Ptxas = findPtxas();
  if (!Ptxas.empty()) {
    EXPECT_EQ(runPtxas(Ptxas, R.ptx, "sm_90"), "");
  }
}

TEST(CodegenNvptx, ConcurrentCompilesAreDeterministic) {
  // Reference outputs, single-threaded.
  const std::vector<std::pair<std::string, std::string>> Jobs = {
      {saxpyIR(false, "saxpy"), "saxpy"},
      {divIR("div0"), "div0"},
      {saxpyIR(true, "saxpy2"), "saxpy2"},
      {divIR("div1"), "div1"},
  };
  std::vector<std::string> Ref;
  for (auto &[IR, K] : Jobs)
    Ref.push_back(compilePtx(IR, optsFor(9, 0, {K})).ptx);

  constexpr int kThreads = 4, kRounds = 3;
  std::vector<std::vector<std::string>> Got(kThreads);
  std::vector<std::string> Errors(kThreads);
  std::vector<std::thread> Threads;
  for (int T = 0; T < kThreads; ++T)
    Threads.emplace_back([&, T] {
      try {
        for (int R = 0; R < kRounds; ++R) {
          auto &[IR, K] = Jobs[(T + R) % Jobs.size()];
          Got[T].push_back(compilePtx(IR, optsFor(9, 0, {K})).ptx);
        }
      } catch (const std::exception &E) {
        Errors[T] = E.what();
      }
    });
  for (auto &Th : Threads)
    Th.join();
  std::string Ptxas = findPtxas();
  for (int T = 0; T < kThreads; ++T) {
    EXPECT_EQ(Errors[T], "");
    ASSERT_EQ(Got[T].size(), size_t(kRounds));
    for (int R = 0; R < kRounds; ++R) {
      size_t J = (T + R) % Jobs.size();
      EXPECT_EQ(Got[T][R], Ref[J]) << "thread " << T << " round " << R;
    }
  }
  if (!Ptxas.empty()) {
    for (const std::string &P : Ref)
      EXPECT_EQ(runPtxas(Ptxas, P, "sm_90"), "");
  }
}

// ---- host JIT
// ----------------------------------------------------------------

struct HostModule {
  std::unique_ptr<llvm::LLVMContext> Ctx =
      std::make_unique<llvm::LLVMContext>();
  std::unique_ptr<llvm::Module> M;
  explicit HostModule(const std::string &IR) {
    M = parseIR(*Ctx, IR);
    if (!M)
      throw std::runtime_error("test IR does not parse");
    configureForHost(*M);
  }
  std::shared_ptr<HostResult> jit(std::vector<std::string> Entries,
                                  HostOptions O = {}) {
    O.keepOptimizedIR = true; // the tests read it
    return jitForHost(std::move(M), std::move(Ctx), O, Entries);
  }
};

const char *kExpTimesTwoIR = R"(
declare float @llvm.exp.f32(float)
define void @f(ptr %out, ptr %in, i32 %n) {
entry:
  %c = icmp sgt i32 %n, 0
  br i1 %c, label %loop, label %exit
loop:
  %i = phi i32 [ 0, %entry ], [ %i1, %loop ]
  %idx = zext i32 %i to i64
  %pi = getelementptr inbounds float, ptr %in, i64 %idx
  %x = load float, ptr %pi, align 4
  %e = call float @llvm.exp.f32(float %x)
  %r = fmul float %e, 2.0
  %po = getelementptr inbounds float, ptr %out, i64 %idx
  store float %r, ptr %po, align 4
  %i1 = add nuw nsw i32 %i, 1
  %d = icmp eq i32 %i1, %n
  br i1 %d, label %exit, label %loop
exit:
  ret void
}
)";

TEST(CodegenHost, ExpTimesTwoMatchesStdExp) {
  auto R = HostModule(kExpTimesTwoIR).jit({"f"});
  using Fn = void (*)(float *, const float *, int);
  auto *F = reinterpret_cast<Fn>(R->entry("f"));
  ASSERT_NE(F, nullptr);
  EXPECT_EQ(R->entry("nope"), nullptr);
  std::mt19937 Rng(1234);
  std::uniform_real_distribution<float> Dist(-20.0f, 20.0f);
  const int N = 1003;
  std::vector<float> In(N), Out(N, 0.0f);
  for (float &X : In)
    X = Dist(Rng);
  F(Out.data(), In.data(), N);
  for (int I = 0; I < N; ++I) {
    float Want = std::exp(In[I]) * 2.0f;
    ASSERT_NEAR(Out[I], Want, std::fabs(Want) * 2e-7f) << "i=" << I;
  }
  std::cout << "  host f: optimize " << R->msOptimize << " ms, jit " << R->msJit
            << " ms\n";
}

// The stop word and poll of the CPU executor, stood in for by the test.
uint32_t TestStopWord = 0;
int TestPolls = 0;
void testPoll() {
  if (++TestPolls == 5)
    TestStopWord = 0; // as if the launch being stopped had ended
}

TEST(CodegenHost, CancelPointsPollInEveryLoopAfterOptimization) {
  registerHostSymbol("pcj_cpu_stop_requests",
                     reinterpret_cast<void *>(&TestStopWord));
  registerHostSymbol("pcj_cpu_poll", reinterpret_cast<void *>(&testPoll));
  HostOptions O;
  O.cancelPoints = true;
  auto R = HostModule(kExpTimesTwoIR).jit({"f"}, O);
  const std::string &IR = R->optimizedIR;
  EXPECT_NE(IR.find("load atomic i32, ptr @pcj_cpu_stop_requests monotonic"),
            std::string::npos)
      << IR;
  EXPECT_NE(IR.find("call void @pcj_cpu_poll()"), std::string::npos) << IR;
  auto *F =
      reinterpret_cast<void (*)(float *, const float *, int)>(R->entry("f"));
  std::vector<float> In(100, 1.0f), Out(100, 0.0f);
  TestPolls = 0;
  F(Out.data(), In.data(), 100);
  EXPECT_EQ(TestPolls, 0); // the word is 0: no call
  TestStopWord = 1;
  F(Out.data(), In.data(), 100);
  EXPECT_EQ(TestPolls, 5); // once per iteration while the word is set
  EXPECT_NEAR(Out[99], std::exp(1.0f) * 2.0f, 1e-5f);
  // Without the option (the default) nothing is inserted.
  auto Plain = HostModule(kExpTimesTwoIR).jit({"f"});
  EXPECT_EQ(Plain->optimizedIR.find("pcj_cpu_poll"), std::string::npos);
}

TEST(CodegenHost, LibmIntrinsicsResolve) {
  const char *IR = R"(
declare float @llvm.sqrt.f32(float)
declare float @llvm.sin.f32(float)
declare float @llvm.cos.f32(float)
declare float @llvm.pow.f32(float, float)
declare float @llvm.log.f32(float)
declare double @llvm.exp.f64(double)
declare double @llvm.pow.f64(double, double)
declare double @llvm.powi.f64.i32(double, i32)
declare double @llvm.sin.f64(double)
declare double @llvm.floor.f64(double)
define double @g(float %x, double %y, i32 %k) {
  %a = call float @llvm.sqrt.f32(float %x)
  %b = call float @llvm.sin.f32(float %x)
  %c = call float @llvm.cos.f32(float %x)
  %d = call float @llvm.pow.f32(float %x, float 1.5)
  %e = call float @llvm.log.f32(float %x)
  %s1 = fadd float %a, %b
  %s2 = fadd float %s1, %c
  %s3 = fadd float %s2, %d
  %s4 = fadd float %s3, %e
  %s = fpext float %s4 to double
  %f = call double @llvm.exp.f64(double %y)
  %g = call double @llvm.pow.f64(double %y, double %y)
  %h = call double @llvm.powi.f64.i32(double %y, i32 %k)
  %i = call double @llvm.sin.f64(double %y)
  %j = call double @llvm.floor.f64(double %y)
  %t1 = fadd double %s, %f
  %t2 = fadd double %t1, %g
  %t3 = fadd double %t2, %h
  %t4 = fadd double %t3, %i
  %t5 = fadd double %t4, %j
  ret double %t5
}
)";
  auto R = HostModule(IR).jit({"g"});
  auto *G = reinterpret_cast<double (*)(float, double, int)>(R->entry("g"));
  ASSERT_NE(G, nullptr);
  for (auto [X, Y, K] :
       {std::tuple{2.5f, 1.25, 3}, std::tuple{0.75f, 2.0, -2}}) {
    float S = std::sqrt(X) + std::sin(X) + std::cos(X) + std::pow(X, 1.5f) +
              std::log(X);
    double Want = double(S) + std::exp(Y) + std::pow(Y, Y) + std::pow(Y, K) +
                  std::sin(Y) + std::floor(Y);
    EXPECT_NEAR(G(X, Y, K), Want, 1e-5 * std::fabs(Want));
  }
}

int32_t testCallback(int32_t X) { return X * 3 + 1; }
int32_t testCallback2(int32_t X) { return X * 5; }

TEST(CodegenHost, RegisteredHostSymbolIsCalled) {
  registerHostSymbol("pcj_test_callback",
                     reinterpret_cast<void *>(&testCallback));
  const char *IR = R"(
declare i32 @pcj_test_callback(i32)
define i32 @h(i32 %x) {
  %r = call i32 @pcj_test_callback(i32 %x)
  %s = add i32 %r, 1
  ret i32 %s
}
)";
  auto R = HostModule(IR).jit({"h"});
  auto *H = reinterpret_cast<int32_t (*)(int32_t)>(R->entry("h"));
  ASSERT_NE(H, nullptr);
  EXPECT_EQ(H(7), 23);
  // Re-registration affects modules linked afterwards.
  registerHostSymbol("pcj_test_callback",
                     reinterpret_cast<void *>(&testCallback2));
  auto R2 = HostModule(IR).jit({"h"});
  auto *H2 = reinterpret_cast<int32_t (*)(int32_t)>(R2->entry("h"));
  EXPECT_EQ(H2(7), 36);
  EXPECT_EQ(H(7), 23);
}

TEST(CodegenHost, UnresolvedSymbolIsBackendError) {
  const char *IR = R"(
declare i32 @pcj_no_such_function(i32)
define i32 @h(i32 %x) {
  %r = call i32 @pcj_no_such_function(i32 %x)
  ret i32 %r
}
)";
  size_t Live = hostLiveModules();
  try {
    HostModule(IR).jit({"h"});
    FAIL() << "expected CompileError";
  } catch (const CompileError &E) {
    EXPECT_EQ(E.kind(), ErrorKind::Backend);
    EXPECT_NE(E.message().find("pcj_no_such_function"), std::string::npos)
        << E.message();
    std::cout << "  message: " << E.message() << "\n";
  }
  EXPECT_EQ(hostLiveModules(), Live);
}

TEST(CodegenHost, SameNameInTwoModulesAndRelease) {
  auto IRFor = [](int V) {
    return "define i32 @same(i32 %x) {\n  %r = add i32 %x, " +
           std::to_string(V) + "\n  ret i32 %r\n}\n";
  };
  size_t Live0 = hostLiveModules();
  auto A = HostModule(IRFor(100)).jit({"same"});
  auto B = HostModule(IRFor(200)).jit({"same"});
  EXPECT_EQ(hostLiveModules(), Live0 + 2);
  EXPECT_NE(A->dylibName(), B->dylibName());
  auto *FA = reinterpret_cast<int32_t (*)(int32_t)>(A->entry("same"));
  auto *FB = reinterpret_cast<int32_t (*)(int32_t)>(B->entry("same"));
  ASSERT_TRUE(FA && FB);
  EXPECT_NE(reinterpret_cast<void *>(FA), reinterpret_cast<void *>(FB));
  EXPECT_EQ(FA(1), 101);
  EXPECT_EQ(FB(1), 201);
  A.reset();
  EXPECT_EQ(hostLiveModules(), Live0 + 1);
  EXPECT_EQ(FB(2), 202); // B unaffected by A's release
  B.reset();
  EXPECT_EQ(hostLiveModules(), Live0);
  // Many compile/release cycles do not accumulate dylibs.
  for (int I = 0; I < 20; ++I) {
    auto C = HostModule(IRFor(I)).jit({"same"});
    auto *FC = reinterpret_cast<int32_t (*)(int32_t)>(C->entry("same"));
    ASSERT_EQ(FC(0), I);
  }
  EXPECT_EQ(hostLiveModules(), Live0);
}

TEST(CodegenHost, ConcurrentJit) {
  constexpr int kThreads = 4;
  std::vector<std::string> Errors(kThreads);
  std::vector<std::thread> Threads;
  for (int T = 0; T < kThreads; ++T)
    Threads.emplace_back([&, T] {
      try {
        for (int R = 0; R < 3; ++R) {
          auto Res = HostModule(kExpTimesTwoIR).jit({"f"});
          auto *F = reinterpret_cast<void (*)(float *, const float *, int)>(
              Res->entry("f"));
          float In[5] = {0, 1, 2, -1, float(T)}, Out[5];
          F(Out, In, 5);
          for (int I = 0; I < 5; ++I)
            if (std::fabs(Out[I] - 2 * std::exp(In[I])) >
                1e-6f * 2 * std::exp(In[I]))
              Errors[T] = "wrong result";
        }
      } catch (const std::exception &E) {
        Errors[T] = E.what();
      }
    });
  for (auto &Th : Threads)
    Th.join();
  for (int T = 0; T < kThreads; ++T)
    EXPECT_EQ(Errors[T], "") << "thread " << T;
}

TEST(CodegenHost, InvalidModuleAndMissingEntry) {
  auto Ctx = std::make_unique<llvm::LLVMContext>();
  auto M = std::make_unique<llvm::Module>("broken", *Ctx);
  configureForHost(*M);
  auto *FT = llvm::FunctionType::get(llvm::Type::getVoidTy(*Ctx), false);
  auto *F =
      llvm::Function::Create(FT, llvm::Function::ExternalLinkage, "k", *M);
  llvm::BasicBlock::Create(*Ctx, "entry", F); // empty block
  try {
    jitForHost(std::move(M), std::move(Ctx), {}, {"k"});
    FAIL() << "expected CompileError";
  } catch (const CompileError &E) {
    EXPECT_EQ(E.kind(), ErrorKind::Internal);
  }
  try {
    HostModule("define void @a() {\n  ret void\n}\n").jit({"b"});
    FAIL() << "expected CompileError";
  } catch (const CompileError &E) {
    EXPECT_EQ(E.kind(), ErrorKind::Internal);
    EXPECT_NE(E.message().find("'b'"), std::string::npos);
  }
}

// ---- timing (printed, not asserted)
// -------------------------------------------

TEST(CodegenTiming, SaxpyPhases) {
  compilePtx(saxpyIR(false), optsFor(9, 0, {"saxpy"})); // warm caches
  for (int I = 0; I < 3; ++I) {
    auto T0 = std::chrono::steady_clock::now();
    NvptxResult R = compilePtx(saxpyIR(false), optsFor(9, 0, {"saxpy"}));
    double Total = std::chrono::duration<double, std::milli>(
                       std::chrono::steady_clock::now() - T0)
                       .count();
    std::printf("  saxpy sm_90 O3: link libdevice %.2f ms, optimize %.2f ms, "
                "emit %.2f ms, total incl. parse %.2f ms, PTX %zu bytes\n",
                R.msLinkLibdevice, R.msOptimize, R.msEmit, Total, R.ptx.size());
  }
  NvptxResult D = compilePtx(divIR(), optsFor(9, 0, {"divk"}));
  std::printf("  div (no libdevice) sm_90 O3: link %.2f ms, optimize %.2f ms, "
              "emit %.2f ms\n",
              D.msLinkLibdevice, D.msOptimize, D.msEmit);

  // TargetMachine: fresh per compile vs per-thread cache.
  constexpr int kN = 50;
  auto T0 = std::chrono::steady_clock::now();
  for (int I = 0; I < kN; ++I)
    createNvptxTargetMachine(9, 0, 3, false);
  auto T1 = std::chrono::steady_clock::now();
  for (int I = 0; I < kN; ++I)
    nvptxTargetMachineForThread(9, 0, 3, false);
  auto T2 = std::chrono::steady_clock::now();
  for (int I = 0; I < kN; ++I)
    createHostTargetMachine(3, false);
  auto T3 = std::chrono::steady_clock::now();
  auto Us = [](auto A, auto B) {
    return std::chrono::duration<double, std::micro>(B - A).count() / kN;
  };
  std::printf("  TargetMachine: NVPTX create %.1f us, cached %.2f us; host "
              "create %.1f us\n",
              Us(T0, T1), Us(T1, T2), Us(T2, T3));

  // Lazy libdevice link vs. parsing all of libdevice.
  std::string Path = findLibdevice().path;
  if (!Path.empty()) {
    auto Buf = llvm::MemoryBuffer::getFile(Path);
    ASSERT_TRUE(bool(Buf));
    llvm::LLVMContext Ctx;
    auto T4 = std::chrono::steady_clock::now();
    auto Full = llvm::parseBitcodeFile((*Buf)->getMemBufferRef(), Ctx);
    auto T5 = std::chrono::steady_clock::now();
    ASSERT_TRUE(bool(Full));
    std::printf("  parsing ALL of libdevice (%zu functions): %.2f ms\n",
                (*Full)->size(),
                std::chrono::duration<double, std::milli>(T5 - T4).count());
  }

  for (int I = 0; I < 3; ++I) {
    auto R = HostModule(kExpTimesTwoIR).jit({"f"});
    std::printf("  host exp*2 loop O3: optimize %.2f ms, emit+link %.2f ms\n",
                R->msOptimize, R->msJit);
  }
}

} // namespace
