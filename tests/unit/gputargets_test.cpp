// The target choice (support/GpuTargets.h): native architectures, the PTX
// fallback for GPUs newer than the tables, the PTX ISA a CUDA release reads,
// and the table against LLVM's NVPTX subtarget list.
#include "codegen/Targets.h"
#include "support/Diagnostics.h"
#include "support/GpuTargets.h"

#include <gtest/gtest.h>

using namespace pcj;

namespace {

GpuToolchain cuda(int Driver, int Linker, int NewestCc = 0) {
  GpuToolchain T;
  T.driverVersion = Driver;
  T.linkerVersion = Linker;
  T.newestCc = NewestCc;
  return T;
}

TEST(GpuTargets, EveryCurrentArchIsNativeWithCuda13) {
  for (int Cc : {75, 80, 86, 87, 88, 89, 90, 100, 103, 110, 120, 121}) {
    GpuTargetChoice C =
        chooseGpuTarget(GpuArch{Cc / 10, Cc % 10, 0}, cuda(13000, 13000));
    EXPECT_FALSE(C.jit) << Cc;
    EXPECT_EQ(C.ptxArch.cc(), Cc);
    EXPECT_EQ(C.describe(), "native sm_" + std::to_string(Cc));
    EXPECT_EQ(C.maxPtxIsa, 90);
  }
}

TEST(GpuTargets, NewerGpuGetsNewestKnownPtx) {
  GpuTargetChoice C = chooseGpuTarget(GpuArch{12, 5, 0}, cuda(13000, 13000));
  EXPECT_TRUE(C.jit);
  EXPECT_EQ(C.ptxArch.name(), "sm_121");
  EXPECT_EQ(C.describe(), "sm_121 PTX JIT-compiled for sm_125");
  EXPECT_EQ(C.keyText(), "sm_121>sm_125 isa90");
  C = chooseGpuTarget(GpuArch{15, 0, 0}, GpuToolchain{});
  EXPECT_EQ(C.ptxArch.name(), "sm_121");
}

TEST(GpuTargets, NewestCcForcesTheFallback) {
  GpuTargetChoice C =
      chooseGpuTarget(GpuArch{9, 0, 0}, cuda(13000, 13000, /*NewestCc=*/80));
  EXPECT_TRUE(C.jit);
  EXPECT_EQ(C.describe(), "sm_80 PTX JIT-compiled for sm_90");
  EXPECT_NE(C.keyText(),
            chooseGpuTarget(GpuArch{9, 0, 0}, cuda(13000, 13000)).keyText());
}

TEST(GpuTargets, OlderDriverLimitsThePtxIsa) {
  // A CUDA 12.8 driver reads PTX ISA 8.7: sm_103 (8.8) and sm_110 (9.0)
  // are not native there even with nvJitLink 13.
  EXPECT_EQ(ptxIsaForCuda(12080), 87);
  EXPECT_EQ(ptxIsaForCuda(12090), 88);
  EXPECT_EQ(ptxIsaForCuda(13000), 90);
  EXPECT_EQ(ptxIsaForCuda(11070), 0);
  GpuTargetChoice C = chooseGpuTarget(GpuArch{12, 0, 0}, cuda(12080, 13000));
  EXPECT_FALSE(C.jit);
  EXPECT_EQ(C.maxPtxIsa, 87);
  C = chooseGpuTarget(GpuArch{11, 0, 0}, cuda(12080, 13000));
  EXPECT_TRUE(C.jit);
  EXPECT_EQ(C.ptxArch.name(), "sm_100"); // nvJitLink 13 dropped sm_101
  C = chooseGpuTarget(GpuArch{10, 3, 0}, cuda(12080, 0));
  EXPECT_EQ(C.describe(), "sm_101 PTX JIT-compiled for sm_103");
}

TEST(GpuTargets, VoltaNeedsCuda12) {
  EXPECT_FALSE(chooseGpuTarget(GpuArch{7, 0, 0}, cuda(12080, 12080)).jit);
  try {
    chooseGpuTarget(GpuArch{7, 0, 0}, cuda(13000, 13000));
    FAIL() << "sm_70 with CUDA 13";
  } catch (const CompileError &E) {
    EXPECT_EQ(E.kind(), ErrorKind::Backend);
    EXPECT_NE(E.message().find("CUDA 12"), std::string::npos) << E.message();
  }
}

TEST(GpuTargets, ArchSpecificOnlyNative) {
  GpuTargetChoice C = chooseGpuTarget(GpuArch{9, 0, 'a'}, cuda(13000, 13000));
  EXPECT_EQ(C.ptxArch.name(), "sm_90a");
  EXPECT_FALSE(C.jit);
  EXPECT_THROW(chooseGpuTarget(GpuArch{12, 5, 'a'}, cuda(13000, 13000)),
               CompileError);
  EXPECT_THROW(chooseGpuTarget(GpuArch{8, 0, 'a'}, cuda(13000, 13000)),
               CompileError);
}

// The table names exactly what this LLVM's NVPTX backend accepts.
TEST(GpuTargets, TableMatchesLlvm) {
  for (int Cc = 70; Cc <= 129; ++Cc)
    for (char Suffix : {char(0), 'a', 'f'}) {
      GpuArch A{Cc / 10, Cc % 10, Suffix};
      if (codegenKnowsArch(A)) {
        EXPECT_TRUE(codegen::nvptxSupportsArch(A.major, A.minor, Suffix))
            << A.name();
      } else if (!Suffix && Cc >= 75) {
        EXPECT_FALSE(codegen::nvptxSupportsArch(A.major, A.minor, Suffix))
            << A.name();
      }
    }
}

} // namespace
