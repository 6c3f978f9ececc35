// Tests for the CPU executor (runtime/cpu): fibers, grid dispatch, barriers,
// warp operations, printf and error reporting.
//
// The "kernels" are plain C++ functions with the host entry ABI of
// ThreadCtx.h that call the runtime exactly as generated code does: args[i]
// points at the i-th parameter, thread/block indices come from the context.
// Like generated code they hold no objects with destructors, because a
// thread that fails never returns.  Inputs are seeded-random, outputs are
// poisoned before each launch, and results are compared with values computed
// here serially.
#include "runtime/cpu/Fiber.h"
#include "runtime/cpu/GridRunner.h"
#include "runtime/cpu/LibdeviceHost.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cfenv>
#include <chrono>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <csignal>
#include <sys/wait.h>
#include <unistd.h>

using namespace pcj::rt::cpu;

namespace {

constexpr uint32_t kFull = 0xffffffffu;

template <typename T> T &arg(void **Args, int I) {
  return *static_cast<T *>(Args[I]);
}

uint32_t linearTid(const pcj_thread_ctx *C) {
  return C->tid[0] + C->tid[1] * C->ntid[0] +
         C->tid[2] * C->ntid[0] * C->ntid[1];
}

uint32_t blockThreads(const pcj_thread_ctx *C) {
  return C->ntid[0] * C->ntid[1] * C->ntid[2];
}

KernelInfo kernel(KernelEntry E, const char *Name, bool Barriers, bool Warps,
                  size_t StaticShared = 0) {
  return KernelInfo{E, Name, Barriers, Warps, StaticShared};
}

std::optional<KernelFault> launchExpectingFault(const KernelInfo &K, Dims G,
                                                Dims B, size_t Dyn, void **Args,
                                                const LaunchControl &C = {}) {
  try {
    launch(K, G, B, Dyn, Args, C);
  } catch (const KernelFault &F) {
    return F;
  }
  return std::nullopt;
}

// Captures what is written to file descriptor 1 (stdout) in between.
class StdoutCapture {
public:
  StdoutCapture() {
    std::fflush(stdout);
    Tmp = std::tmpfile();
    Saved = dup(1);
    dup2(fileno(Tmp), 1);
  }
  std::string finish() {
    std::fflush(stdout);
    dup2(Saved, 1);
    close(Saved);
    std::string Out;
    std::rewind(Tmp);
    char Buf[4096];
    size_t N;
    while ((N = std::fread(Buf, 1, sizeof Buf, Tmp)) > 0)
      Out.append(Buf, N);
    std::fclose(Tmp);
    return Out;
  }

private:
  FILE *Tmp = nullptr;
  int Saved = -1;
};

// Packs printf arguments the way the compiler does for vprintf.
class PrintfArgs {
public:
  template <typename T> PrintfArgs &add(T V) {
    size_t Off = (Buf.size() + sizeof(T) - 1) / sizeof(T) * sizeof(T);
    Buf.resize(Off + sizeof(T));
    std::memcpy(Buf.data() + Off, &V, sizeof(T));
    return *this;
  }
  PrintfArgs &str(const char *S) {
    return add(static_cast<uint64_t>(reinterpret_cast<uintptr_t>(S)));
  }
  const void *data() const { return Buf.data(); }

private:
  std::vector<unsigned char> Buf;
};

std::string hostPrintf(const char *Fmt, ...) {
  char Buf[4096];
  va_list Ap;
  va_start(Ap, Fmt);
  std::vsnprintf(Buf, sizeof Buf, Fmt, Ap);
  va_end(Ap);
  return Buf;
}

// ==== fibers =================================================================

struct PingPong {
  FiberContext Main, F;
  int Counter = 0;
  bool FiberSawOwnRounding = true;
};

void pingPongFiber(void *Arg) {
  auto &P = *static_cast<PingPong *>(Arg);
  std::fesetround(FE_UPWARD); // this fiber's own floating-point state
  for (int I = 0; I < 1000; ++I) {
    ++P.Counter;
    fiberSwitch(P.F, P.Main);
    if (std::fegetround() != FE_UPWARD)
      P.FiberSawOwnRounding = false;
  }
  fiberExit(P.F, P.Main);
}

TEST(CpuFiber, PingPongKeepsFloatingPointControlPerContext) {
  FiberStack Stack = StackPool::global().acquire();
  EXPECT_EQ(Stack.Size, fiberStackSize());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(Stack.Base) % 4096, 0u);
  ASSERT_EQ(std::fegetround(), FE_TONEAREST);
  PingPong P;
  fiberInit(P.F, Stack, &pingPongFiber, &P);
  for (int I = 0; I < 1000; ++I) {
    fiberSwitch(P.Main, P.F);
    ASSERT_EQ(P.Counter, I + 1);
    ASSERT_EQ(std::fegetround(), FE_TONEAREST) << "fiber's MXCSR/FPCR leaked";
  }
  fiberSwitch(P.Main, P.F); // lets the fiber finish its loop and exit
  EXPECT_TRUE(P.FiberSawOwnRounding);
  EXPECT_EQ(std::fegetround(), FE_TONEAREST);
  StackPool::global().release(Stack);
  std::printf("[ fiber backend: %s, stack %zu KiB ]\n", fiberBackend(),
              fiberStackSize() / 1024);
}

// Many values live across each switch, on both sides: with optimization
// they sit in callee-saved registers (rbx, r12-r15 / x19-x28, d8-d15), which
// the switch must preserve per context.  Each chain runs once without
// switching for the expected value.
struct Registers {
  FiberContext Main, F;
  double FiberResult = 0;
};

// Runs on the main context; switches into the fiber on even rounds.
double mainChain(Registers *R) {
  double A = 3, B = 6, C = 9, D = 15, E = 21, G = 33, H = 39, K = 51, M = 57;
  uint64_t I = 4, J = 12, L = 20, N = 28, P = 36; // wrap, no UB
  for (int Round = 0; Round < 50; ++Round) {
    if (R && Round % 2 == 0)
      fiberSwitch(R->Main, R->F);
    A = A * 0.5 + B;
    B = B * 0.25 + C;
    C = C * 0.125 + D;
    D = D * 0.5 + E;
    E = E * 0.25 + G;
    G = G * 0.125 + H;
    H = H * 0.5 + K;
    K = K * 0.25 + M;
    M = M * 0.125 + A;
    I = I * 3 + J;
    J = J * 5 + L;
    L = L * 7 + N;
    N = N * 9 + P;
    P = P * 11 + I;
  }
  return A + B + C + D + E + G + H + K + M + double(I ^ J ^ L ^ N ^ P);
}

// Runs on the fiber; switches back to main at the start of every round.
double fiberChain(Registers *R) {
  double A = 101, B = 103, C = 107, D = 109, E = 113, G = 127;
  uint64_t I = 131, J = 137, L = 139;
  for (int Round = 0; Round < 25; ++Round) {
    if (R)
      fiberSwitch(R->F, R->Main);
    A += B * 0.5;
    B += C * 0.25;
    C += D * 0.125;
    D += E * 0.5;
    E += G * 0.25;
    G += A * 0.125;
    I = I * 3 + J;
    J = J * 5 + L;
    L = L * 7 + I;
  }
  return A + B + C + D + E + G + double(I ^ J ^ L);
}

void registersFiber(void *Arg) {
  auto &R = *static_cast<Registers *>(Arg);
  R.FiberResult = fiberChain(&R);
  fiberExit(R.F, R.Main);
}

TEST(CpuFiber, CalleeSavedRegistersSurviveSwitches) {
  FiberStack Stack = StackPool::global().acquire();
  Registers R;
  fiberInit(R.F, Stack, &registersFiber, &R);
  EXPECT_EQ(mainChain(&R), mainChain(nullptr)); // 25 switches in and out
  fiberSwitch(R.Main, R.F); // the fiber's last round; then it exits
  EXPECT_EQ(R.FiberResult, fiberChain(nullptr));
  StackPool::global().release(Stack);
}

TEST(CpuFiber, StackHasGuardPageBelow) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  FiberStack Stack = StackPool::global().acquire();
  Stack.Base[0] = 1; // the usable range is writable
  Stack.Base[Stack.Size - 1] = 1;
  EXPECT_DEATH(
      {
        volatile char *Below = Stack.Base - 1;
        *Below = 1;
      },
      "");
  StackPool::global().release(Stack);
}

// ==== fast path ==============================================================

// out[i] = a * x[i] + y[i], grid-stride loop.
void saxpyKernel(void **Args, pcj_thread_ctx *C) {
  int32_t N = arg<int32_t>(Args, 0);
  float A = arg<float>(Args, 1);
  const float *X = arg<const float *>(Args, 2);
  const float *Y = arg<const float *>(Args, 3);
  float *Out = arg<float *>(Args, 4);
  int64_t Stride = int64_t(C->ntid[0]) * C->nctaid[0];
  for (int64_t I = int64_t(C->ctaid[0]) * C->ntid[0] + C->tid[0]; I < N;
       I += Stride)
    Out[I] = A * X[I] + Y[I];
}

struct SaxpyCase {
  int32_t N;
  float A;
  std::vector<float> X, Y, Out;
  explicit SaxpyCase(int32_t Size, unsigned Seed) : N(Size) {
    std::mt19937 Rng(Seed);
    std::uniform_real_distribution<float> D(-10.f, 10.f);
    A = D(Rng);
    X.resize(N);
    Y.resize(N);
    for (int32_t I = 0; I < N; ++I) {
      X[I] = D(Rng);
      Y[I] = D(Rng);
    }
    Out.assign(N, std::numeric_limits<float>::quiet_NaN());
  }
  void run(Dims Grid, Dims Block) {
    const float *XP = X.data(), *YP = Y.data();
    float *OP = Out.data();
    void *Args[] = {&N, &A, &XP, &YP, &OP};
    launch(kernel(&saxpyKernel, "saxpy", false, false), Grid, Block, 0, Args);
  }
  int mismatches() const {
    int Bad = 0;
    for (int32_t I = 0; I < N; ++I) {
      float Expect = A * X[I] + Y[I];
      if (!(std::fabs(Out[I] - Expect) <= 1e-5f * (1 + std::fabs(Expect))))
        ++Bad;
    }
    return Bad;
  }
};

TEST(CpuExecutor, SaxpyGridStrideFastPath) {
  SaxpyCase S(100003, 1);
  S.run(Dims{13}, Dims{96});
  EXPECT_EQ(S.mismatches(), 0);
  EXPECT_GE(executorThreads(), 1u);
}

TEST(CpuExecutor, InvalidConfigurationIsRejected) {
  SaxpyCase S(10, 2);
  EXPECT_THROW(S.run(Dims{1}, Dims{1025}), std::invalid_argument);
  EXPECT_THROW(S.run(Dims{1}, Dims{32, 32, 2}), std::invalid_argument);
  EXPECT_THROW(S.run(Dims{0}, Dims{32}), std::invalid_argument);
  EXPECT_THROW(S.run(Dims{1, 65536}, Dims{32}), std::invalid_argument);
  EXPECT_THROW(S.run(Dims{1}, Dims{1, 1, 65}), std::invalid_argument);
  S.run(Dims{1}, Dims{1, 1, 10}); // ten threads with x == 0 write the same
  EXPECT_EQ(S.mismatches(), 0);
}

// ==== barriers and shared memory =============================================

constexpr uint32_t kReduceBlock = 256;

// Block-wide tree reduction of int64 values in static shared memory.
void reduceKernel(void **Args, pcj_thread_ctx *C) {
  int32_t N = arg<int32_t>(Args, 0);
  const int32_t *In = arg<const int32_t *>(Args, 1);
  int64_t *BlockSums = arg<int64_t *>(Args, 2);
  auto *S = reinterpret_cast<int64_t *>(C->shared);
  uint32_t T = C->tid[0];
  int64_t I = int64_t(C->ctaid[0]) * C->ntid[0] + T;
  S[T] = I < N ? In[I] : 0;
  pcj_cpu_syncthreads(C, 10, 10);
  for (uint32_t Step = C->ntid[0] / 2; Step > 0; Step /= 2) {
    if (T < Step)
      S[T] += S[T + Step];
    pcj_cpu_syncthreads(C, 13, 13);
  }
  if (T == 0)
    BlockSums[C->ctaid[0]] = S[0];
}

struct ReduceCase {
  int32_t N;
  uint32_t Blocks;
  std::vector<int32_t> In;
  std::vector<int64_t> Sums;
  ReduceCase(int32_t Size, unsigned Seed) : N(Size) {
    Blocks = (N + kReduceBlock - 1) / kReduceBlock;
    std::mt19937 Rng(Seed);
    std::uniform_int_distribution<int32_t> D(-100000, 100000);
    In.resize(N);
    for (auto &V : In)
      V = D(Rng);
    Sums.assign(Blocks, INT64_MIN);
  }
  void run() {
    const int32_t *IP = In.data();
    int64_t *SP = Sums.data();
    void *Args[] = {&N, &IP, &SP};
    launch(kernel(&reduceKernel, "reduce", true, false,
                  kReduceBlock * sizeof(int64_t)),
           Dims{Blocks}, Dims{kReduceBlock}, 0, Args);
  }
  bool correct() const {
    int64_t Total = 0, Serial = 0;
    for (uint32_t B = 0; B < Blocks; ++B) {
      int64_t Expect = 0;
      for (uint32_t T = 0; T < kReduceBlock; ++T)
        if (B * kReduceBlock + T < uint32_t(N))
          Expect += In[B * kReduceBlock + T];
      if (Sums[B] != Expect)
        return false;
      Total += Sums[B];
    }
    for (int32_t V : In)
      Serial += V;
    return Total == Serial;
  }
};

TEST(CpuExecutor, SharedMemoryTreeReduction) {
  ReduceCase R(37 * 256 - 100, 3);
  R.run();
  EXPECT_TRUE(R.correct());
}

// Reverses each block's chunk through dynamic shared memory; thread 0 also
// checks the static/dynamic layout.
void reverseKernel(void **Args, pcj_thread_ctx *C) {
  const float *In = arg<const float *>(Args, 0);
  float *Out = arg<float *>(Args, 1);
  int32_t *Layout = arg<int32_t *>(Args, 2);
  uint32_t N = C->ntid[0];
  uint32_t T = C->tid[0];
  uint64_t Base = uint64_t(C->ctaid[0]) * N;
  auto *S = reinterpret_cast<float *>(C->dynShared);
  S[T] = In[Base + T];
  if (T == 0) {
    std::memset(C->shared, 0x11, 12); // the 12 static bytes
    Layout[C->ctaid[0]] =
        int32_t(C->dynShared - C->shared) * 100 +
        int32_t(reinterpret_cast<uintptr_t>(C->shared) % 16) * 10 +
        int32_t(reinterpret_cast<uintptr_t>(C->dynShared) % 16);
  }
  pcj_cpu_syncthreads(C, 7, 7);
  Out[Base + T] = S[N - 1 - T];
}

TEST(CpuExecutor, ThreadsReadEachOthersSharedWritesAfterBarrier) {
  constexpr uint32_t Block = 200, Grid = 6;
  std::mt19937 Rng(4);
  std::uniform_real_distribution<float> D(-1.f, 1.f);
  std::vector<float> In(Block * Grid), Out(Block * Grid, NAN);
  for (auto &V : In)
    V = D(Rng);
  std::vector<int32_t> Layout(Grid, -1);
  const float *IP = In.data();
  float *OP = Out.data();
  int32_t *LP = Layout.data();
  void *Args[] = {&IP, &OP, &LP};
  launch(kernel(&reverseKernel, "reverse", true, false, 12), Dims{Grid},
         Dims{Block}, Block * sizeof(float), Args);
  for (uint32_t B = 0; B < Grid; ++B) {
    EXPECT_EQ(Layout[B], 1600); // dynShared = shared + 16, both aligned
    for (uint32_t T = 0; T < Block; ++T)
      ASSERT_EQ(Out[B * Block + T], In[B * Block + Block - 1 - T]);
  }
}

// Every shared byte a block sees before writing holds the poison pattern.
void poisonKernel(void **Args, pcj_thread_ctx *C) {
  int32_t *Bad = arg<int32_t *>(Args, 0);
  size_t Bytes = arg<size_t>(Args, 1);
  uint32_t T = linearTid(C);
  for (size_t I = T; I < Bytes; I += blockThreads(C))
    if (static_cast<unsigned char>(C->shared[I]) != kSharedPoisonByte)
      Bad[C->ctaid[0]] = 1;
  pcj_cpu_syncthreads(C, 1, 1);
  for (size_t I = T; I < Bytes; I += blockThreads(C))
    C->shared[I] = 0; // the next block must see the pattern again
}

TEST(CpuExecutor, SharedMemoryIsPoisonedForEveryBlock) {
  std::vector<int32_t> Bad(20, 0);
  int32_t *BP = Bad.data();
  size_t Bytes = 4096 + 100;
  void *Args[] = {&BP, &Bytes};
  launch(kernel(&poisonKernel, "poison", true, false, 4096), Dims{20}, Dims{64},
         100, Args);
  EXPECT_EQ(std::count(Bad.begin(), Bad.end(), 1), 0);
}

constexpr int kRounds = 5;

// syncthreads_count/and/or with a different predicate every round.
bool roundPred(uint32_t T, int Round) {
  switch (Round) {
  case 0:
    return T % 3 == 0;
  case 1:
    return T == 77;
  case 2:
    return true;
  case 3:
    return false;
  default:
    return T >= 100;
  }
}

void countAndOrKernel(void **Args, pcj_thread_ctx *C) {
  int32_t *Out = arg<int32_t *>(Args, 0);
  uint32_t T = C->tid[0];
  uint64_t G = uint64_t(C->ctaid[0]) * C->ntid[0] + T;
  for (int R = 0; R < kRounds; ++R) {
    int32_t P = roundPred(T, R);
    int32_t *O = Out + (G * kRounds + R) * 3;
    O[0] = pcj_cpu_syncthreads_count(C, P, 20, 20);
    O[1] = pcj_cpu_syncthreads_and(C, P, 21, 21);
    O[2] = pcj_cpu_syncthreads_or(C, P, 22, 22);
  }
}

TEST(CpuExecutor, SyncthreadsCountAndOr) {
  constexpr uint32_t Block = 160, Grid = 3;
  std::vector<int32_t> Out(Block * Grid * kRounds * 3, -7);
  int32_t *OP = Out.data();
  void *Args[] = {&OP};
  launch(kernel(&countAndOrKernel, "count", true, false), Dims{Grid},
         Dims{Block}, 0, Args);
  for (int R = 0; R < kRounds; ++R) {
    int32_t Count = 0;
    for (uint32_t T = 0; T < Block; ++T)
      Count += roundPred(T, R);
    for (uint32_t G = 0; G < Block * Grid; ++G) {
      const int32_t *O = &Out[(G * kRounds + R) * 3];
      ASSERT_EQ(O[0], Count) << "round " << R << " thread " << G;
      ASSERT_EQ(O[1], Count == int32_t(Block));
      ASSERT_EQ(O[2], Count != 0);
    }
  }
}

// 1024 threads rotate values through shared memory, two barriers a round.
void rotateKernel(void **Args, pcj_thread_ctx *C) {
  int32_t *Out = arg<int32_t *>(Args, 0);
  int32_t Rounds = arg<int32_t>(Args, 1);
  auto *S = reinterpret_cast<int32_t *>(C->shared);
  uint32_t N = C->ntid[0], T = C->tid[0];
  int32_t V = int32_t(T * 7 + C->ctaid[0]);
  for (int32_t R = 0; R < Rounds; ++R) {
    S[T] = V;
    pcj_cpu_syncthreads(C, 30, 30);
    V = S[(T + 1) % N] + int32_t(T % 5);
    pcj_cpu_syncthreads(C, 32, 32);
  }
  Out[C->ctaid[0] * N + T] = V;
}

TEST(CpuExecutor, Block1024WithBarriers) {
  constexpr uint32_t N = 1024, Grid = 3;
  int32_t Rounds = 40;
  std::vector<int32_t> Out(N * Grid, -1);
  int32_t *OP = Out.data();
  void *Args[] = {&OP, &Rounds};
  launch(kernel(&rotateKernel, "rotate", true, false, N * 4), Dims{Grid},
         Dims{N}, 0, Args);
  for (uint32_t B = 0; B < Grid; ++B) {
    std::vector<int32_t> V(N), Next(N);
    for (uint32_t T = 0; T < N; ++T)
      V[T] = int32_t(T * 7 + B);
    for (int32_t R = 0; R < Rounds; ++R) {
      for (uint32_t T = 0; T < N; ++T)
        Next[T] = V[(T + 1) % N] + int32_t(T % 5);
      V.swap(Next);
    }
    for (uint32_t T = 0; T < N; ++T)
      ASSERT_EQ(Out[B * N + T], V[T]) << "block " << B << " thread " << T;
  }
}

// ==== deadlock ===============================================================

// Threads >= Cut return; the rest wait at a barrier at line 42 (< 32) or
// line 57 (others): barriers at different call sites never meet.
void halfReturnKernel(void **Args, pcj_thread_ctx *C) {
  uint32_t Cut = arg<uint32_t>(Args, 0);
  uint32_t T = C->tid[0];
  if (T >= Cut)
    return;
  if (T < 32)
    pcj_cpu_syncthreads(C, 42, 42);
  else
    pcj_cpu_syncthreads(C, 57, 57);
}

TEST(CpuExecutor, BarriersAtDifferentSitesAreDeadlock) {
  uint32_t Cut = 64;
  void *Args[] = {&Cut};
  auto F = launchExpectingFault(kernel(&halfReturnKernel, "half", true, false),
                                Dims{4}, Dims{128}, 0, Args);
  ASSERT_TRUE(F.has_value());
  EXPECT_EQ(F->kind(), KernelFault::Kind::Sync);
  std::string M = F->what();
  EXPECT_NE(M.find("kernel 'half'"), std::string::npos) << M;
  EXPECT_NE(M.find("64 of 128 threads wait at different syncthreads"),
            std::string::npos)
      << M;
  EXPECT_NE(M.find("line 42: 32 threads, line 57: 32 threads"),
            std::string::npos)
      << M;
  EXPECT_NE(M.find("64 threads exited"), std::string::npos) << M;
  EXPECT_NE(M.find("block (" + std::to_string(F->block().x) + ", 0, 0)"),
            std::string::npos)
      << M;
  EXPECT_LT(F->block().x, 4u);

  // The executor is healthy afterwards.
  ReduceCase R(5000, 5);
  R.run();
  EXPECT_TRUE(R.correct());
}

// Threads >= Live[block] return at once, odd ones after the second
// barrier: exited threads count as arrived and contribute no predicate.
void exitThenBarrierKernel(void **Args, pcj_thread_ctx *C) {
  const uint32_t *Live = arg<const uint32_t *>(Args, 0);
  int32_t *Out = arg<int32_t *>(Args, 1);
  uint32_t T = C->tid[0];
  if (T >= Live[C->ctaid[0]])
    return;
  int32_t *O = Out + (C->ctaid[0] * C->ntid[0] + T) * 3;
  O[0] = pcj_cpu_syncthreads_count(C, T % 3 == 0, 1, 10);
  O[1] = pcj_cpu_syncthreads_and(C, T < 1000, 2, 11);
  if (T % 2)
    return;
  O[2] = pcj_cpu_syncthreads_or(C, T == 2, 3, 12);
}

TEST(CpuExecutor, ExitedThreadsCountAsArrivedAtBarriers) {
  constexpr uint32_t Block = 100, Grid = 4;
  std::vector<uint32_t> Live = {100, 37, 1, 3};
  std::vector<int32_t> Out(Block * Grid * 3, -7);
  const uint32_t *LP = Live.data();
  int32_t *OP = Out.data();
  void *Args[] = {&LP, &OP};
  launch(kernel(&exitThenBarrierKernel, "exits", true, false), Dims{Grid},
         Dims{Block}, 0, Args);
  for (uint32_t B = 0; B < Grid; ++B) {
    int32_t Count = int32_t((Live[B] + 2) / 3);
    for (uint32_t T = 0; T < Block; ++T) {
      const int32_t *O = &Out[(B * Block + T) * 3];
      if (T >= Live[B]) {
        EXPECT_EQ(O[0], -7);
        continue;
      }
      EXPECT_EQ(O[0], Count) << B << " " << T;
      EXPECT_EQ(O[1], 1) << B << " " << T;
      EXPECT_EQ(O[2], T % 2 ? -7 : int32_t(Live[B] > 2)) << B << " " << T;
    }
  }
}

// Lanes with L % 4 == 3 return; the others call activemask at one of three
// call sites by lane range: each group gets its live lanes as the mask.
void activemaskGroupsKernel(void **Args, pcj_thread_ctx *C) {
  uint32_t *Out = arg<uint32_t *>(Args, 0);
  uint32_t T = linearTid(C), L = C->laneid;
  if (L % 4 == 3)
    return;
  if (L < 10)
    Out[T] = pcj_cpu_activemask(C, 1);
  else if (L < 20)
    Out[T] = pcj_cpu_activemask(C, 2);
  else
    Out[T] = pcj_cpu_activemask(C, 3);
}

TEST(CpuExecutor, ActivemaskGroupsLanesBySite) {
  constexpr uint32_t Block = 90; // warp 2 has 26 lanes
  std::vector<uint32_t> Out(Block, 0xdeadbeef);
  uint32_t *OP = Out.data();
  void *Args[] = {&OP};
  launch(kernel(&activemaskGroupsKernel, "am", false, true), Dims{2},
         Dims{Block}, 0, Args);
  for (uint32_t T = 0; T < Block; ++T) {
    uint32_t L = T % 32, Lanes = std::min<uint32_t>(32, Block - T / 32 * 32);
    if (L % 4 == 3) {
      EXPECT_EQ(Out[T], 0xdeadbeefu);
      continue;
    }
    uint32_t Lo = L < 10 ? 0 : L < 20 ? 10 : 20;
    uint32_t Hi = std::min(L < 10 ? 10u : L < 20 ? 20u : 32u, Lanes);
    uint32_t Expect = 0;
    for (uint32_t K = Lo; K < Hi; ++K)
      if (K % 4 != 3)
        Expect |= 1u << K;
    EXPECT_EQ(Out[T], Expect) << T;
  }
}

// Lane `Quit` of warp 1 returns; every other thread shuffles with a full mask.
void warpQuitKernel(void **Args, pcj_thread_ctx *C) {
  uint32_t Quit = arg<uint32_t>(Args, 0);
  if (C->warpid == 1 && C->laneid == Quit)
    return;
  pcj_cpu_shfl_sync(C, kFull, C->laneid, 2, 1, 32);
}

TEST(CpuExecutor, WarpOpWithExitedLaneIsDeadlock) {
  const KernelInfo K = kernel(&warpQuitKernel, "quit", false, true);
  // Lanes 0-4 already wait when lane 5 exits.
  uint32_t Quit = 5;
  void *Args[] = {&Quit};
  auto F = launchExpectingFault(K, Dims{1}, Dims{64}, 0, Args);
  ASSERT_TRUE(F.has_value());
  EXPECT_EQ(F->kind(), KernelFault::Kind::Sync);
  std::string M = F->what();
  EXPECT_NE(M.find("thread (37, 0, 0) (warp 1 lane 5) exited while lanes 0-4 "
                   "of warp 1 wait for it in shfl_down_sync(mask=0xffffffff)"),
            std::string::npos)
      << M;
  EXPECT_EQ(F->thread().x, 32u);
  // Lane 0 exits before anyone arrives.
  Quit = 0;
  F = launchExpectingFault(K, Dims{1}, Dims{64}, 0, Args);
  ASSERT_TRUE(F.has_value());
  EXPECT_EQ(F->kind(), KernelFault::Kind::Sync);
  M = F->what();
  EXPECT_NE(M.find("(warp 1 lane 1) calls shfl_down_sync(mask=0xffffffff) but "
                   "lane 0 named in the mask already exited"),
            std::string::npos)
      << M;
}

// Lanes 0-15 shuffle with mask Lower and lanes 16-31 with Upper.
void maskKernel(void **Args, pcj_thread_ctx *C) {
  uint32_t Lower = arg<uint32_t>(Args, 0);
  uint32_t Upper = arg<uint32_t>(Args, 1);
  uint32_t *Out = arg<uint32_t *>(Args, 2);
  uint32_t L = C->laneid;
  uint32_t Mask = L < 16 ? Lower : Upper;
  Out[linearTid(C)] =
      uint32_t(pcj_cpu_shfl_sync(C, Mask, L * 10, 0, (L + 1) % 16, 16));
}

TEST(CpuExecutor, WarpMasksMustMatch) {
  const KernelInfo K = kernel(&maskKernel, "mask", false, true);
  std::vector<uint32_t> Out(32, 0xdead);
  uint32_t *OP = Out.data();
  // Disjoint halves run as two independent groups.
  uint32_t Lower = 0x0000ffffu, Upper = 0xffff0000u;
  void *Args[] = {&Lower, &Upper, &OP};
  launch(K, Dims{1}, Dims{32}, 0, Args);
  for (uint32_t L = 0; L < 32; ++L)
    EXPECT_EQ(Out[L], ((L & ~15u) + (L + 1) % 16) * 10) << L;
  // Lanes 0-15 wait naming lane 16, which arrives with another mask.
  Lower = 0x0001ffffu;
  auto F = launchExpectingFault(K, Dims{1}, Dims{32}, 0, Args);
  ASSERT_TRUE(F.has_value());
  EXPECT_EQ(F->kind(), KernelFault::Kind::Sync);
  EXPECT_NE(std::string(F->what()).find(
                "warp operation mismatch in kernel 'mask', block (0, 0, "
                "0): thread (16, 0, 0) (warp 0 lane 16) calls "
                "shfl_sync(mask=0xffff0000) while lane 0 waits in "
                "shfl_sync(mask=0x0001ffff)"),
            std::string::npos)
      << F->what();
  // Lanes 16-31 name lanes 0-15, which complete their own group and exit
  // (lane 15, which completes it, runs on and exits first).
  Lower = 0x0000ffffu;
  Upper = kFull;
  F = launchExpectingFault(K, Dims{1}, Dims{32}, 0, Args);
  ASSERT_TRUE(F.has_value());
  EXPECT_EQ(F->kind(), KernelFault::Kind::Sync);
  EXPECT_NE(std::string(F->what()).find("calls shfl_sync(mask=0xffffffff) but "
                                        "lane 15 named in the mask already "
                                        "exited"),
            std::string::npos)
      << F->what();
  // A mask without the calling lane.
  Upper = 0x0000ff00u;
  F = launchExpectingFault(K, Dims{1}, Dims{32}, 0, Args);
  ASSERT_TRUE(F.has_value());
  EXPECT_NE(std::string(F->what()).find("does not name the calling lane"),
            std::string::npos)
      << F->what();
}

// A barrier in a kernel declared without barriers is an internal error, not
// a hang or a silent race.
void undeclaredBarrierKernel(void **Args, pcj_thread_ctx *C) {
  pcj_cpu_syncthreads(C, 3, 3);
}

TEST(CpuExecutor, BarrierOnFastPathIsReported) {
  auto F = launchExpectingFault(
      kernel(&undeclaredBarrierKernel, "undeclared", false, false), Dims{2},
      Dims{8}, 0, nullptr);
  ASSERT_TRUE(F.has_value());
  EXPECT_EQ(F->kind(), KernelFault::Kind::Raised);
  EXPECT_NE(std::string(F->what()).find("usesBarriers"), std::string::npos);
  // One thread per block needs no fibers.
  launch(kernel(&undeclaredBarrierKernel, "undeclared", false, false), Dims{2},
         Dims{1}, 0, nullptr);
}

// ==== warp operations ========================================================

// Warp sums with shfl_down (lane 0 holds it) and shfl_xor (every lane does),
// for int32 and for doubles passed as 64-bit patterns.
void warpReduceKernel(void **Args, pcj_thread_ctx *C) {
  const int32_t *In = arg<const int32_t *>(Args, 0);
  int32_t *DownSums = arg<int32_t *>(Args, 1);
  int32_t *XorSums = arg<int32_t *>(Args, 2);
  double *XorDoubles = arg<double *>(Args, 3);
  uint64_t G = uint64_t(C->ctaid[0]) * C->ntid[0] + C->tid[0];
  int32_t V = In[G];
  for (int32_t Off = 16; Off > 0; Off /= 2)
    V += int32_t(pcj_cpu_shfl_sync(C, kFull, uint32_t(V), 2, Off, 32));
  if (C->laneid == 0)
    DownSums[G / 32] = V;
  int32_t W = In[G];
  double D = In[G] * 0.001;
  for (int32_t Off = 1; Off < 32; Off *= 2) {
    W += int32_t(pcj_cpu_shfl_sync(C, kFull, uint32_t(W), 3, Off, 32));
    uint64_t Other =
        pcj_cpu_shfl_sync(C, kFull, std::bit_cast<uint64_t>(D), 3, Off, 32);
    D += std::bit_cast<double>(Other);
  }
  XorSums[G] = W;
  XorDoubles[G] = D;
}

TEST(CpuExecutor, WarpShuffleReductions) {
  constexpr uint32_t Block = 256, Grid = 3, N = Block * Grid;
  std::mt19937 Rng(6);
  std::uniform_int_distribution<int32_t> Dist(-1000, 1000);
  std::vector<int32_t> In(N), Down(N / 32, -1), Xor(N, -1);
  std::vector<double> XorD(N, NAN);
  for (auto &V : In)
    V = Dist(Rng);
  const int32_t *IP = In.data();
  int32_t *DP = Down.data(), *XP = Xor.data();
  double *XD = XorD.data();
  void *Args[] = {&IP, &DP, &XP, &XD};
  launch(kernel(&warpReduceKernel, "warpsum", false, true), Dims{Grid},
         Dims{Block}, 0, Args);
  for (uint32_t W = 0; W < N / 32; ++W) {
    int32_t Sum = 0;
    double Lanes[32];
    for (uint32_t L = 0; L < 32; ++L) {
      Sum += In[W * 32 + L];
      Lanes[L] = In[W * 32 + L] * 0.001;
    }
    for (uint32_t Off = 1; Off < 32; Off *= 2) { // butterfly, same order
      double Next[32];
      for (uint32_t L = 0; L < 32; ++L)
        Next[L] = Lanes[L] + Lanes[L ^ Off];
      std::copy(Next, Next + 32, Lanes);
    }
    EXPECT_EQ(Down[W], Sum);
    for (uint32_t L = 0; L < 32; ++L) {
      ASSERT_EQ(Xor[W * 32 + L], Sum);
      ASSERT_EQ(std::bit_cast<uint64_t>(XorD[W * 32 + L]),
                std::bit_cast<uint64_t>(Lanes[L]));
    }
  }
}

struct ShflCall {
  int32_t Mode, Lane, Width;
};
const ShflCall kShflCalls[] = {
    {0, 3, 8},   {0, 13, 8}, {0, -1, 16}, {0, 40, 32}, {1, 1, 8},   {1, 5, 16},
    {1, 0, 4},   {2, 1, 8},  {2, 7, 8},   {2, 3, 16},  {3, 1, 8},   {3, 12, 8},
    {3, 31, 16}, {3, 5, 4},  {3, 16, 32}, {2, 20, 32}, {1, 31, 32}, {0, 5, 1},
};
constexpr int kNumShfl = sizeof(kShflCalls) / sizeof(kShflCalls[0]);

void shflWidthKernel(void **Args, pcj_thread_ctx *C) {
  uint64_t *Out = arg<uint64_t *>(Args, 0);
  uint32_t T = linearTid(C);
  for (int I = 0; I < kNumShfl; ++I) {
    uint64_t V =
        (uint64_t(I + 1) << 40) | (uint64_t(C->warpid) << 20) | C->laneid;
    Out[T * kNumShfl + I] =
        pcj_cpu_shfl_sync(C, kFull, V, kShflCalls[I].Mode, kShflCalls[I].Lane,
                          kShflCalls[I].Width);
  }
}

// The CUDA Programming Guide's description of width, independently of the
// PTX formula the runtime uses.
uint32_t referenceSource(uint32_t Lane, const ShflCall &S) {
  int32_t W = S.Width;
  int32_t Seg = int32_t(Lane) / W * W;
  int32_t InSeg = int32_t(Lane) % W;
  switch (S.Mode) {
  case 0:
    return uint32_t(Seg + (S.Lane & (W - 1)));
  case 1:
    return InSeg >= S.Lane ? Lane - uint32_t(S.Lane) : Lane;
  case 2:
    return InSeg + S.Lane < W ? Lane + uint32_t(S.Lane) : Lane;
  default: {
    int32_t Src = int32_t(Lane) ^ S.Lane; // earlier segments are reachable
    return Src < Seg + W ? uint32_t(Src) : Lane;
  }
  }
}

TEST(CpuExecutor, ShuffleModesWithSubWarpWidths) {
  constexpr uint32_t Block = 64;
  std::vector<uint64_t> Out(Block * kNumShfl, ~0ull);
  uint64_t *OP = Out.data();
  void *Args[] = {&OP};
  launch(kernel(&shflWidthKernel, "shfl", false, true), Dims{1}, Dims{Block}, 0,
         Args);
  for (uint32_t T = 0; T < Block; ++T) {
    for (int I = 0; I < kNumShfl; ++I) {
      uint32_t Src = referenceSource(T % 32, kShflCalls[I]);
      uint64_t Expect =
          (uint64_t(I + 1) << 40) | (uint64_t(T / 32) << 20) | Src;
      ASSERT_EQ(Out[T * kNumShfl + I], Expect)
          << "thread " << T << " mode " << kShflCalls[I].Mode << " lane "
          << kShflCalls[I].Lane << " width " << kShflCalls[I].Width;
    }
  }
}

// Votes over a random predicate; the block's last warp is partial (16 lanes)
// and still passes a full mask, as CUDA code does.
void voteKernel(void **Args, pcj_thread_ctx *C) {
  const int32_t *Pred = arg<const int32_t *>(Args, 0);
  uint32_t *Out = arg<uint32_t *>(Args, 1);
  uint32_t T = linearTid(C);
  int32_t P = Pred[T];
  // activemask = lanes not exited; before the first vote none can have.
  Out[T * 5 + 4] = pcj_cpu_activemask(C, 100);
  for (int32_t Mode = 0; Mode < 4; ++Mode)
    Out[T * 5 + Mode] = pcj_cpu_vote_sync(C, kFull, P, Mode);
}

TEST(CpuExecutor, VoteBallotAnyAllUni) {
  constexpr uint32_t Block = 80;
  std::mt19937 Rng(7);
  std::vector<int32_t> Pred(Block);
  for (uint32_t T = 0; T < Block; ++T)
    Pred[T] = Rng() % 2 ? int32_t(Rng() % 100) : 0;
  for (uint32_t T = 32; T < 64; ++T) // warp 1: all true (all/uni hold)
    Pred[T] = 3;
  std::vector<uint32_t> Out(Block * 5, 0xdeadbeef);
  const int32_t *PP = Pred.data();
  uint32_t *OP = Out.data();
  void *Args[] = {&PP, &OP};
  launch(kernel(&voteKernel, "vote", false, true), Dims{1}, Dims{Block}, 0,
         Args);
  for (uint32_t W = 0; W < 3; ++W) {
    uint32_t Exists = W == 2 ? 0xffffu : kFull;
    uint32_t Ballot = 0;
    for (uint32_t L = 0; L < 32 && W * 32 + L < Block; ++L)
      if (Pred[W * 32 + L])
        Ballot |= 1u << L;
    for (uint32_t L = 0; L < 32 && W * 32 + L < Block; ++L) {
      const uint32_t *O = &Out[(W * 32 + L) * 5];
      EXPECT_EQ(O[0], uint32_t(Ballot == Exists)) << "all, warp " << W;
      EXPECT_EQ(O[1], uint32_t(Ballot != 0)) << "any, warp " << W;
      EXPECT_EQ(O[2], uint32_t(Ballot == 0 || Ballot == Exists)) << "uni";
      EXPECT_EQ(O[3], Ballot) << "ballot, warp " << W;
      EXPECT_EQ(O[4], Exists) << "activemask, warp " << W;
    }
  }
  EXPECT_EQ(Out[32 * 5 + 0], 1u); // the all-true warp
}

void matchKernel(void **Args, pcj_thread_ctx *C) {
  const uint64_t *Val = arg<const uint64_t *>(Args, 0);
  uint32_t *Out = arg<uint32_t *>(Args, 1);
  uint32_t T = linearTid(C);
  Out[T * 4] = pcj_cpu_match_any_sync(C, kFull, Val[T]);
  int32_t Pred = -1;
  Out[T * 4 + 1] = pcj_cpu_match_all_sync(C, kFull, Val[T], &Pred);
  Out[T * 4 + 2] = uint32_t(Pred);
  // Warp-uniform value: match_all holds.
  int32_t Pred2 = -1;
  uint32_t All =
      pcj_cpu_match_all_sync(C, kFull, C->warpid + (1ull << 40), &Pred2);
  Out[T * 4 + 3] = Pred2 == 1 ? All : 0xbad;
}

TEST(CpuExecutor, MatchAnyAndAll) {
  constexpr uint32_t Block = 96;
  std::mt19937_64 Rng(8);
  std::vector<uint64_t> Val(Block);
  for (auto &V : Val)
    V = (Rng() % 4) << 33; // equal in the low 32 bits: all 64 bits compare
  for (uint32_t T = 64; T < 96; ++T)
    Val[T] = 5; // warp 2 uniform
  std::vector<uint32_t> Out(Block * 4, 0xdeadbeef);
  const uint64_t *VP = Val.data();
  uint32_t *OP = Out.data();
  void *Args[] = {&VP, &OP};
  launch(kernel(&matchKernel, "match", false, true), Dims{1}, Dims{Block}, 0,
         Args);
  for (uint32_t T = 0; T < Block; ++T) {
    uint32_t W = T / 32;
    uint32_t Same = 0;
    bool AllEqual = true;
    for (uint32_t L = 0; L < 32; ++L) {
      if (Val[W * 32 + L] == Val[T])
        Same |= 1u << L;
      if (Val[W * 32 + L] != Val[W * 32])
        AllEqual = false;
    }
    EXPECT_EQ(Out[T * 4], Same) << T;
    EXPECT_EQ(Out[T * 4 + 1], AllEqual ? kFull : 0u) << T;
    EXPECT_EQ(Out[T * 4 + 2], uint32_t(AllEqual)) << T;
    EXPECT_EQ(Out[T * 4 + 3], kFull) << T;
  }
  EXPECT_EQ(Out[64 * 4 + 2], 1u);
}

// syncwarp on sub-masks and activemask once lanes have exited: the lanes
// that returned early are gone, the 16 that call activemask form the mask.
void syncwarpKernel(void **Args, pcj_thread_ctx *C) {
  uint32_t *Out = arg<uint32_t *>(Args, 0);
  int32_t *Shared = reinterpret_cast<int32_t *>(C->shared);
  uint32_t L = C->laneid, T = linearTid(C);
  pcj_cpu_syncwarp(C, kFull);
  if (L >= 16)
    return;
  Shared[T] = int32_t(T * 3);
  pcj_cpu_syncwarp(C, 0xffffu);
  uint32_t Neighbour = C->warpid * 32 + (L + 1) % 16;
  int32_t Got = Shared[Neighbour];
  pcj_cpu_syncwarp(C, 0xffffu);
  Out[T * 2] = uint32_t(Got);
  Out[T * 2 + 1] = pcj_cpu_activemask(C, 101);
}

TEST(CpuExecutor, SyncwarpAndActivemask) {
  std::vector<uint32_t> Out(64 * 2, 0xdeadbeef);
  uint32_t *OP = Out.data();
  void *Args[] = {&OP};
  launch(kernel(&syncwarpKernel, "syncwarp", false, true, 64 * 4), Dims{2},
         Dims{64}, 0, Args);
  for (uint32_t T = 0; T < 64; ++T) {
    if (T % 32 >= 16)
      continue;
    EXPECT_EQ(Out[T * 2], (T / 32 * 32 + (T % 32 + 1) % 16) * 3) << T;
    EXPECT_EQ(Out[T * 2 + 1], 0xffffu) << T;
  }
}

// ==== stopping a launch ======================================================

// Spins until X[0] != 0 (never), polling the stop word like every loop of
// generated code does; with barriers, also meets the block every round.
void spinKernel(void **Args, pcj_thread_ctx *C) {
  volatile int64_t *X = arg<int64_t *>(Args, 0);
  bool Barriers = arg<bool>(Args, 1);
  while (X[0] == 0) {
    if (__atomic_load_n(&pcj_cpu_stop_requests, __ATOMIC_RELAXED))
      pcj_cpu_poll();
    if (Barriers)
      pcj_cpu_syncthreads(C, 1, 1);
  }
}

TEST(CpuExecutor, TimeLimitStopsAnEndlessLaunch) {
  for (bool Fibers : {false, true}) {
    SCOPED_TRACE(Fibers ? "fibers" : "fast path");
    int64_t X[1] = {0};
    int64_t *XP = X;
    void *Args[] = {&XP, &Fibers};
    LaunchControl Ctl;
    Ctl.timeoutSeconds = 0.05;
    auto F = launchExpectingFault(kernel(&spinKernel, "spin", Fibers, false),
                                  Dims{8}, Dims{64}, 0, Args, Ctl);
    ASSERT_TRUE(F.has_value());
    EXPECT_EQ(F->kind(), KernelFault::Kind::Timeout);
    EXPECT_NE(std::string(F->what()).find("'spin' ran longer than its 0.05 s "
                                          "time limit"),
              std::string::npos)
        << F->what();
    EXPECT_EQ(pcj_cpu_stop_requests, 0u); // nothing left polling
    SaxpyCase S(1000, 3);
    S.run(Dims{4}, Dims{64});
    EXPECT_EQ(S.mismatches(), 0);
  }
}

volatile sig_atomic_t PreviousSigintRan = 0;
void previousSigint(int) { PreviousSigintRan = 1; }

TEST(CpuExecutor, SigintStopsAnInterruptibleLaunch) {
  struct sigaction Prev = {}, Saved;
  Prev.sa_handler = &previousSigint;
  sigemptyset(&Prev.sa_mask);
  ASSERT_EQ(sigaction(SIGINT, &Prev, &Saved), 0);
  PreviousSigintRan = 0;
  std::thread Sender([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    kill(getpid(), SIGINT);
  });
  bool Fibers = true;
  int64_t X[1] = {0};
  int64_t *XP = X;
  void *Args[] = {&XP, &Fibers};
  LaunchControl Ctl;
  Ctl.interruptible = true;
  auto F = launchExpectingFault(kernel(&spinKernel, "spin", true, false),
                                Dims{4}, Dims{32}, 0, Args, Ctl);
  Sender.join();
  ASSERT_TRUE(F.has_value());
  EXPECT_EQ(F->kind(), KernelFault::Kind::Interrupted);
  EXPECT_EQ(PreviousSigintRan, 1); // the handler before ours still ran
  struct sigaction Now;
  sigaction(SIGINT, nullptr, &Now);
  EXPECT_EQ(Now.sa_handler, &previousSigint); // restored after the launch
  EXPECT_EQ(pcj_cpu_stop_requests, 0u);
  sigaction(SIGINT, &Saved, nullptr);
}

// ==== errors =================================================================

const pcj_index_site kSite = {"k", "file.py", 12, 0};

// Thread (3,0,0) of block (1,0,0) indexes out of bounds; with barriers, the
// other threads are parked at a barrier when it fails.
void indexErrorKernel(void **Args, pcj_thread_ctx *C) {
  int32_t *Done = arg<int32_t *>(Args, 0);
  bool Fibers = arg<bool>(Args, 1);
  if (Fibers)
    pcj_cpu_syncthreads(C, 5, 5);
  if (C->ctaid[0] == 1 && C->tid[0] == 3) {
    const int64_t Index[2] = {2, 10}, Shape[2] = {4, 10};
    pcj_cpu_index_error(C, &kSite, Index, Shape, 2, 1);
  }
  if (Fibers)
    pcj_cpu_syncthreads(C, 6, 6);
  __atomic_fetch_add(&Done[C->ctaid[0]], 1, __ATOMIC_RELAXED);
}

TEST(CpuExecutor, IndexErrorReportsFirstErrorAndRecovers) {
  for (bool Fibers : {false, true}) {
    SCOPED_TRACE(Fibers ? "fibers" : "fast path");
    std::vector<int32_t> Done(64, 0);
    int32_t *DP = Done.data();
    void *Args[] = {&DP, &Fibers};
    auto F = launchExpectingFault(kernel(&indexErrorKernel, "k", Fibers, false),
                                  Dims{64}, Dims{32}, 0, Args);
    ASSERT_TRUE(F.has_value());
    EXPECT_EQ(F->kind(), KernelFault::Kind::IndexError);
    EXPECT_STREQ(F->what(), "index 10 is out of bounds for axis 1 with size 10 "
                            "(index (2, 10) into shape (4, 10)) in kernel 'k' "
                            "(file.py:12), thread (3, 0, 0) block (1, 0, 0)");
    EXPECT_EQ(F->file(), "file.py");
    EXPECT_EQ(F->line(), 12);
    EXPECT_EQ(F->thread().x, 3u);
    EXPECT_EQ(F->block().x, 1u);
    EXPECT_LT(Done[1], 32); // the failing block did not complete
    SaxpyCase S(1000, 9);
    S.run(Dims{4}, Dims{64});
    EXPECT_EQ(S.mismatches(), 0);
  }
}

// Checked-mode exceptions other than array bounds (pcj_cpu_error): thread
// (5,0,0) of block (2,0,0) divides by zero, and the launch reports the kind
// and the site.
const pcj_error_site kZeroDivSite = {"k", "file.py", "float division by zero",
                                     7, PCJ_ERROR_ZERO_DIVISION};
const pcj_error_site kTupleSite = {"k", "file.py", "tuple index out of range",
                                   9, PCJ_ERROR_INDEX};
const pcj_error_site kValueSite = {
    "k", "file.py", "range() arg 3 must not be zero", 11, PCJ_ERROR_VALUE};
const pcj_error_site kUnboundSite = {
    "k", "file.py", "local variable 'total' is read before it is assigned", 13,
    PCJ_ERROR_UNBOUND_LOCAL};

void raisedErrorKernel(void **Args, pcj_thread_ctx *C) {
  const pcj_error_site *Site = arg<const pcj_error_site *>(Args, 0);
  if (C->ctaid[0] == 2 && C->tid[0] == 5)
    pcj_cpu_error(C, Site);
}

TEST(CpuExecutor, CheckedModeErrorsReportKindAndSite) {
  struct Case {
    const pcj_error_site *Site;
    KernelFault::Kind Kind;
    const char *Message;
  } Cases[] = {
      {&kZeroDivSite, KernelFault::Kind::ZeroDivision,
       "float division by zero in kernel 'k' (file.py:7), thread (5, 0, 0) "
       "block (2, 0, 0)"},
      {&kTupleSite, KernelFault::Kind::IndexError,
       "tuple index out of range in kernel 'k' (file.py:9), thread (5, 0, 0) "
       "block (2, 0, 0)"},
      {&kValueSite, KernelFault::Kind::ValueError,
       "range() arg 3 must not be zero in kernel 'k' (file.py:11), thread "
       "(5, 0, 0) block (2, 0, 0)"},
      {&kUnboundSite, KernelFault::Kind::UnboundLocal,
       "local variable 'total' is read before it is assigned in kernel 'k' "
       "(file.py:13), thread (5, 0, 0) block (2, 0, 0)"},
  };
  for (const Case &K : Cases) {
    const pcj_error_site *Site = K.Site;
    void *Args[] = {&Site};
    auto F = launchExpectingFault(kernel(&raisedErrorKernel, "k", false, false),
                                  Dims{4}, Dims{32}, 0, Args);
    ASSERT_TRUE(F.has_value());
    EXPECT_EQ(F->kind(), K.Kind);
    EXPECT_STREQ(F->what(), K.Message);
    EXPECT_STREQ(kindName(F->kind()),
                 K.Kind == KernelFault::Kind::ZeroDivision ? "ZeroDivisionError"
                 : K.Kind == KernelFault::Kind::ValueError ? "ValueError"
                 : K.Kind == KernelFault::Kind::UnboundLocal
                     ? "UnboundLocalError"
                     : "IndexError");
  }
}

// Every thread of every block raises; only one error is reported.
void raiseKernel(void **Args, pcj_thread_ctx *C) {
  if (arg<bool>(Args, 0))
    pcj_cpu_syncthreads(C, 1, 1);
  pcj_cpu_raise(C, "ZeroDivisionError: division by zero");
}

TEST(CpuExecutor, RaiseFromManyThreadsReportsOne) {
  for (bool Fibers : {false, true}) {
    void *Args[] = {&Fibers};
    auto F = launchExpectingFault(kernel(&raiseKernel, "div", Fibers, false),
                                  Dims{50}, Dims{33}, 0, Args);
    ASSERT_TRUE(F.has_value());
    EXPECT_EQ(F->kind(), KernelFault::Kind::Raised);
    std::string M = F->what();
    EXPECT_EQ(M.rfind("ZeroDivisionError: division by zero in kernel 'div', "
                      "thread (",
                      0),
              0u)
        << M;
    EXPECT_NE(M.find(" block ("), std::string::npos);
  }
}

// ==== printf =================================================================

TEST(CpuPrintf, FormatsLikeHostPrintf) {
  const char *Fmt =
      "d=%d i=%i u=%u x=%x X=%#X o=%o w=[%5d|%-5d|%05d|%+d] "
      "ll=%lld llu=%llu lx=%lx z=%zu h=%hd hh=%hhd hhu=%hhu c=%c s=%s "
      "s3=%.3s s10=[%10s] f=%f f3=%.3f e=%e E=%E g=%g G=%G a=%a wf=[%10.4f] "
      "star=[%*d] pstar=%.*f pct=%% end\n";
  PrintfArgs A;
  A.add<int32_t>(-42)
      .add<int32_t>(7)
      .add<uint32_t>(4000000000u)
      .add<uint32_t>(0xbeef)
      .add<uint32_t>(0xbeef)
      .add<uint32_t>(8)
      .add<int32_t>(12)
      .add<int32_t>(12)
      .add<int32_t>(12)
      .add<int32_t>(12)
      .add<int64_t>(INT64_MIN)
      .add<uint64_t>(UINT64_MAX)
      .add<uint64_t>(0x123456789abcull)
      .add<uint64_t>(12345678901ull)
      .add<int32_t>(65537)
      .add<int32_t>(300)
      .add<int32_t>(-1)
      .add<int32_t>('Q')
      .str("hello")
      .str("abcdef")
      .str("pad")
      .add<double>(3.14159265358979)
      .add<double>(-2.5)
      .add<double>(12345.678)
      .add<double>(1e-10)
      .add<double>(0.0001234)
      .add<double>(1e20)
      .add<double>(1.0)
      .add<double>(2.71828)
      .add<int32_t>(6)
      .add<int32_t>(-3)
      .add<int32_t>(2)
      .add<double>(1.23456);
  std::string Expect =
      hostPrintf(Fmt, -42, 7, 4000000000u, 0xbeef, 0xbeef, 8, 12, 12, 12, 12,
                 static_cast<long long>(INT64_MIN),
                 static_cast<unsigned long long>(UINT64_MAX), 0x123456789abcul,
                 size_t(12345678901ull), short(1), static_cast<signed char>(44),
                 static_cast<unsigned char>(255), 'Q', "hello", "abcdef", "pad",
                 3.14159265358979, -2.5, 12345.678, 1e-10, 0.0001234, 1e20, 1.0,
                 2.71828, 6, -3, 2, 1.23456);
  StdoutCapture Cap;
  int32_t N = pcj_cpu_vprintf(Fmt, A.data());
  std::string Got = Cap.finish();
  EXPECT_EQ(Got, Expect);
  EXPECT_EQ(N, 33);
  EXPECT_EQ(pcj_cpu_vprintf(nullptr, nullptr), -1);
}

TEST(CpuPrintf, SpecialCases) {
  StdoutCapture Cap;
  PrintfArgs A;
  A.add<uint64_t>(0).add<uint64_t>(0).add<int32_t>(5);
  pcj_cpu_vprintf("null=%s p=%p unknown=%y n=%d\n", A.data());
  pcj_cpu_vprintf("no args %%\n", nullptr);
  std::string Got = Cap.finish();
  EXPECT_EQ(Got, hostPrintf("null=(null) p=%p unknown=%%y n=5\nno args %%\n",
                            static_cast<void *>(nullptr)));
}

// Each thread prints one line; lines must come out whole.
void printKernel(void **Args, pcj_thread_ctx *C) {
  struct { // laid out like the vprintf buffer for the format below
    int32_t Block;
    uint64_t Name;
    int32_t Thread;
    double Value;
  } Packed = {int32_t(C->ctaid[0]), reinterpret_cast<uintptr_t>("thr"),
              int32_t(C->tid[0]), C->ctaid[0] * 100 + C->tid[0] * 0.5};
  if (arg<bool>(Args, 0))
    pcj_cpu_syncthreads(C, 1, 1);
  pcj_cpu_vprintf("block %d %s %d value %.1f|\n", &Packed);
}

TEST(CpuPrintf, LinesFromConcurrentThreadsStayWhole) {
  for (bool Fibers : {false, true}) {
    void *Args[] = {&Fibers};
    StdoutCapture Cap;
    launch(kernel(&printKernel, "print", Fibers, false), Dims{16}, Dims{40}, 0,
           Args);
    std::string Got = Cap.finish();
    std::vector<std::string> Lines;
    size_t Pos = 0;
    while (Pos < Got.size()) {
      size_t End = Got.find('\n', Pos);
      ASSERT_NE(End, std::string::npos);
      Lines.push_back(Got.substr(Pos, End - Pos));
      Pos = End + 1;
    }
    ASSERT_EQ(Lines.size(), 16u * 40u);
    std::vector<std::string> Expect;
    for (int B = 0; B < 16; ++B)
      for (int T = 0; T < 40; ++T)
        Expect.push_back(hostPrintf("block %d %s %d value %.1f|", B, "thr", T,
                                    B * 100 + T * 0.5));
    std::sort(Lines.begin(), Lines.end());
    std::sort(Expect.begin(), Expect.end());
    EXPECT_EQ(Lines, Expect);
  }
}

// ==== indices ================================================================

// Each thread writes its global linear id to its slot, plus its indices.
void coverageKernel(void **Args, pcj_thread_ctx *C) {
  uint32_t *Out = arg<uint32_t *>(Args, 0);
  uint32_t BlockLinear = C->ctaid[0] + C->ctaid[1] * C->nctaid[0] +
                         C->ctaid[2] * C->nctaid[0] * C->nctaid[1];
  uint32_t T = linearTid(C);
  uint32_t G = BlockLinear * blockThreads(C) + T;
  uint32_t *O = Out + G * 8;
  O[0] = G;
  O[1] = C->tid[0] | C->tid[1] << 10 | C->tid[2] << 20;
  O[2] = C->ctaid[0] | C->ctaid[1] << 10 | C->ctaid[2] << 20;
  O[3] = C->ntid[0] | C->ntid[1] << 10 | C->ntid[2] << 20;
  O[4] = C->nctaid[0] | C->nctaid[1] << 10 | C->nctaid[2] << 20;
  O[5] = C->laneid;
  O[6] = C->warpid;
  // Before any thread of the block can have exited.
  O[7] = pcj_cpu_activemask(C, 102);
  if (arg<bool>(Args, 1))
    pcj_cpu_syncthreads(C, 1, 1);
}

TEST(CpuExecutor, ThreeDimensionalGridsAndBlocksCoverEveryThread) {
  const Dims Grid{3, 2, 4}, Block{4, 3, 5};
  const uint32_t PerBlock = 60, N = 24 * PerBlock;
  for (bool Fibers : {false, true}) {
    SCOPED_TRACE(Fibers ? "fibers" : "fast path");
    std::vector<uint32_t> Out(N * 8, 0xffffffffu);
    uint32_t *OP = Out.data();
    void *Args[] = {&OP, &Fibers};
    launch(kernel(&coverageKernel, "cover", Fibers, false), Grid, Block, 0,
           Args);
    for (uint32_t G = 0; G < N; ++G) {
      uint32_t B = G / PerBlock, T = G % PerBlock;
      const uint32_t *O = &Out[G * 8];
      ASSERT_EQ(O[0], G);
      ASSERT_EQ(O[1], T % 4 | (T / 4 % 3) << 10 | (T / 12) << 20);
      ASSERT_EQ(O[2], B % 3 | (B / 3 % 2) << 10 | (B / 6) << 20);
      ASSERT_EQ(O[3], 4u | 3u << 10 | 5u << 20);
      ASSERT_EQ(O[4], 3u | 2u << 10 | 4u << 20);
      ASSERT_EQ(O[5], T % 32);
      ASSERT_EQ(O[6], T / 32);
      ASSERT_EQ(O[7], T < 32 ? kFull : 0x0fffffffu); // 28 lanes in warp 1
    }
  }
}

// ==== concurrency ============================================================

TEST(CpuExecutor, ConcurrentLaunchesFromFourThreads) {
  std::atomic<int> Failures{0};
  std::vector<std::thread> Threads;
  for (unsigned W = 0; W < 4; ++W) {
    Threads.emplace_back([W, &Failures] {
      for (unsigned I = 0; I < 12; ++I) {
        unsigned Seed = 100 + W * 50 + I;
        ReduceCase R(int32_t(3000 + 517 * I + W * 31), Seed);
        R.run();
        if (!R.correct())
          ++Failures;
        SaxpyCase S(int32_t(20000 + I * 100 + W), Seed);
        S.run(Dims{7 + W}, Dims{128});
        if (S.mismatches() != 0)
          ++Failures;
        if (I % 4 == W % 4) { // a failing launch in between
          std::vector<int32_t> Done(64, 0);
          int32_t *DP = Done.data();
          bool Fibers = W % 2 == 0;
          void *Args[] = {&DP, &Fibers};
          auto F = launchExpectingFault(
              kernel(&indexErrorKernel, "k", Fibers, false), Dims{64}, Dims{32},
              0, Args);
          if (!F || F->kind() != KernelFault::Kind::IndexError ||
              F->block().x != 1)
            ++Failures;
        }
      }
    });
  }
  for (auto &T : Threads)
    T.join();
  EXPECT_EQ(Failures.load(), 0);
}

TEST(CpuExecutor, ForkedChildCanLaunch) {
  ReduceCase Warm(2000, 11); // the pool exists before fork()
  Warm.run();
  ASSERT_TRUE(Warm.correct());
  pid_t Pid = fork();
  ASSERT_GE(Pid, 0);
  if (Pid == 0) { // the child has none of the parent's workers
    ReduceCase R(40 * 256, 12);
    R.run();
    SaxpyCase S(5000, 13);
    S.run(Dims{9}, Dims{64});
    _exit(R.correct() && S.mismatches() == 0 ? 0 : 1);
  }
  int Status = 0;
  ASSERT_EQ(waitpid(Pid, &Status, 0), Pid);
  EXPECT_TRUE(WIFEXITED(Status) && WEXITSTATUS(Status) == 0) << Status;
}

// The kernels' heap (Heap.cpp): blocks within the limit, 16-byte aligned,
// null beyond it; a free makes room again.
TEST(CpuExecutor, HeapKeepsItsLimit) {
  size_t Before = heapLimit(), InUse = heapBytesInUse();
  setHeapLimit(InUse + (1 << 20));
  void *A = pcj_cpu_heap_alloc(600 << 10);
  ASSERT_NE(A, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(A) % 16, 0u);
  EXPECT_EQ(heapBytesInUse(), InUse + (600 << 10));
  EXPECT_EQ(pcj_cpu_heap_alloc(600 << 10), nullptr);
  EXPECT_EQ(pcj_cpu_heap_alloc(~uint64_t(0) >> 1), nullptr);
  static_cast<char *>(A)[(600 << 10) - 1] = 1; // the whole block is usable
  pcj_cpu_heap_free(A);
  EXPECT_EQ(heapBytesInUse(), InUse);
  void *B = pcj_cpu_heap_alloc(600 << 10);
  EXPECT_NE(B, nullptr);
  pcj_cpu_heap_free(B);
  pcj_cpu_heap_free(nullptr);
  setHeapLimit(Before);
}

TEST(CpuExecutor, RuntimeSymbolTable) {
  auto Symbols = runtimeSymbols();
  // ThreadCtx.h: 23 runtime functions and the stop word; then one host
  // function per cuda.libdevice row (LibdeviceHost.h).
  EXPECT_EQ(Symbols.size(), 24u + libdeviceSymbols().size());
  EXPECT_GT(libdeviceSymbols().size(), 300u);
  bool SawLibdevice = false;
  for (const RuntimeSymbol &S : Symbols)
    if (std::string(S.name) == "pcj_nv_fadd_rz") {
      SawLibdevice = true;
      EXPECT_EQ(S.address, reinterpret_cast<void *>(&ldtypes::pcj_nv_fadd_rz));
      EXPECT_EQ(ldtypes::pcj_nv_fadd_rz(1.0f, 0x1p-30f), 1.0f);
      EXPECT_EQ(ldtypes::pcj_nv_fadd_ru(1.0f, 0x1p-30f), 0x1.000002p0f);
    }
  EXPECT_TRUE(SawLibdevice);
  bool SawPrintf = false, SawError = false, SawStopWord = false,
       SawStackCheck = false;
  for (const RuntimeSymbol &S : Symbols) {
    EXPECT_NE(S.address, nullptr) << S.name;
    if (std::string(S.name) == "pcj_cpu_vprintf") {
      SawPrintf = true;
      EXPECT_EQ(S.address, reinterpret_cast<void *>(&pcj_cpu_vprintf));
    }
    if (std::string(S.name) == "pcj_cpu_error") {
      SawError = true;
      EXPECT_EQ(S.address, reinterpret_cast<void *>(&pcj_cpu_error));
    }
    if (std::string(S.name) == "pcj_cpu_check_stack") {
      SawStackCheck = true;
      EXPECT_EQ(S.address, reinterpret_cast<void *>(&pcj_cpu_check_stack));
    }
    if (std::string(S.name) == "pcj_cpu_stop_requests") {
      SawStopWord = true;
      EXPECT_EQ(S.address, reinterpret_cast<void *>(&pcj_cpu_stop_requests));
    }
  }
  EXPECT_TRUE(SawPrintf);
  EXPECT_TRUE(SawError);
  EXPECT_TRUE(SawStopWord);
  EXPECT_TRUE(SawStackCheck);
}

} // namespace
