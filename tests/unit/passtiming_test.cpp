// Tests for codegen's PassTimer (PYCUDA_JIT_TIMING=passes): self times per
// pass and analysis that partition the pipeline's run, and the report line.
#include "codegen/PassTiming.h"

#include "llvm/Analysis/CGSCCPassManager.h"
#include "llvm/Analysis/LoopAnalysisManager.h"
#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassInstrumentation.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/SourceMgr.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "support/ScopedEnv.h"

using namespace pcj::codegen::detail;

namespace {

// A loop with something for InstCombine, SimplifyCFG and the loop passes.
const char *LoopIR = R"(
define i64 @sum(ptr %a, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %s = phi i64 [ 0, %entry ], [ %s.next, %loop ]
  %p = getelementptr i64, ptr %a, i64 %i
  %v = load i64, ptr %p
  %w = mul i64 %v, 2
  %x = add i64 %w, 0
  %s.next = add i64 %s, %x
  %i.next = add i64 %i, 1
  %c = icmp slt i64 %i.next, %n
  br i1 %c, label %loop, label %exit
exit:
  ret i64 %s.next
}
)";

// Runs the O2 pipeline over LoopIR with Timer's callbacks; the run's wall
// milliseconds.
double runTimed(PassTimer &Timer) {
  llvm::LLVMContext Ctx;
  llvm::SMDiagnostic Err;
  std::unique_ptr<llvm::Module> M = llvm::parseAssemblyString(LoopIR, Err, Ctx);
  EXPECT_TRUE(M);
  llvm::PassInstrumentationCallbacks PIC;
  Timer.registerCallbacks(PIC);
  llvm::LoopAnalysisManager LAM;
  llvm::FunctionAnalysisManager FAM;
  llvm::CGSCCAnalysisManager CGAM;
  llvm::ModuleAnalysisManager MAM;
  llvm::PassBuilder PB(nullptr, llvm::PipelineTuningOptions(), std::nullopt,
                       &PIC);
  PB.registerModuleAnalyses(MAM);
  PB.registerCGSCCAnalyses(CGAM);
  PB.registerFunctionAnalyses(FAM);
  PB.registerLoopAnalyses(LAM);
  PB.crossRegisterProxies(LAM, FAM, CGAM, MAM);
  llvm::ModulePassManager MPM =
      PB.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O2);
  auto T0 = Clock::now();
  MPM.run(*M, MAM);
  return msSince(T0);
}

TEST(PassTiming, SelfTimesPartitionTheRun) {
  PassTimer Timer;
  double Wall = runTimed(Timer);
  const auto &Self = Timer.selfTimes();
  ASSERT_TRUE(Self.count("InstCombinePass"));
  ASSERT_TRUE(Self.count("SimplifyCFGPass"));
  bool SawAnalysis = false;
  double Sum = 0;
  for (const auto &[Name, Ms] : Self) {
    EXPECT_GE(Ms, 0.0) << Name;
    SawAnalysis |= Name.rfind("analysis:", 0) == 0;
    EXPECT_EQ(Name.find(' '), std::string::npos) << Name;
    Sum += Ms;
  }
  EXPECT_TRUE(SawAnalysis);
  // Self times never count a nested pass twice: together they are at most
  // the run's wall time (charging each pass its nested passes' time too
  // would count the innermost ones once per enclosing adaptor and manager).
  EXPECT_LE(Sum, Wall * 1.001 + 0.01);
  EXPECT_GT(Sum, 0.0);
}

TEST(PassTiming, ReportNamesTheCostliestAndSumsTheRest) {
  PassTimer Timer;
  runTimed(Timer);
  size_t Names = Timer.selfTimes().size();
  ASSERT_GT(Names, 3u);
  std::string Line = Timer.report("k0", 3);
  EXPECT_EQ(Line.rfind("pycuda_jit passes [k0]: total=", 0), 0u) << Line;
  EXPECT_NE(Line.find(" (+" + std::to_string(Names - 3) + " more "),
            std::string::npos)
      << Line;
  // Without a limit: every name of at least 0.005 ms, the others counted.
  size_t Tiny = 0;
  for (const auto &[Name, Ms] : Timer.selfTimes())
    Tiny += Ms < 0.005;
  std::string All = Timer.report("k0");
  EXPECT_EQ(size_t(std::count(All.begin(), All.end(), '=')), 1 + Names - Tiny)
      << All;
  if (Tiny)
    EXPECT_NE(All.find(" (+" + std::to_string(Tiny) + " more "),
              std::string::npos)
        << All;
  else
    EXPECT_EQ(All.find(" more "), std::string::npos) << All;
  EXPECT_NE(All.find(" InstCombinePass="), std::string::npos) << All;
  // The total and exactly three "name=ms" items.
  EXPECT_EQ(std::count(Line.begin(), Line.end(), '='), 4) << Line;
}

TEST(PassTiming, RequestedOnlyByTimingPasses) {
  {
    pcj::test::ScopedEnv E("PYCUDA_JIT_TIMING", "passes");
    EXPECT_TRUE(passTimingRequested());
  }
  {
    pcj::test::ScopedEnv E("PYCUDA_JIT_TIMING", "1");
    EXPECT_FALSE(passTimingRequested());
  }
  {
    pcj::test::ScopedEnv E("PYCUDA_JIT_TIMING", nullptr);
    EXPECT_FALSE(passTimingRequested());
  }
}

} // namespace
