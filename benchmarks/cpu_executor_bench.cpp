// cpu_executor_bench: micro-benchmark of the CPU executor's scheduling costs
// (runtime/cpu): one fiber switch, one block-wide barrier of a 256-thread
// block, one warp shuffle, and the fast path's per-thread cost.  Not a test;
// not built by default.  Build and run from the repository root:
//
//   c++ -std=c++20 -O2 -I. -o /tmp/cpu_executor_bench   (one command line:)
//       benchmarks/cpu_executor_bench.cpp runtime/cpu/*.cpp -lpthread
//   /tmp/cpu_executor_bench            # PYCUDA_JIT_CPU_THREADS=1 for one core
//
// Each figure is the best of several repetitions.
#include "runtime/cpu/Fiber.h"
#include "runtime/cpu/GridRunner.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

using namespace pcj::rt::cpu;
using Clock = std::chrono::steady_clock;

namespace {

template <typename F> double bestSeconds(int Reps, F &&Body) {
  double Best = 1e30;
  for (int R = 0; R < Reps; ++R) {
    auto T0 = Clock::now();
    Body();
    Best = std::min(Best,
                    std::chrono::duration<double>(Clock::now() - T0).count());
  }
  return Best;
}

// -- raw fiber switch ---------------------------------------------------------

struct PingPong {
  FiberContext Main, F;
  long Rounds = 0;
};

void pingPong(void *Arg) {
  auto &P = *static_cast<PingPong *>(Arg);
  for (;;) {
    ++P.Rounds;
    fiberSwitch(P.F, P.Main);
  }
}

double nsPerSwitch() {
  constexpr long N = 2'000'000;
  FiberStack Stack = StackPool::global().acquire();
  PingPong P;
  fiberInit(P.F, Stack, &pingPong, &P);
  double S = bestSeconds(5, [&] {
    for (long I = 0; I < N; ++I)
      fiberSwitch(P.Main, P.F);
  });
  // The fiber stays suspended forever; its stack is not reused.
  return S * 1e9 / (2.0 * N); // two switches per round trip
}

// -- kernels ------------------------------------------------------------------

void barrierKernel(void **Args, pcj_thread_ctx *C) {
  int32_t Iters = *static_cast<int32_t *>(Args[0]);
  for (int32_t I = 0; I < Iters; ++I)
    pcj_cpu_syncthreads(C, 1);
}

void shuffleKernel(void **Args, pcj_thread_ctx *C) {
  int32_t Iters = *static_cast<int32_t *>(Args[0]);
  uint64_t V = C->laneid;
  for (int32_t I = 0; I < Iters; ++I)
    V += pcj_cpu_shfl_sync(C, 0xffffffffu, V, 3, 1 + I % 16, 32);
  *static_cast<uint64_t *>(Args[1]) += V == 42; // keep V alive
}

void emptyKernel(void **Args, pcj_thread_ctx *C) {}

} // namespace

int main() {
  std::printf("CPU executor micro-benchmark (fiber backend %s, stack %zu KiB, "
              "%u host threads)\n",
              fiberBackend(), fiberStackSize() / 1024, executorThreads());

  std::printf("  fiber switch                 : %8.1f ns\n", nsPerSwitch());

  constexpr uint32_t Block = 256;
  {
    int32_t Iters = 2000;
    void *Args[] = {&Iters};
    KernelInfo K{&barrierKernel, "barrier", true, false, 0};
    launch(K, Dims{1}, Dims{Block}, 0, Args); // warm the stack cache
    double S =
        bestSeconds(5, [&] { launch(K, Dims{1}, Dims{Block}, 0, Args); });
    double PerBarrier = S * 1e9 / Iters;
    std::printf("  syncthreads, 256-thread block: %8.1f ns per barrier "
                "(%.1f ns per thread)\n",
                PerBarrier, PerBarrier / Block);
  }
  {
    int32_t Iters = 2000;
    uint64_t Sink = 0;
    void *Args[] = {&Iters, &Sink};
    KernelInfo K{&shuffleKernel, "shuffle", false, true, 0};
    launch(K, Dims{1}, Dims{Block}, 0, Args);
    double S =
        bestSeconds(5, [&] { launch(K, Dims{1}, Dims{Block}, 0, Args); });
    double PerRound = S * 1e9 / Iters;
    std::printf("  shfl_xor_sync, 8 warps       : %8.1f ns per warp shuffle "
                "(%.1f ns per lane)\n",
                PerRound / (Block / 32), PerRound / Block);
  }
  {
    void **Args = nullptr;
    KernelInfo K{&emptyKernel, "empty", false, false, 0};
    constexpr uint32_t Blocks = 4096;
    double S =
        bestSeconds(5, [&] { launch(K, Dims{Blocks}, Dims{Block}, 0, Args); });
    std::printf("  fast path, %u x %u threads: %8.1f ns per thread, %.1f us "
                "per launch\n",
                Blocks, Block, S * 1e9 / (double(Blocks) * Block), S * 1e6);
    double L = bestSeconds(200, [&] { launch(K, Dims{1}, Dims{32}, 0, Args); });
    std::printf("  launch of 1 x 32 empty threads: %8.1f us\n", L * 1e6);
  }
  return 0;
}
