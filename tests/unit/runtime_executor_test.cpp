// The executors behind runtime/Executor.h: the CPU executor's device
// memory, devices and context generations; the same operations on a GPU
// when there is one (skipped otherwise).
#include "runtime/CudaDriver.h"
#include "runtime/Device.h"
#include "runtime/Errors.h"
#include "runtime/Executor.h"
#include "runtime/LoadImage.h"
#include "runtime/cpu/GridRunner.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <thread>
#include <vector>

using namespace pcj;
using namespace pcj::rt;

namespace {

std::vector<unsigned char> randomBytes(size_t N, unsigned Seed) {
  std::mt19937 G(Seed);
  std::vector<unsigned char> V(N);
  for (auto &B : V)
    B = static_cast<unsigned char>(G());
  return V;
}

// Host -> device, a memset over part of it, device -> device, and back:
// the bytes that come back are the ones each step should leave.
void checkRoundTrip(Executor &E) {
  const size_t N = 1000;
  std::vector<unsigned char> In = randomBytes(N, 42);
  DeviceBlock A = E.allocDevice(N), B = E.allocDevice(N);
  ASSERT_NE(A.ptr, 0u);
  ASSERT_NE(B.ptr, 0u);
  E.copyToDevice(A.ptr, In.data(), N);
  E.memset(A.ptr + 100, 0xAB, 50);
  E.copyDeviceToDevice(B.ptr, A.ptr, N);
  E.synchronize();
  std::vector<unsigned char> Out(N, 0x5A);
  E.copyToHost(Out.data(), B.ptr, N);
  std::vector<unsigned char> Want = In;
  std::memset(Want.data() + 100, 0xAB, 50);
  EXPECT_EQ(Out, Want);
  E.releaseDevice(A, N);
  E.releaseDevice(B, N);
  E.synchronize();
}

// A 3x4 int32 matrix copied into its transpose's layout (strided source,
// contiguous destination).
void checkStridedCopy(Executor &E) {
  std::vector<int32_t> Src(12);
  std::mt19937 G(7);
  for (auto &V : Src)
    V = int32_t(G());
  uint64_t S = E.alloc(48), D = E.alloc(48);
  E.copyToDevice(S, Src.data(), 48);
  int64_t Shape[2] = {4, 3};
  int64_t SrcStrides[2] = {4, 16}; // column-major view of the 3x4 rows
  int64_t DstStrides[2] = {12, 4};
  StridedRegion From{S, 2, Shape, SrcStrides, true};
  StridedRegion To{D, 2, Shape, DstStrides, true};
  E.copyStrided(To, From, 4, nullptr, /*Async=*/false);
  E.synchronize();
  std::vector<int32_t> Out(12, -1);
  E.copyToHost(Out.data(), D, 48);
  for (int I = 0; I < 4; ++I)
    for (int J = 0; J < 3; ++J)
      EXPECT_EQ(Out[I * 3 + J], Src[J * 4 + I]) << I << "," << J;
  E.free(S);
  E.free(D);
}

// out[i] = a * x[i] + y[i] for i < n, one thread per element (the host
// entry ABI of runtime/cpu/ThreadCtx.h).
void saxpyEntry(void **Args, pcj_thread_ctx *C) {
  int32_t N = *static_cast<int32_t *>(Args[0]);
  float A = *static_cast<float *>(Args[1]);
  const float *X = *static_cast<const float **>(Args[2]);
  float *Y = *static_cast<float **>(Args[3]);
  int64_t I = int64_t(C->ctaid[0]) * C->ntid[0] + C->tid[0];
  if (I < N)
    Y[I] = A * X[I] + Y[I];
}

// saxpy's arguments (n, a, x, y), seeded: y = a * x + y0 after a launch of
// Threads-wide blocks.
struct SaxpyCase {
  int32_t N;
  float A;
  std::vector<float> X, Y0, Y;
  const float *XP;
  float *YP;
  void *Params[4];
  LaunchArgs Args;
  SaxpyCase(int32_t Count, unsigned Seed, float Range, unsigned Threads)
      : N(Count), X(size_t(Count)), Y0(size_t(Count)) {
    std::mt19937 G(Seed);
    std::uniform_real_distribution<float> D(-Range, Range);
    A = D(G);
    for (int I = 0; I < N; ++I) {
      X[size_t(I)] = D(G);
      Y0[size_t(I)] = D(G);
    }
    Y = Y0;
    XP = X.data();
    YP = Y.data();
    Params[0] = &N;
    Params[1] = &A;
    Params[2] = &XP;
    Params[3] = &YP;
    Args.grid = {unsigned((N + int32_t(Threads) - 1) / int32_t(Threads))};
    Args.block = {Threads};
    Args.params = Params;
  }
  void expectComputed() const {
    for (int I = 0; I < N; ++I) {
      float Want = A * X[size_t(I)] + Y0[size_t(I)];
      ASSERT_NEAR(Y[size_t(I)], Want, 1e-5f * (1 + std::fabs(Want))) << I;
    }
  }
};

// The glue's per-device record extends LoadedKernel (KernelSlots' stride).
struct Slot : LoadedKernel {
  int moduleId = 0;
};

} // namespace

TEST(CpuExecutorApi, IsTheCpuBackend) {
  Executor &E = cpuExecutor();
  EXPECT_EQ(E.backend(), Backend::CPU);
  LaunchLimits L = E.launchLimits();
  EXPECT_EQ(L.MaxThreadsPerBlock, kCpuLaunchLimits.MaxThreadsPerBlock);
  EXPECT_EQ(L.MaxSharedBytesPerBlock, kCpuLaunchLimits.MaxSharedBytesPerBlock);
}

TEST(CpuExecutorApi, MemoryRoundTrip) { checkRoundTrip(cpuExecutor()); }

TEST(CpuExecutorApi, StridedCopy) { checkStridedCopy(cpuExecutor()); }

TEST(CpuExecutorApi, EmptyAllocationsAreDistinct) {
  Executor &E = cpuExecutor();
  DeviceBlock A = E.allocDevice(0), B = E.allocDevice(0);
  EXPECT_NE(A.ptr, 0u);
  EXPECT_NE(A.ptr, B.ptr);
  EXPECT_EQ(A.ptr % 256, 0u); // aligned as cudaMalloc's
  E.releaseDevice(A, 0);
  E.releaseDevice(B, 0);
}

TEST(CpuExecutorApi, CloseStartsANewGeneration) {
  Executor &E = cpuExecutor();
  DeviceBlock A = E.allocDevice(16);
  EXPECT_EQ(A.gen, E.contextGeneration(A.device));
  E.closeContexts();
  EXPECT_EQ(E.contextGeneration(A.device), A.gen + 1);
  DeviceBlock B = E.allocDevice(16);
  EXPECT_EQ(B.gen, A.gen + 1);
  E.releaseDevice(A, 16);
  E.releaseDevice(B, 16);
}

TEST(CpuExecutorApi, DevicesAreChosenPerThread) {
  Executor &E = cpuExecutor();
  int N = E.deviceCount();
  ASSERT_GE(N, 1);
  EXPECT_THROW(E.selectDevice(N), NoSuchDevice);
  EXPECT_THROW(E.selectDevice(-1), NoSuchDevice);
  try {
    E.selectDevice(N);
  } catch (const NoSuchDevice &X) {
    EXPECT_NE(std::string(X.what()).find(std::to_string(N) + " device(s)"),
              std::string::npos)
        << X.what();
  }
  E.selectDevice(N - 1);
  EXPECT_EQ(E.currentDevice(), N - 1);
  EXPECT_EQ(E.allocDevice(8).device, N - 1);
  int Other = -1;
  std::thread([&] { Other = E.currentDevice(); }).join();
  EXPECT_EQ(Other, 0);
  E.selectDevice(0);
}

TEST(CpuExecutorApi, HostMemoryKinds) {
  Executor &E = cpuExecutor();
  HostBlock P = E.allocHost(64, HostKind::Pinned);
  HostBlock M = E.allocHost(64, HostKind::Mapped);
  HostBlock U = E.allocHost(0, HostKind::Managed);
  EXPECT_EQ(P.devPtr, 0u);
  EXPECT_EQ(M.devPtr, M.ptr); // used by kernels in place
  EXPECT_EQ(U.devPtr, U.ptr);
  EXPECT_EQ(U.bytes, 1u);
  E.pinHost(reinterpret_cast<void *>(P.ptr), 64); // no-ops on the CPU
  E.unpinHost(reinterpret_cast<void *>(P.ptr));
  E.releaseHost(P);
  E.releaseHost(M);
  E.releaseHost(U);
}

TEST(CpuExecutorApi, MemoryInfoIsTheHosts) {
  Executor::MemoryInfo M = cpuExecutor().memoryInfo();
  EXPECT_GT(M.total, 0u);
  EXPECT_LE(M.free, M.total);
}

// The pseudo device: the limits the CPU executor enforces, 0 for a GPU
// property it does not have, false for a name that is no attribute.
TEST(CpuExecutorApi, DeviceDescription) {
  Executor &E = cpuExecutor();
  DeviceInfo I = E.deviceInfo(0);
  EXPECT_EQ(I.Name, "pycuda_jit CPU executor");
  EXPECT_EQ(I.ComputeCapabilityMajor, 9);
  EXPECT_EQ(I.MaxThreadsPerBlock, int(kCpuLaunchLimits.MaxThreadsPerBlock));
  EXPECT_EQ(I.MaxGridDimY, int(kCpuLaunchLimits.MaxGridDim[1]));
  EXPECT_EQ(I.WarpSize, 32);
  EXPECT_EQ(I.MultiprocessorCount, int(cpu::executorThreads()));
  EXPECT_EQ(I.L2CacheSize, 0);
  EXPECT_GT(I.TotalMemory, 0u);
  EXPECT_THROW(E.deviceInfo(E.deviceCount()), NoSuchDevice);
  long V = -1;
  ASSERT_TRUE(E.deviceAttribute(0, "MAX_BLOCK_DIM_Z", V));
  EXPECT_EQ(V, long(kCpuLaunchLimits.MaxBlockDim[2]));
  ASSERT_TRUE(E.deviceAttribute(0, "L2_CACHE_SIZE", V));
  EXPECT_EQ(V, 0);
  EXPECT_FALSE(E.deviceAttribute(0, "NO_SUCH_THING", V));
  EXPECT_TRUE(E.deviceMemoryIsHost);
  EXPECT_FALSE(cudaExecutor().deviceMemoryIsHost); // data: no driver needed
}

TEST(CpuExecutorApi, StreamsAreIdsOfOneQueue) {
  Executor &E = cpuExecutor();
  EXPECT_TRUE(E.launchRunsGrid);
  std::unique_ptr<ExecutorStream> A = E.createStream(false);
  std::unique_ptr<ExecutorStream> B = E.createStream(true);
  EXPECT_EQ(A->handle(), nullptr);
  EXPECT_GE(A->value(), 16u); // never a default stream's 0, 1, 2
  EXPECT_NE(A->value(), B->value());
  EXPECT_EQ(E.streamOfHandle(A->value()), nullptr);
  EXPECT_EQ(E.streamOfHandle(0x1234), nullptr);
  EXPECT_TRUE(A->alive());
  EXPECT_TRUE(E.queryStream(A->handle()));
  E.synchronizeStream(A->handle());
  E.streamWaitStream(A->handle(), B->handle());
  // A host callback runs before launchHostFunc returns.
  int Calls = 0;
  E.launchHostFunc(
      A->handle(), [](void *P) { ++*static_cast<int *>(P); }, &Calls);
  EXPECT_EQ(Calls, 1);
  E.closeContexts();
  EXPECT_FALSE(A->alive());
  EXPECT_FALSE(B->alive());
  EXPECT_TRUE(E.createStream(false)->alive());
}

TEST(CpuExecutorApi, EventsTimeOnTheHost) {
  Executor &E = cpuExecutor();
  std::unique_ptr<ExecutorEvent> A = E.createEvent(true),
                                 B = E.createEvent(true),
                                 NoTime = E.createEvent(false);
  EXPECT_TRUE(A->timing());
  EXPECT_FALSE(NoTime->timing());
  EXPECT_NE(A->handle(), B->handle());
  // Not recorded yet: the driver's error.
  EXPECT_THROW(E.elapsedMs(*A, *B), DriverError);
  A->record(nullptr);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  B->record(nullptr);
  EXPECT_TRUE(B->query());
  B->synchronize();
  B->waitOn(nullptr);
  float Ms = E.elapsedMs(*A, *B);
  EXPECT_GE(Ms, 15.0f);
  EXPECT_LT(Ms, 10000.0f);
  NoTime->record(nullptr);
  try {
    E.elapsedMs(*A, *NoTime);
    ADD_FAILURE() << "no error for an event without timing";
  } catch (const DriverError &X) {
    EXPECT_NE(std::string(X.what()).find("timing=False"), std::string::npos)
        << X.what();
  }
  EXPECT_TRUE(A->alive());
  E.closeContexts();
  EXPECT_FALSE(A->alive());
}

// launch() runs only a slot loaded in the current generation and set up;
// otherwise it names the device and generation to load for.
TEST(CpuExecutorApi, LaunchRunsLoadedSlotsOnly) {
  Executor &E = cpuExecutor();
  cpu::KernelInfo K;
  K.entry = &saxpyEntry;
  K.name = "saxpy";
  std::vector<Slot> Slots; // nothing loaded
  SaxpyCase C(1000, 11, 4.f, 128);
  LaunchArgs &Args = C.Args;
  std::vector<float> &Y = C.Y;
  const std::vector<float> &Y0 = C.Y0;
  LaunchSite Site{-1, 0};
  EXPECT_FALSE(E.launch(KernelSlots::of(Slots, &K), Args, Site));
  EXPECT_EQ(Site.device, E.currentDevice());
  EXPECT_EQ(Site.generation, E.contextGeneration(Site.device));
  EXPECT_EQ(Y, Y0); // nothing ran
  Slots.resize(size_t(Site.device) + 1);
  Slots[Site.device].gen = Site.generation;
  EXPECT_FALSE(E.launch(KernelSlots::of(Slots, &K), Args, Site)); // not set up
  Slots[Site.device].setUp = true;
  ASSERT_TRUE(E.launch(KernelSlots::of(Slots, &K), Args, Site));
  C.expectComputed();
  // A new context generation: the slot is stale again.
  E.closeContexts();
  Y = Y0;
  EXPECT_FALSE(E.launch(KernelSlots::of(Slots, &K), Args, Site));
  EXPECT_EQ(Site.generation, Slots[Site.device].gen + 1);
  EXPECT_EQ(Y, Y0);
}

// beforeRun / afterRun bracket the grid's run (the glue's GIL), also when
// the run throws, and afterRun gets what beforeRun returned.
namespace {
int HookBefore = 0, HookAfter = 0;
void *hookBefore() {
  ++HookBefore;
  return &HookAfter;
}
void hookAfter(void *State) { ++*static_cast<int *>(State); }
} // namespace

TEST(CpuExecutorApi, LaunchHooksBracketTheRun) {
  Executor &E = cpuExecutor();
  cpu::KernelInfo K;
  K.entry = &saxpyEntry;
  K.name = "saxpy";
  std::vector<Slot> Slots(size_t(E.currentDevice()) + 1);
  Slots.back().gen = E.contextGeneration(E.currentDevice());
  Slots.back().setUp = true;
  int32_t N = 0; // no element: nothing written
  float A = 1;
  const float *XP = nullptr;
  float *YP = nullptr;
  void *Params[] = {&N, &A, &XP, &YP};
  LaunchArgs Args;
  Args.params = Params;
  Args.beforeRun = hookBefore;
  Args.afterRun = hookAfter;
  LaunchSite Site;
  HookBefore = HookAfter = 0;
  ASSERT_TRUE(E.launch(KernelSlots::of(Slots, &K), Args, Site));
  EXPECT_EQ(HookBefore, 1);
  EXPECT_EQ(HookAfter, 1);
  Args.block = {2048}; // over the limit: the grid runner throws
  EXPECT_THROW(E.launch(KernelSlots::of(Slots, &K), Args, Site),
               std::invalid_argument);
  EXPECT_EQ(HookBefore, 2);
  EXPECT_EQ(HookAfter, 2);
  Slots.back().setUp = false; // not run: no hooks
  EXPECT_FALSE(E.launch(KernelSlots::of(Slots, &K), Args, Site));
  EXPECT_EQ(HookBefore, 2);
}

// loadKernel on the CPU executor loads nothing (the host entry serves
// every device) but records the current generation, which launch() then
// accepts; a GPU image is refused.  currentSite() is what launch() names.
TEST(CpuExecutorApi, LoadKernelRecordsTheGeneration) {
  Executor &E = cpuExecutor();
  cpu::KernelInfo K;
  K.entry = &saxpyEntry;
  K.name = "saxpy";
  LaunchSite Site = E.currentSite();
  EXPECT_EQ(Site.device, E.currentDevice());
  EXPECT_EQ(Site.generation, E.contextGeneration(Site.device));
  std::vector<Slot> Slots(size_t(Site.device) + 1);
  Slot &S = Slots[size_t(Site.device)];
  S.gen = 12345; // poisoned: loadKernel overwrites all three
  S.fn = reinterpret_cast<CUfunction>(uintptr_t(0x1234));
  S.setUp = true;
  EXPECT_EQ(E.loadKernel(nullptr, "saxpy", LoadSettings{}, S), nullptr);
  EXPECT_EQ(S.gen, Site.generation);
  EXPECT_EQ(S.fn, nullptr);
  EXPECT_FALSE(S.setUp);
  SaxpyCase C(300, 23, 2.f, 64);
  LaunchArgs &Args = C.Args;
  LaunchSite Missing;
  S.setUp = true; // the owner's setup ran
  ASSERT_TRUE(E.launch(KernelSlots::of(Slots, &K), Args, Missing));
  C.expectComputed();
  // After cuda.close() the site names the new generation; a load gives it.
  E.closeContexts();
  LaunchSite After = E.currentSite();
  EXPECT_EQ(After.generation, Site.generation + 1);
  EXPECT_FALSE(E.launch(KernelSlots::of(Slots, &K), Args, Missing));
  EXPECT_EQ(Missing.generation, After.generation);
  E.loadKernel(nullptr, "saxpy", LoadSettings{}, S);
  EXPECT_EQ(S.gen, After.generation);
  // A GPU image is not code the CPU executor runs.
  LoadableImage Img;
  Img.Bytes = ".version 7.8";
  try {
    E.loadKernel(&Img, "saxpy", LoadSettings{}, S);
    ADD_FAILURE() << "an image loaded on the CPU executor";
  } catch (const std::invalid_argument &X) {
    EXPECT_NE(std::string(X.what()).find("saxpy"), std::string::npos)
        << X.what();
  }
  EXPECT_EQ(S.gen, After.generation); // untouched by the refusal
}

// CUDA IPC has no meaning without a GPU: every operation says what to do.
TEST(CpuExecutorApi, IpcIsRefused) {
  Executor &E = cpuExecutor();
  DeviceBlock B = E.allocDevice(64);
  uint64_t Base = 77;
  auto Refused = [](auto &&Op) {
    try {
      Op();
      ADD_FAILURE() << "CUDA IPC on the CPU executor";
    } catch (const BackendUnavailable &X) {
      EXPECT_NE(std::string(X.what()).find("CUDA IPC handles need a GPU"),
                std::string::npos)
          << X.what();
    }
  };
  Refused([&] { E.ipcHandle(B.ptr, Base); });
  Refused([&] { E.openIpc(CUipcMemHandle{}); });
  Refused([&] { E.closeIpc(B.ptr); });
  EXPECT_EQ(Base, 77u);
  E.releaseDevice(B, 64);
}

TEST(KernelSlots, StrideReachesEachDevicesSlot) {
  std::vector<Slot> V(3);
  V[2].gen = 7;
  V[2].moduleId = 9;
  KernelSlots K = KernelSlots::of(V);
  EXPECT_EQ(K.count, 3u);
  EXPECT_EQ(K.stride, sizeof(Slot));
  EXPECT_EQ(K.at(2)->gen, 7u);
  EXPECT_EQ(K.at(2), static_cast<const LoadedKernel *>(&V[2]));
  EXPECT_EQ(K.at(3), nullptr);
}

#define REQUIRE_GPU()                                                          \
  do {                                                                         \
    if (!driverAvailable() || deviceCount() == 0)                              \
      GTEST_SKIP() << "no CUDA device: " << driverLoadError();                 \
  } while (0)

TEST(CudaExecutorApi, MemoryRoundTrip) {
  REQUIRE_GPU();
  Executor &E = cudaExecutor();
  EXPECT_EQ(E.backend(), Backend::CUDA);
  checkRoundTrip(E);
}

TEST(CudaExecutorApi, StridedCopy) {
  REQUIRE_GPU();
  checkStridedCopy(cudaExecutor());
}

TEST(CudaExecutorApi, DevicesAndMemoryInfo) {
  REQUIRE_GPU();
  Executor &E = cudaExecutor();
  int N = E.deviceCount();
  EXPECT_EQ(N, deviceCount());
  EXPECT_THROW(E.selectDevice(N), NoSuchDevice);
  E.selectDevice(0);
  EXPECT_EQ(E.currentDevice(), 0);
  Executor::MemoryInfo M = E.memoryInfo();
  EXPECT_GT(M.total, 0u);
  EXPECT_LE(M.free, M.total);
  HostBlock H = E.allocHost(64, HostKind::Mapped);
  EXPECT_NE(H.devPtr, 0u);
  E.releaseHost(H);
}

TEST(CudaExecutorApi, DeviceDescription) {
  REQUIRE_GPU();
  Executor &E = cudaExecutor();
  DeviceInfo I = E.deviceInfo(0);
  EXPECT_EQ(I.Name, deviceInfo(0).Name);
  long V = -1;
  ASSERT_TRUE(E.deviceAttribute(0, "WARP_SIZE", V));
  EXPECT_EQ(V, 32);
  EXPECT_FALSE(E.deviceAttribute(0, "NO_SUCH_THING", V));
}

TEST(CudaExecutorApi, StreamsAndEvents) {
  REQUIRE_GPU();
  Executor &E = cudaExecutor();
  EXPECT_FALSE(E.launchRunsGrid);
  E.selectDevice(0);
  std::unique_ptr<ExecutorStream> S = E.createStream(false);
  EXPECT_NE(S->handle(), nullptr);
  EXPECT_EQ(S->value(), uint64_t(reinterpret_cast<uintptr_t>(S->handle())));
  EXPECT_EQ(E.streamOfHandle(S->value()), S->handle());
  EXPECT_TRUE(S->alive());
  std::unique_ptr<ExecutorEvent> A = E.createEvent(true),
                                 B = E.createEvent(true);
  A->record(S->handle());
  std::vector<unsigned char> In = randomBytes(1 << 20, 3);
  DeviceBlock D = E.allocDevice(In.size());
  E.copyToDevice(D.ptr, In.data(), In.size());
  B->record(S->handle());
  int Calls = 0;
  E.launchHostFunc(
      S->handle(), [](void *P) { ++*static_cast<int *>(P); }, &Calls);
  E.synchronizeStream(S->handle());
  EXPECT_EQ(Calls, 1);
  EXPECT_TRUE(E.queryStream(S->handle()));
  EXPECT_TRUE(B->query());
  EXPECT_GE(E.elapsedMs(*A, *B), 0.0f);
  E.releaseDevice(D, In.size());
  E.synchronize();
}

// out[t] = v + t: loaded through the driver's JIT by loadKernel.
const char *const kFillPtx = R"(
.version 7.8
.target sm_80
.address_size 64

.visible .entry fill(.param .u64 out, .param .u32 v)
{
    .reg .b32 %r<4>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    ld.param.u32 %r1, [v];
    mov.u32 %r2, %tid.x;
    add.u32 %r3, %r1, %r2;
    cvta.to.global.u64 %rd2, %rd1;
    mul.wide.u32 %rd3, %r2, 4;
    add.s64 %rd2, %rd2, %rd3;
    st.global.u32 [%rd2], %r3;
    ret;
}
)";

// loadKernel loads an image in the current context (the site's
// generation), the function launches and computes; no image: refused.
TEST(CudaExecutorApi, LoadKernelAndLaunch) {
  REQUIRE_GPU();
  Executor &E = cudaExecutor();
  E.selectDevice(0);
  LaunchSite Site = E.currentSite();
  EXPECT_EQ(Site.device, 0);
  EXPECT_EQ(Site.generation, E.contextGeneration(0));
  LoadableImage Img;
  Img.Path = LoadPath::DriverJitPtx;
  Img.Bytes = kFillPtx;
  std::vector<Slot> Slots(1);
  Slots[0].gen = 999;
  Slots[0].setUp = true;
  LoadSettings LS;
  LS.carveout = 50;
  std::shared_ptr<Module> M = E.loadKernel(&Img, "fill", LS, Slots[0]);
  ASSERT_NE(M, nullptr);
  EXPECT_EQ(M->library(), nullptr); // PTX: a CUmodule
  EXPECT_NE(Slots[0].fn, nullptr);
  EXPECT_EQ(Slots[0].gen, Site.generation);
  EXPECT_FALSE(Slots[0].setUp);
  const unsigned N = 128;
  DeviceBlock D = E.allocDevice(N * 4);
  std::vector<uint32_t> Out(N, 0xdeadbeef);
  E.copyToDevice(D.ptr, Out.data(), N * 4);
  uint64_t P = D.ptr;
  uint32_t V = 1000 + std::mt19937(5)() % 1000;
  void *Params[] = {&P, &V};
  LaunchArgs Args;
  Args.grid = {1};
  Args.block = {N};
  Args.params = Params;
  LaunchSite Missing;
  EXPECT_FALSE(E.launch(KernelSlots::of(Slots), Args, Missing)); // not set up
  Slots[0].setUp = true;
  ASSERT_TRUE(E.launch(KernelSlots::of(Slots), Args, Missing));
  E.synchronize();
  E.copyToHost(Out.data(), D.ptr, N * 4);
  for (unsigned I = 0; I < N; ++I)
    ASSERT_EQ(Out[I], V + I) << I;
  EXPECT_THROW(E.loadKernel(nullptr, "fill", LoadSettings{}, Slots[0]),
               std::invalid_argument);
  // The IPC handle of an allocation names where it starts.
  uint64_t Base = 0;
  E.ipcHandle(D.ptr + 8, Base);
  EXPECT_EQ(Base, D.ptr);
  E.releaseDevice(D, N * 4);
}
