// Tests for NvJitLink and Compile without a GPU: a hand-written PTX saxpy is
// linked into real cubins for sm_80 and sm_90 (checked as CUDA ELF files of
// the right architecture); bad PTX raises LinkError carrying ptxas's log;
// a missing nvJitLink (bogus override) makes ptxToLoadable fall back to
// handing the PTX to the driver JIT.
#include "runtime/LoadImage.h"
#include "runtime/NvJitLink.h"
#include "runtime/Nvrtc.h"

#include <gtest/gtest.h>

#include "support/ScopedEnv.h"
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <unistd.h>

using namespace pcj::rt;

namespace {

using pcj::test::ScopedEnv;

// out[i] = a * x[i] + y[i] for i < n.
const char *const kSaxpyPtx = R"(
.version 7.8
.target sm_80
.address_size 64

.visible .entry saxpy(
    .param .f32 saxpy_param_0,
    .param .u64 saxpy_param_1,
    .param .u64 saxpy_param_2,
    .param .u64 saxpy_param_3,
    .param .u32 saxpy_param_4
)
{
    .reg .pred %p<2>;
    .reg .f32 %f<5>;
    .reg .b32 %r<6>;
    .reg .b64 %rd<11>;

    ld.param.f32 %f1, [saxpy_param_0];
    ld.param.u64 %rd1, [saxpy_param_1];
    ld.param.u64 %rd2, [saxpy_param_2];
    ld.param.u64 %rd3, [saxpy_param_3];
    ld.param.u32 %r5, [saxpy_param_4];
    mov.u32 %r1, %ctaid.x;
    mov.u32 %r2, %ntid.x;
    mov.u32 %r3, %tid.x;
    mad.lo.s32 %r4, %r1, %r2, %r3;
    setp.ge.u32 %p1, %r4, %r5;
    @%p1 bra DONE;
    cvta.to.global.u64 %rd4, %rd1;
    cvta.to.global.u64 %rd5, %rd2;
    cvta.to.global.u64 %rd6, %rd3;
    mul.wide.u32 %rd7, %r4, 4;
    add.s64 %rd8, %rd4, %rd7;
    ld.global.f32 %f2, [%rd8];
    add.s64 %rd9, %rd5, %rd7;
    ld.global.f32 %f3, [%rd9];
    fma.rn.f32 %f4, %f1, %f2, %f3;
    add.s64 %rd10, %rd6, %rd7;
    st.global.f32 [%rd10], %f4;
DONE:
    ret;
}
)";

std::string cudaHome() {
  const char *H = std::getenv("CUDA_HOME");
  return H && *H ? H : "/usr/local/cuda";
}

bool toolkitHasNvJitLink() {
  return access((cudaHome() + "/lib64/libnvJitLink.so.13").c_str(), R_OK) == 0;
}

// The process-wide nvJitLink; must be found whenever the toolkit has one.
const NvJitLink *linker() {
  const NvJitLink &L = NvJitLink::process();
  if (L.available())
    return &L;
  EXPECT_FALSE(toolkitHasNvJitLink())
      << "the toolkit has nvJitLink but the search missed it:\n"
      << L.loadError();
  return nullptr;
}

template <typename T> T readAt(const std::string &S, size_t Off) {
  T V;
  std::memcpy(&V, S.data() + Off, sizeof(T));
  return V;
}

// Checks Cubin is a 64-bit little-endian CUDA ELF for sm_<Arch>.
void expectCudaElf(const std::string &Cubin, unsigned Arch) {
  ASSERT_GE(Cubin.size(), 64u);
  EXPECT_EQ(Cubin.substr(0, 4), std::string("\x7f"
                                            "ELF",
                                            4));
  EXPECT_EQ(Cubin[4], 2) << "ELFCLASS64";
  EXPECT_EQ(Cubin[5], 1) << "little endian";
  EXPECT_EQ(readAt<uint16_t>(Cubin, 18), 190) << "e_machine EM_CUDA";
  // CUDA ELF ABI version 8+ keeps the SM number in e_flags bits 8..15.
  uint32_t Flags = readAt<uint32_t>(Cubin, 48);
  EXPECT_EQ((Flags >> 8) & 0xff, Arch) << std::hex << "e_flags 0x" << Flags;
  // The kernel's symbol is in the string table.
  EXPECT_NE(Cubin.find(std::string("saxpy\0", 6)), std::string::npos);
}

} // namespace

TEST(RuntimeNvJitLink, LinksSaxpyForSm80AndSm90) {
  const NvJitLink *L = linker();
  if (!L)
    GTEST_SKIP() << "no nvJitLink on this machine";
  EXPECT_GE(L->versionMajor(), 12u);
  std::string Info;
  std::string Cubin80 = L->linkPtxToCubin(kSaxpyPtx, 8, 0, &Info);
  expectCudaElf(Cubin80, 80);
  std::string Cubin90 = L->linkPtxToCubin(kSaxpyPtx, 9, 0);
  expectCudaElf(Cubin90, 90);
  EXPECT_NE(Cubin80, Cubin90);
  // Deterministic: the same input links to the same bytes (cache keys).
  EXPECT_EQ(L->linkPtxToCubin(kSaxpyPtx, 9, 0), Cubin90);
}

TEST(RuntimeNvJitLink, LineInfoChangesTheCubin) {
  const NvJitLink *L = linker();
  if (!L)
    GTEST_SKIP() << "no nvJitLink on this machine";
  LinkOptions WithLines;
  WithLines.LineInfo = true;
  std::string Plain = L->linkPtxToCubin(kSaxpyPtx, 9, 0);
  std::string Lines = L->linkPtxToCubin(kSaxpyPtx, 9, 0, nullptr, WithLines);
  expectCudaElf(Lines, 90);
  EXPECT_NE(Plain, Lines);
}

// debug=True's PTX (`.target ..., debug`): ptxas refuses -O3 on it
// ("Optimized debugging not supported"), so it links with -g (the link
// itself: tests/python/test_debuginfo.py, which needs DWARF sections).
TEST(RuntimeNvJitLink, PtxWithDebugInfoIsRecognized) {
  std::string Debug = kSaxpyPtx;
  Debug.replace(Debug.find(".target sm_80"), 13, ".target sm_80, debug");
  EXPECT_TRUE(ptxHasDebugInfo(Debug));
  EXPECT_FALSE(ptxHasDebugInfo(kSaxpyPtx));
  EXPECT_FALSE(ptxHasDebugInfo(".version 7.8\n.target sm_90 // debug\n"));
  EXPECT_FALSE(ptxHasDebugInfo(""));
}

TEST(RuntimeNvJitLink, BadPtxRaisesLinkErrorWithLog) {
  const NvJitLink *L = linker();
  if (!L)
    GTEST_SKIP() << "no nvJitLink on this machine";
  std::string Bad = kSaxpyPtx;
  size_t At = Bad.find("fma.rn.f32");
  ASSERT_NE(At, std::string::npos);
  Bad.replace(At, 10, "frobnicate.f32");
  // ptxas reports the PTX line of the bad instruction.
  size_t Line = std::count(Bad.begin(), Bad.begin() + At, '\n') + 1;
  try {
    L->linkPtxToCubin(Bad, 9, 0);
    FAIL() << "bad PTX linked";
  } catch (const LinkError &E) {
    EXPECT_EQ(E.code(), 4) << "NVJITLINK_ERROR_PTX_COMPILE";
    EXPECT_NE(E.log().find("frobnicate"), std::string::npos) << E.log();
    EXPECT_NE(E.log().find("line " + std::to_string(Line) + ";"),
              std::string::npos)
        << E.log();
    std::string What = E.what();
    EXPECT_EQ(What.rfind("nvJitLink failed to link PTX for sm_90: ", 0), 0u)
        << What;
    EXPECT_NE(What.find("returned NVJITLINK_ERROR_PTX_COMPILE\n"),
              std::string::npos)
        << What;
    EXPECT_NE(What.find(E.log()), std::string::npos);
  }
}

TEST(RuntimeNvJitLink, UnknownArchRaisesLinkError) {
  const NvJitLink *L = linker();
  if (!L)
    GTEST_SKIP() << "no nvJitLink on this machine";
  try {
    L->linkPtxToCubin(kSaxpyPtx, 1, 7);
    FAIL() << "sm_17 linked";
  } catch (const LinkError &E) {
    EXPECT_GT(E.code(), 0);
    EXPECT_NE(std::string(E.what()).find("sm_17"), std::string::npos);
  }
}

TEST(RuntimeNvJitLink, PtxToLoadableUsesNvJitLinkWhenPresent) {
  const NvJitLink *L = linker();
  if (!L)
    GTEST_SKIP() << "no nvJitLink on this machine";
  LoadableImage Img = ptxToLoadable(*L, kSaxpyPtx, 9, 0);
  EXPECT_EQ(Img.Path, LoadPath::NvJitLinkCubin);
  EXPECT_TRUE(Img.isCubin());
  EXPECT_STREQ(loadPathName(Img.Path), "nvjitlink-cubin");
  EXPECT_EQ(Img.CcMajor, 9);
  EXPECT_EQ(Img.FallbackReason, "");
  expectCudaElf(Img.Bytes, 90);
  // Bad PTX is an error, not a silent fallback to the driver JIT.
  EXPECT_THROW(ptxToLoadable(*L, ".version 7.8\n.target sm_80\ngarbage", 9, 0),
               LinkError);
}

TEST(RuntimeNvJitLink, MissingLibraryFallsBackToDriverJit) {
  NvJitLink Bogus({"/bogus/dir/libnvJitLink.so.13", "libnvJitLink-nope.so"});
  EXPECT_FALSE(Bogus.available());
  EXPECT_NE(Bogus.loadError().find("/bogus/dir/libnvJitLink.so.13: no such "
                                   "file"),
            std::string::npos)
      << Bogus.loadError();
  EXPECT_NE(Bogus.loadError().find("libnvJitLink-nope.so: "),
            std::string::npos);
  EXPECT_NE(Bogus.loadError().find("PYCUDA_JIT_NVJITLINK"), std::string::npos);

  LoadableImage Img = ptxToLoadable(Bogus, kSaxpyPtx, 9, 0);
  EXPECT_EQ(Img.Path, LoadPath::DriverJitPtx);
  EXPECT_FALSE(Img.isCubin());
  EXPECT_STREQ(loadPathName(Img.Path), "driver-jit-ptx");
  EXPECT_EQ(Img.Bytes, kSaxpyPtx);
  EXPECT_EQ(Img.FallbackReason, Bogus.loadError());

  try {
    Bogus.linkPtxToCubin(kSaxpyPtx, 9, 0);
    FAIL();
  } catch (const LinkError &E) {
    EXPECT_EQ(E.code(), -1);
  }
}

TEST(RuntimeNvJitLink, LibraryWithoutEntryPointsIsSkipped) {
  NvJitLink L({"libm.so.6"});
  EXPECT_FALSE(L.available());
  EXPECT_NE(L.loadError().find("libm.so.6: lacks nvJitLinkCreate"),
            std::string::npos)
      << L.loadError();
}

TEST(RuntimeNvJitLink, SearchListFollowsTheEnvironment) {
  {
    ScopedEnv Override("PYCUDA_JIT_NVJITLINK", "/opt/jl/libnvJitLink.so.13");
    EXPECT_EQ(NvJitLink::defaultCandidates(),
              std::vector<std::string>{"/opt/jl/libnvJitLink.so.13"});
  }
  {
    ScopedEnv Override("PYCUDA_JIT_NVJITLINK", "/tmp"); // a directory
    EXPECT_EQ(NvJitLink::defaultCandidates(),
              (std::vector<std::string>{"/tmp/libnvJitLink.so.13",
                                        "/tmp/libnvJitLink.so"}));
  }
  ScopedEnv NoOverride("PYCUDA_JIT_NVJITLINK", nullptr);
  ScopedEnv Home("CUDA_HOME", "/opt/cuda-x");
  ScopedEnv Path("CUDA_PATH", nullptr);
  std::vector<std::string> C = NvJitLink::defaultCandidates();
  ASSERT_GE(C.size(), 6u);
  EXPECT_EQ(C[0], "/opt/cuda-x/lib64/libnvJitLink.so.13");
  EXPECT_EQ(C[1], "/opt/cuda-x/lib64/libnvJitLink.so");
  auto Pos = [&](const std::string &S) {
    return std::find(C.begin(), C.end(), S) - C.begin();
  };
  long Soname = Pos("libnvJitLink.so.13");
  long Usr = Pos("/usr/local/cuda/lib64/libnvJitLink.so.13");
  ASSERT_LT(Soname, long(C.size()));
  ASSERT_LT(Usr, long(C.size()));
  EXPECT_LT(Soname, Usr);
  EXPECT_EQ(C.back(), "libnvJitLink.so");
  // pip's layout beside this binary's directory is searched too.
  bool Pip = false;
  for (const std::string &S : C)
    Pip |=
        S.find("/../nvidia/cu13/lib/libnvJitLink.so.13") != std::string::npos;
  EXPECT_TRUE(Pip);
}

// The env override, seen by the process-wide library in a fresh child
// process: a bogus path disables nvJitLink and PTX goes to the driver JIT.
TEST(RuntimeNvJitLinkDeathTest, BogusOverrideDisablesNvJitLink) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        setenv("PYCUDA_JIT_NVJITLINK", "/bogus/libnvJitLink.so.13", 1);
        int Failures = nvJitLinkAvailable() ? 1 : 0;
        Failures += nvJitLinkLoadError().find("/bogus/libnvJitLink.so.13") ==
                            std::string::npos
                        ? 1
                        : 0;
        LoadableImage Img = ptxToLoadable(kSaxpyPtx, 9, 0);
        Failures += Img.Path == LoadPath::DriverJitPtx ? 0 : 1;
        Failures += Img.Bytes == kSaxpyPtx ? 0 : 1;
        try {
          linkPtxToCubin(kSaxpyPtx, 9, 0);
          Failures += 1;
        } catch (const LinkError &E) {
          Failures += E.code() == -1 ? 0 : 1;
        }
        std::exit(Failures);
      },
      ::testing::ExitedWithCode(0), "");
}

// Foreign code (LinkOptions::Inputs): a kernel calling an extern function,
// linked with CUDA C++ that NVRTC compiles for the target.
const char *const kCallsTwicePtx = R"(
.version 7.8
.target sm_80
.address_size 64
.extern .func (.param .b32 func_retval0) twice(.param .b32 twice_param_0);
.visible .entry k(.param .u64 k_param_0)
{
    .reg .b32 %r<3>;
    .reg .b64 %rd<3>;
    ld.param.u64 %rd1, [k_param_0];
    cvta.to.global.u64 %rd2, %rd1;
    mov.u32 %r1, 21;
    {
    .param .b32 param0;
    st.param.b32 [param0+0], %r1;
    .param .b32 retval0;
    call.uni (retval0), twice, (param0);
    ld.param.b32 %r2, [retval0+0];
    }
    st.global.u32 [%rd2], %r2;
    ret;
}
)";

namespace foreign {
bool nvrtcMissing(const LinkError &E) {
  return std::string(E.what()).find("NVRTC not found") != std::string::npos;
}
} // namespace foreign

TEST(RuntimeNvJitLink, LinksCudaSourceCompiledByNvrtc) {
  const NvJitLink *L = linker();
  if (!L)
    GTEST_SKIP() << "no nvJitLink on this machine";
  LinkOptions O;
  O.Inputs.push_back(
      {"cu", "twice.cu",
       "extern \"C\" __device__ int twice(int a) { return 2 * a; }"});
  try {
    LoadableImage Img = ptxToLoadable(*L, kCallsTwicePtx, 9, 0, O);
    EXPECT_TRUE(Img.isCubin());
    ASSERT_GE(Img.Bytes.size(), 4u);
    EXPECT_EQ(Img.Bytes.substr(0, 4), std::string("\x7f"
                                                  "ELF"));
  } catch (const NvrtcError &E) {
    if (foreign::nvrtcMissing(E))
      GTEST_SKIP() << E.what();
    throw;
  }
  // Without the definition: a ForeignLinkError naming the symbol.
  LinkOptions Wrong;
  Wrong.Inputs.push_back({"ptx", "empty.ptx",
                          ".version 7.8\n.target sm_80\n"
                          ".address_size 64\n"});
  try {
    ptxToLoadable(*L, kCallsTwicePtx, 9, 0, Wrong);
    FAIL() << "an undefined function linked";
  } catch (const ForeignLinkError &E) {
    EXPECT_NE(E.log().find("twice"), std::string::npos) << E.log();
    EXPECT_NE(std::string(E.what()).find("(linking with empty.ptx)"),
              std::string::npos)
        << E.what();
  }
}

TEST(RuntimeNvJitLink, BadCudaSourceRaisesNvrtcErrorWithLog) {
  const NvJitLink *L = linker();
  if (!L)
    GTEST_SKIP() << "no nvJitLink on this machine";
  LinkOptions O;
  O.Inputs.push_back({"cu", "bad.cu",
                      "extern \"C\" __device__ int twice(int a)\n"
                      "{ return a +; }\n"});
  try {
    ptxToLoadable(*L, kCallsTwicePtx, 9, 0, O);
    FAIL() << "bad CUDA C++ compiled";
  } catch (const NvrtcError &E) {
    if (foreign::nvrtcMissing(E))
      GTEST_SKIP() << E.what();
    EXPECT_NE(E.log().find("bad.cu(2)"), std::string::npos) << E.log();
    EXPECT_NE(std::string(E.what()).find(
                  "NVRTC failed to compile 'bad.cu' for compute_90"),
              std::string::npos)
        << E.what();
  }
}
