// Tests for the CPU executor's sanitizer (runtime/cpu/Sanitizer*.cpp,
// Shadow.cpp): the check words, shadow cells, the allocation registry, and
// the ordering rules, with "kernels" that call pcj_san_access exactly as
// sanitized generated code does (see cpu_executor_test.cpp for the model).
#include "runtime/cpu/GridRunner.h"
#include "runtime/cpu/Sanitizer.h"
#include "runtime/cpu/SanitizerState.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <optional>
#include <thread>
#include <vector>

using namespace pcj::rt::cpu;

namespace {

template <typename T> T &arg(void **Args, int I) {
  return *static_cast<T *>(Args[I]);
}

std::optional<KernelFault> run(const KernelInfo &K, Dims G, Dims B,
                               void **Args) {
  try {
    launch(K, G, B, 0, Args);
  } catch (const KernelFault &F) {
    return F;
  }
  return std::nullopt;
}

pcj_san_site site(uint32_t Flags, int Line, uint32_t Bytes = 4) {
  pcj_san_site S{};
  S.flags = Flags;
  S.bytes = Bytes;
  S.line = Line;
  S.col = -1;
  S.endCol = -1;
  S.kernel = "k";
  S.file = "kern.py";
  S.array = "a";
  return S;
}

TEST(CpuSanitizer, ParseChecks) {
  EXPECT_EQ(san::parseChecks(""), 0);
  EXPECT_EQ(san::parseChecks("0"), 0);
  EXPECT_EQ(san::parseChecks("1"), san::All);
  EXPECT_EQ(san::parseChecks("all"), san::All);
  EXPECT_EQ(san::parseChecks("race, init"), san::Race | san::Init);
  EXPECT_EQ(san::parseChecks("bounds,sync"), san::Bounds | san::Sync);
  EXPECT_EQ(san::parseChecks("race,racy"), -1);
  EXPECT_EQ(san::checksString(san::Race | san::Sync), "race,sync");
}

TEST(CpuSanitizer, CellsAreOneCacheLineAndClearToZero) {
  std::vector<float> Mem(4096);
  uintptr_t A = uintptr_t(Mem.data());
  san::detail::Cell *C = san::detail::cellFor(A);
  ASSERT_NE(C, nullptr);
  EXPECT_EQ(uintptr_t(C) % 64, 0u);
  EXPECT_EQ(san::detail::cellFor(A + 4), C + 1);
  EXPECT_EQ(san::detail::cellFor(A + 5), C + 1); // the same granule
  for (int K = 0; K < 4096; ++K)
    san::detail::cellFor(A + 4 * K)->w.blk = 7 + K;
  san::detail::clearCells(A + 4, A + 4 * 4095);
  EXPECT_EQ(C->w.blk, 7u);
  EXPECT_EQ((C + 1)->w.blk, 0u);
  EXPECT_EQ((C + 2000)->w.blk, 0u);
  EXPECT_EQ((C + 4094)->w.blk, 0u);
  EXPECT_EQ((C + 4095)->w.blk, 7u + 4095);
}

TEST(CpuSanitizer, RegistryClassifiesAllocations) {
  using san::detail::Region;
  static char Mem[1024]; // never freed: it stays registered as freed
  uintptr_t A = uintptr_t(Mem);
  san::detail::RegionCache Cache; // one cache: it follows the registry
  EXPECT_EQ(san::detail::classify(A, Cache), Region::Host);
  san::noteAlloc(Mem, 1024, false);
  EXPECT_EQ(san::detail::classify(A + 100, Cache), Region::Uninitialized);
  san::noteHostWrite(Mem + 10, 4);
  EXPECT_EQ(san::detail::classify(A + 100, Cache), Region::Initialized);
  EXPECT_EQ(san::detail::classify(A + 1024, Cache), Region::Host);
  san::arm();
  static bool Released = false;
  EXPECT_TRUE(san::noteFree(Mem, 1024, [](void *) { Released = true; }));
  EXPECT_EQ(san::detail::classify(A + 100, Cache), Region::Freed);
  EXPECT_FALSE(Released); // held in quarantine
}

// Thread t writes a[t]; then reads a[(t + 1) % n]: a race between the read of
// thread t and the write of thread t + 1 (no barrier between).
void neighbourKernel(void **Args, pcj_thread_ctx *C) {
  static pcj_san_site W = site(PCJ_SAN_WRITE, 10), R = site(PCJ_SAN_READ, 11);
  float *A = arg<float *>(Args, 0);
  uint32_t T = C->tid[0], N = C->ntid[0];
  pcj_san_access(C, &W, &A[T], A);
  A[T] = float(T);
  pcj_san_access(C, &R, &A[(T + 1) % N], A);
}

TEST(CpuSanitizer, RaceNamesBothAccesses) {
  std::vector<float> A(64, 0.f);
  float *P = A.data();
  void *Args[] = {&P};
  KernelInfo K{&neighbourKernel, "neighbours", false, false, 0, san::All};
  auto F = run(K, Dims{1}, Dims{64}, Args);
  ASSERT_TRUE(F.has_value());
  EXPECT_EQ(F->kind(), KernelFault::Kind::Race);
  ASSERT_TRUE(F->findings());
  const san::Finding &First = F->findings()->front();
  EXPECT_EQ(First.kind, san::Finding::Kind::Race);
  ASSERT_EQ(First.accesses.size(), 2u);
  // Thread 0 read a[1] before thread 1 wrote it.
  EXPECT_EQ(First.accesses[0].op, "read");
  EXPECT_EQ(First.accesses[0].line, 11);
  EXPECT_EQ(First.accesses[0].thread.x, 0u);
  EXPECT_EQ(First.accesses[1].op, "write");
  EXPECT_EQ(First.accesses[1].line, 10);
  EXPECT_EQ(First.accesses[1].thread.x, 1u);
  EXPECT_EQ(First.index, 1);
  EXPECT_NE(First.message.find("array 'a' element 1"), std::string::npos)
      << First.message;
}

// The same with a barrier between the write and the read: no finding.
void neighbourBarrierKernel(void **Args, pcj_thread_ctx *C) {
  static pcj_san_site W = site(PCJ_SAN_WRITE, 20), R = site(PCJ_SAN_READ, 21);
  uint32_t T = C->tid[0], N = C->ntid[0];
  float *A = arg<float *>(Args, 0) + C->ctaid[0] * N; // this block's part
  pcj_san_access(C, &W, &A[T], A);
  A[T] = float(T);
  pcj_cpu_syncthreads(C, 1, 20);
  pcj_san_access(C, &R, &A[(T + 1) % N], A);
}

TEST(CpuSanitizer, BarrierOrdersAccesses) {
  std::vector<float> A(64, 0.f);
  float *P = A.data();
  void *Args[] = {&P};
  KernelInfo K{&neighbourBarrierKernel, "ordered", true, false, 0, san::All};
  EXPECT_FALSE(run(K, Dims{2}, Dims{32}, Args).has_value());
}

// Block 0 writes data[0], then makes an atomic on the counter but reports
// its end (pcj_san_atomic_done) only after block 1 has made its own atomic
// there and read data[0]: the atomics order the write before the read
// however the host threads interleave.
void handoffKernel(void **Args, pcj_thread_ctx *C) {
  static pcj_san_site W = site(PCJ_SAN_WRITE, 30), R = site(PCJ_SAN_READ, 31),
                      At = site(PCJ_SAN_ATOMIC, 32);
  float *Data = arg<float *>(Args, 0);
  auto *Counter = arg<std::atomic<uint32_t> *>(Args, 1);
  auto *Stage = arg<std::atomic<int> *>(Args, 2);
  auto Wait = [&](int Want) {
    auto End = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (Stage->load() < Want && std::chrono::steady_clock::now() < End)
      std::this_thread::yield();
    return Stage->load() >= Want;
  };
  if (C->ctaid[0] == 0) {
    pcj_san_access(C, &W, &Data[0], Data);
    Data[0] = 1.f;
    pcj_san_access(C, &At, Counter, Counter);
    Counter->fetch_add(1);
    Stage->store(1);
    Wait(2); // block 1 reads before this atomic is reported done
    pcj_san_atomic_done(C);
    return;
  }
  if (!Wait(1)) { // not run concurrently: nothing to test
    Stage->store(-100);
    return;
  }
  pcj_san_access(C, &At, Counter, Counter);
  Counter->fetch_add(1);
  pcj_san_atomic_done(C);
  pcj_san_access(C, &R, &Data[0], Data);
  Stage->store(2);
}

TEST(CpuSanitizer, AtomicOrdersBlocksBeforeItCompletes) {
  if (executorThreads() < 2)
    GTEST_SKIP() << "needs two host threads";
  std::vector<float> Data(4, 0.f);
  float *P = Data.data();
  std::atomic<uint32_t> Counter{0};
  std::atomic<int> Stage{0};
  auto *CP = &Counter;
  auto *SP = &Stage;
  void *Args[] = {&P, &CP, &SP};
  KernelInfo K{&handoffKernel, "handoff", false, false, 0, san::All};
  auto F = run(K, Dims{2}, Dims{1}, Args);
  if (Stage.load() < 0)
    GTEST_SKIP() << "the two blocks did not run concurrently";
  EXPECT_FALSE(F.has_value()) << F->what();
  EXPECT_EQ(Counter.load(), 2u);
}

// Without the atomics the same hand-off is a race between blocks.
void unorderedKernel(void **Args, pcj_thread_ctx *C) {
  static pcj_san_site W = site(PCJ_SAN_WRITE, 40), R = site(PCJ_SAN_READ, 41);
  float *Data = arg<float *>(Args, 0);
  if (C->ctaid[0] == 0) {
    pcj_san_access(C, &W, &Data[0], Data);
    Data[0] = 1.f;
  } else {
    pcj_san_access(C, &R, &Data[0], Data);
  }
}

TEST(CpuSanitizer, BlocksWithoutSynchronizationRace) {
  std::vector<float> Data(4, 0.f);
  float *P = Data.data();
  void *Args[] = {&P};
  KernelInfo K{&unorderedKernel, "unordered", false, false, 0, san::All};
  auto F = run(K, Dims{2}, Dims{1}, Args);
  ASSERT_TRUE(F.has_value());
  EXPECT_EQ(F->kind(), KernelFault::Kind::Race);
  // A later launch is ordered after this one: no finding.
  KernelInfo Read{&unorderedKernel, "unordered", false, false, 0, san::All};
  EXPECT_FALSE(run(Read, Dims{1}, Dims{1}, Args).has_value());
}

// Reads of a device allocation nothing initialized.
void readKernel(void **Args, pcj_thread_ctx *C) {
  static pcj_san_site R = site(PCJ_SAN_READ, 50);
  float *Data = arg<float *>(Args, 0);
  pcj_san_access(C, &R, &Data[C->tid[0]], Data);
}

TEST(CpuSanitizer, UninitializedDeviceMemoryAndUseAfterFree) {
  san::arm();
  auto *Mem = static_cast<float *>(std::malloc(256));
  san::noteAlloc(Mem, 256, /*Initialized=*/false);
  void *Args[] = {&Mem};
  KernelInfo K{&readKernel, "reader", false, false, 0, san::All};
  auto F = run(K, Dims{1}, Dims{8}, Args);
  ASSERT_TRUE(F.has_value());
  EXPECT_EQ(F->kind(), KernelFault::Kind::Uninitialized);
  san::noteHostWrite(Mem, 256);
  EXPECT_FALSE(run(K, Dims{1}, Dims{8}, Args).has_value());
  EXPECT_TRUE(san::noteFree(Mem, 256, &std::free));
  F = run(K, Dims{1}, Dims{8}, Args);
  ASSERT_TRUE(F.has_value());
  EXPECT_EQ(F->kind(), KernelFault::Kind::UseAfterFree);
}

} // namespace
