// GPU tests for the runtime: device query, memory, modules (driver PTX JIT
// and nvJitLink cubins), launches with results checked on the host, errors
// (bad PTX log, missing kernel, out of memory, a sticky illegal address).
// Each test is skipped when the process has no usable CUDA driver, so the
// binary also runs on machines without a GPU.
#include "runtime/Device.h"
#include "runtime/Errors.h"
#include "runtime/Launch.h"
#include "runtime/LoadImage.h"
#include "runtime/Memory.h"
#include "runtime/Module.h"
#include "runtime/Stream.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <thread>
#include <vector>

using namespace pcj::rt;

namespace {

// out[i] = a * x[i] + y[i] for i < n (same kernel as
// runtime_nvjitlink_test.cpp).
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

// A module global, a dynamic-shared-memory probe, an empty kernel and a
// store through a null pointer.
const char *const kMiscPtx = R"(
.version 7.8
.target sm_80
.address_size 64

.visible .global .align 4 .u32 counter = 7;
.extern .shared .align 4 .b8 dyn_smem[];

// out[t] = t + 1, round-tripped through shared memory at byte offset `off`.
.visible .entry smem_probe(.param .u64 out, .param .u32 off)
{
    .reg .b32 %r<6>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    ld.param.u32 %r1, [off];
    mov.u32 %r2, %tid.x;
    shl.b32 %r3, %r2, 2;
    add.u32 %r3, %r3, %r1;
    mov.u32 %r4, dyn_smem;
    add.u32 %r4, %r4, %r3;
    st.shared.u32 [%r4], %r2;
    bar.sync 0;
    ld.shared.u32 %r5, [%r4];
    add.u32 %r5, %r5, 1;
    cvta.to.global.u64 %rd2, %rd1;
    mul.wide.u32 %rd3, %r2, 4;
    add.s64 %rd2, %rd2, %rd3;
    st.global.u32 [%rd2], %r5;
    ret;
}

.visible .entry empty()
{
    ret;
}

.visible .entry store_null()
{
    .reg .b64 %rd<2>;
    .reg .b32 %r<2>;
    mov.u64 %rd1, 0;
    mov.u32 %r1, 1;
    st.global.u32 [%rd1], %r1;
    ret;
}
)";

#define REQUIRE_GPU()                                                          \
  do {                                                                         \
    if (!driverAvailable() || deviceCount() == 0)                              \
      GTEST_SKIP() << "no CUDA device: " << driverLoadError();                 \
  } while (0)

// Owns a device buffer.
struct DeviceBuffer {
  explicit DeviceBuffer(size_t Bytes) : Ptr(deviceAlloc(Bytes)) {}
  ~DeviceBuffer() { deviceFree(Ptr); }
  CUdeviceptr Ptr;
};

// Runs saxpy from Fn over N elements and checks every result bit-exactly
// against the host's fma.
void runAndCheckSaxpy(CUfunction Fn, unsigned N) {
  std::vector<float> X(N), Y(N), Out(N, -1.0f);
  for (unsigned I = 0; I < N; ++I) {
    X[I] = 0.5f * float(I) - 3.0f;
    Y[I] = 1.0f / float(I + 1);
  }
  DeviceBuffer DX(N * 4), DY(N * 4), DOut(N * 4);
  copyHostToDevice(DX.Ptr, X.data(), N * 4);
  copyHostToDevice(DY.Ptr, Y.data(), N * 4);
  memsetD8(DOut.Ptr, 0xff, N * 4);
  float A = 2.5f;
  void *Params[] = {&A, &DX.Ptr, &DY.Ptr, &DOut.Ptr, &N};
  launchKernel(Fn, {(N + 255) / 256}, {256}, 0, nullptr, Params);
  synchronize();
  copyDeviceToHost(Out.data(), DOut.Ptr, N * 4);
  int Wrong = 0;
  for (unsigned I = 0; I < N; ++I)
    Wrong += Out[I] != std::fma(A, X[I], Y[I]);
  EXPECT_EQ(Wrong, 0);
  EXPECT_EQ(Out[N - 1], std::fma(A, X[N - 1], Y[N - 1]));
}

} // namespace

TEST(RuntimeGpu, DeviceQuery) {
  REQUIRE_GPU();
  const DeviceInfo &D = deviceInfo(0);
  EXPECT_FALSE(D.Name.empty());
  EXPECT_GE(D.ComputeCapabilityMajor, 7);
  EXPECT_EQ(D.WarpSize, 32);
  EXPECT_EQ(D.MaxThreadsPerBlock, 1024);
  EXPECT_GT(D.MultiprocessorCount, 0);
  EXPECT_GT(D.TotalMemory, size_t(1) << 30);
  LaunchLimits L = D.launchLimits();
  // The CPU executor's limits are exactly a current GPU's (bar opt-in).
  EXPECT_EQ(L.MaxThreadsPerBlock, kCpuLaunchLimits.MaxThreadsPerBlock);
  for (int I = 0; I < 3; ++I) {
    EXPECT_EQ(L.MaxBlockDim[I], kCpuLaunchLimits.MaxBlockDim[I]);
    EXPECT_EQ(L.MaxGridDim[I], kCpuLaunchLimits.MaxGridDim[I]);
  }
  EXPECT_EQ(L.MaxSharedBytesPerBlock, kCpuLaunchLimits.MaxSharedBytesPerBlock);
  EXPECT_GE(L.MaxSharedBytesPerBlockOptin, L.MaxSharedBytesPerBlock);
  EXPECT_EQ(&deviceInfo(0), &D) << "cached";
  EXPECT_THROW(deviceInfo(deviceCount()), std::out_of_range);
  std::printf("[ device   ] %s sm_%d%d, %d SMs, %zu MiB, opt-in shared %zu, "
              "driver %d\n",
              D.Name.c_str(), D.ComputeCapabilityMajor,
              D.ComputeCapabilityMinor, D.MultiprocessorCount,
              D.TotalMemory >> 20, L.MaxSharedBytesPerBlockOptin,
              CudaDriver::process().version());
}

TEST(RuntimeGpu, ContextIsCurrentAndShared) {
  REQUIRE_GPU();
  Context &C = currentContext();
  EXPECT_EQ(&C, &primaryContext(0));
  EXPECT_EQ(&currentContext(), &C);
  CUcontext Cur = nullptr;
  check(api().cuCtxGetCurrent(&Cur), "cuCtxGetCurrent");
  EXPECT_EQ(Cur, C.handle());
  EXPECT_EQ(currentDevice(), 0);
  EXPECT_THROW(setCurrentDevice(deviceCount()), std::out_of_range);
}

TEST(RuntimeGpu, MemoryRoundTrip) {
  REQUIRE_GPU();
  const size_t N = 1 << 18;
  std::vector<uint32_t> Host(N), Back(N, 0);
  for (size_t I = 0; I < N; ++I)
    Host[I] = uint32_t(I * 2654435761u);
  DeviceBuffer A(N * 4), B(N * 4);
  EXPECT_NE(A.Ptr, 0u);
  copyHostToDevice(A.Ptr, Host.data(), N * 4);
  copyDeviceToDevice(B.Ptr, A.Ptr, N * 4);
  memsetD8(B.Ptr + 16, 0xab, 8); // elements 4 and 5
  copyDeviceToHost(Back.data(), B.Ptr, N * 4);
  Host[4] = Host[5] = 0xabababab;
  EXPECT_EQ(Back, Host);
  MemInfo M = memInfo();
  EXPECT_GT(M.Total, M.Free);
  EXPECT_EQ(M.Total >> 20, deviceInfo(0).TotalMemory >> 20);
}

TEST(RuntimeGpu, PinnedAsyncCopies) {
  REQUIRE_GPU();
  const size_t N = 1 << 16;
  auto *Src = static_cast<int32_t *>(pinnedAlloc(N * 4));
  auto *Dst = static_cast<int32_t *>(pinnedAlloc(N * 4));
  ASSERT_NE(Src, nullptr);
  for (size_t I = 0; I < N; ++I) {
    Src[I] = int32_t(I) - 7;
    Dst[I] = 0;
  }
  {
    DeviceBuffer D(N * 4);
    Stream S;
    copyHostToDeviceAsync(D.Ptr, Src, N * 4, S.handle());
    copyDeviceToHostAsync(Dst, D.Ptr, N * 4, S.handle());
    S.synchronize();
  }
  int Wrong = 0;
  for (size_t I = 0; I < N; ++I)
    Wrong += Dst[I] != int32_t(I) - 7;
  EXPECT_EQ(Wrong, 0);
  pinnedFree(Src);
  pinnedFree(Dst);
}

TEST(RuntimeGpu, OutOfMemoryFlushesOnceThenThrows) {
  REQUIRE_GPU();
  static std::atomic<int> Flushes{0};
  setFlushDeferredFrees([](void *) { ++Flushes; }, nullptr);
  try {
    deviceAlloc(size_t(1) << 50); // 1 PiB
    ADD_FAILURE() << "1 PiB allocation succeeded";
  } catch (const DriverError &E) {
    EXPECT_TRUE(E.isOutOfMemory()) << E.what();
    EXPECT_FALSE(E.isSticky());
    EXPECT_EQ(E.call(), "cuMemAlloc");
    EXPECT_NE(E.detail().find("requested 1125899906842624 bytes"),
              std::string::npos)
        << E.detail();
  }
  setFlushDeferredFrees(nullptr, nullptr);
  EXPECT_EQ(Flushes.load(), 1);
  // The context is fine afterwards.
  DeviceBuffer Ok(4096);
  EXPECT_NE(Ok.Ptr, 0u);
}

TEST(RuntimeGpu, SaxpyThroughDriverJit) {
  REQUIRE_GPU();
  auto M = Module::loadPtx(kSaxpyPtx);
  EXPECT_EQ(M->device(), 0);
  runAndCheckSaxpy(M->function("saxpy"), 1000);
  runAndCheckSaxpy(M->function("saxpy"), 1 << 20);
}

TEST(RuntimeGpu, SaxpyThroughNvJitLinkCubin) {
  REQUIRE_GPU();
  const DeviceInfo &D = deviceInfo(0);
  LoadableImage Img = ptxToLoadable(kSaxpyPtx, D.ComputeCapabilityMajor,
                                    D.ComputeCapabilityMinor);
  if (!Img.isCubin())
    GTEST_SKIP() << "no nvJitLink: " << Img.FallbackReason;
  auto M = loadModule(Img);
  CUfunction F = M->function("saxpy");
  runAndCheckSaxpy(F, 4097);
  int Regs = 0;
  check(api().cuFuncGetAttribute(&Regs, CU_FUNC_ATTRIBUTE_NUM_REGS, F),
        "cuFuncGetAttribute");
  EXPECT_GT(Regs, 0);
}

TEST(RuntimeGpu, BadPtxReportsTheJitLog) {
  REQUIRE_GPU();
  std::string Bad = kSaxpyPtx;
  Bad.replace(Bad.find("fma.rn.f32"), 10, "frobnicate.f32");
  try {
    Module::loadPtx(Bad);
    FAIL() << "bad PTX loaded";
  } catch (const DriverError &E) {
    EXPECT_EQ(E.code(), CUDA_ERROR_INVALID_PTX) << E.what();
    EXPECT_EQ(E.call(), "cuModuleLoadDataEx");
    EXPECT_NE(E.detail().find("frobnicate"), std::string::npos) << E.detail();
    EXPECT_FALSE(E.isSticky());
  }
}

TEST(RuntimeGpu, MissingKernelAndGlobal) {
  REQUIRE_GPU();
  auto M = Module::loadPtx(kMiscPtx);
  try {
    M->function("no_such_kernel");
    FAIL();
  } catch (const DriverError &E) {
    EXPECT_EQ(E.code(), CUDA_ERROR_NOT_FOUND);
    EXPECT_NE(std::string(E.what()).find("'no_such_kernel'"),
              std::string::npos);
  }
  Module::Global G = M->global("counter");
  EXPECT_EQ(G.Bytes, 4u);
  uint32_t V = 0;
  copyDeviceToHost(&V, G.Ptr, 4);
  EXPECT_EQ(V, 7u);
  EXPECT_THROW(M->global("no_such_global"), DriverError);
}

TEST(RuntimeGpu, LaunchConfigErrorsComeBeforeTheLaunch) {
  REQUIRE_GPU();
  auto M = Module::loadPtx(kMiscPtx);
  CUfunction Empty = M->function("empty");
  try {
    launchKernel(Empty, {1}, {2048}, 0, nullptr, nullptr);
    FAIL();
  } catch (const LaunchConfigError &E) {
    EXPECT_STREQ(E.what(), "block (2048, 1, 1) has 2048 threads; the device "
                           "allows at most 1024 per block");
  }
  size_t TooMuch = currentContext().limits().MaxSharedBytesPerBlockOptin + 1;
  EXPECT_THROW(
      launchKernel(Empty, {1}, {32}, unsigned(TooMuch), nullptr, nullptr),
      LaunchConfigError);
  launchKernel(Empty, {1}, {32}, 0, nullptr, nullptr);
  EXPECT_NO_THROW(synchronize());
}

TEST(RuntimeGpu, DynamicSharedMemoryAbove48KiB) {
  REQUIRE_GPU();
  auto M = Module::loadPtx(kMiscPtx);
  CUfunction Probe = M->function("smem_probe");
  const unsigned Threads = 32;
  for (unsigned Shared : {4096u, 100u * 1024u}) {
    if (Shared > currentContext().limits().MaxSharedBytesPerBlockOptin)
      continue;
    DeviceBuffer Out(Threads * 4);
    unsigned Off = Shared - Threads * 4; // the last bytes of the window
    void *Params[] = {&Out.Ptr, &Off};
    launchKernel(Probe, {1}, {Threads}, Shared, nullptr, Params);
    synchronize();
    std::vector<uint32_t> Back(Threads);
    copyDeviceToHost(Back.data(), Out.Ptr, Threads * 4);
    for (unsigned T = 0; T < Threads; ++T)
      EXPECT_EQ(Back[T], T + 1) << "shared " << Shared;
  }
}

TEST(RuntimeGpu, CooperativeLaunch) {
  REQUIRE_GPU();
  if (!deviceInfo(0).CooperativeLaunch)
    GTEST_SKIP() << "no cooperative launch";
  auto M = Module::loadPtx(kSaxpyPtx);
  CUfunction F = M->function("saxpy");
  unsigned N = 256 * 4;
  std::vector<float> X(N, 2.0f), Y(N, 1.0f), Out(N);
  DeviceBuffer DX(N * 4), DY(N * 4), DOut(N * 4);
  copyHostToDevice(DX.Ptr, X.data(), N * 4);
  copyHostToDevice(DY.Ptr, Y.data(), N * 4);
  float A = 3.0f;
  void *Params[] = {&A, &DX.Ptr, &DY.Ptr, &DOut.Ptr, &N};
  launchCooperativeKernel(F, {4}, {256}, 0, nullptr, Params);
  synchronize();
  copyDeviceToHost(Out.data(), DOut.Ptr, N * 4);
  EXPECT_EQ(Out, std::vector<float>(N, 7.0f));
}

TEST(RuntimeGpu, EventsTimeWork) {
  REQUIRE_GPU();
  auto M = Module::loadPtx(kMiscPtx);
  CUfunction Empty = M->function("empty");
  Event Start, End;
  Start.record();
  for (int I = 0; I < 100; ++I)
    launchKernel(Empty, {1}, {32}, 0, nullptr, nullptr);
  End.record();
  End.synchronize();
  float Ms = elapsedMs(Start, End);
  EXPECT_GT(Ms, 0.0f);
  EXPECT_LT(Ms, 1000.0f);
}

TEST(RuntimeGpu, OtherThreadsGetTheContext) {
  REQUIRE_GPU();
  auto M = Module::loadPtx(kSaxpyPtx);
  CUfunction F = M->function("saxpy");
  std::atomic<int> Ok{0};
  std::vector<std::thread> Threads;
  for (int T = 0; T < 4; ++T)
    Threads.emplace_back([&, T] {
      unsigned N = 1000 + T;
      runAndCheckSaxpy(F, N);
      ++Ok;
    });
  for (auto &Th : Threads)
    Th.join();
  EXPECT_EQ(Ok.load(), 4);
}

// The per-launch overhead of launchKernel (validation + driver call); the
// C floor on an H200 is ~3.2 us (benchmarks/launch_floor.c).
TEST(RuntimeGpu, LaunchOverhead) {
  REQUIRE_GPU();
  auto M = Module::loadPtx(kSaxpyPtx);
  CUfunction F = M->function("saxpy");
  DeviceBuffer X(256 * 4), Y(256 * 4), Out(256 * 4);
  float A = 1.0f;
  unsigned N = 256;
  void *Params[] = {&A, &X.Ptr, &Y.Ptr, &Out.Ptr, &N};
  const int Launches = 10000;
  std::vector<double> Us;
  for (int Rep = 0; Rep < 5; ++Rep) {
    synchronize();
    auto T0 = std::chrono::steady_clock::now();
    for (int I = 0; I < Launches; ++I)
      launchKernel(F, {1}, {256}, 0, nullptr, Params);
    auto T1 = std::chrono::steady_clock::now();
    Us.push_back(std::chrono::duration<double, std::micro>(T1 - T0).count() /
                 Launches);
  }
  synchronize();
  std::sort(Us.begin(), Us.end());
  std::printf("[ launch   ] launchKernel saxpy: %.2f us/launch (median of 5 x "
              "%d)\n",
              Us[2], Launches);
  EXPECT_LT(Us[2], 50.0);
}

// An illegal address is sticky: the context is dead for the whole process,
// so this runs in a child process.
TEST(RuntimeGpuDeathTest, IllegalAddressIsSticky) {
  REQUIRE_GPU();
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        int Failures = 0;
        auto M = Module::loadPtx(kMiscPtx);
        launchKernel(M->function("store_null"), {1}, {1}, 0, nullptr, nullptr);
        try {
          synchronize();
          Failures += 1;
        } catch (const DriverError &E) {
          Failures += E.isSticky() ? 0 : 1;
          Failures += E.code() == CUDA_ERROR_ILLEGAL_ADDRESS ? 0 : 1;
          Failures += E.name() == "CUDA_ERROR_ILLEGAL_ADDRESS" ? 0 : 1;
          Failures += E.text().empty() ? 1 : 0; // the driver's own text
        }
        try {
          deviceAlloc(16);
          Failures += 1;
        } catch (const DriverError &E) {
          Failures += E.isSticky() ? 0 : 1;
        }
        std::_Exit(Failures);
      },
      ::testing::ExitedWithCode(0), "");
}
