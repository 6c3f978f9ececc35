// The executors behind runtime/Executor.h: the CPU executor's device
// memory, devices and context generations; the same operations on a GPU
// when there is one (skipped otherwise).
#include "runtime/CudaDriver.h"
#include "runtime/Device.h"
#include "runtime/Executor.h"

#include <gtest/gtest.h>

#include <cstring>
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
