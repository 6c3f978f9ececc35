// GridRunner: the host-thread pool, grid dispatch and per-block execution of
// the CPU executor (see GridRunner.h for the model, BlockState.h for the
// scheduler's data structures).
//
// launch(K, grid, block) → Grid on the caller's stack → Pool::run: the grid
// is offered to up to min(blocks, threads) - 1 pool workers; the caller runs
// blocks too → each host thread claims block indices from Grid::NextBlock
// and runs them (runBlock) until none is left or an error was recorded →
// the caller waits until its helpers have left the grid → throws the first
// error, if any.
#include "runtime/cpu/BlockState.h"
#include "runtime/cpu/LibdeviceHost.h"
#include "runtime/cpu/SanitizerState.h"
#include "support/Env.h"

#include <algorithm>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <new>
#include <thread>
#include <vector>

#include <pthread.h>

#ifdef PCJ_FIBER_ASAN
#include <sanitizer/asan_interface.h>
#endif

namespace pcj::rt::cpu {

const char *kindName(KernelFault::Kind K) {
  switch (K) {
  case KernelFault::Kind::IndexError:
    return "IndexError";
  case KernelFault::Kind::ZeroDivision:
    return "ZeroDivisionError";
  case KernelFault::Kind::ValueError:
    return "ValueError";
  case KernelFault::Kind::UnboundLocal:
    return "UnboundLocalError";
  case KernelFault::Kind::Deadlock:
    return "Deadlock";
  case KernelFault::Kind::Raised:
    return "Raised";
  case KernelFault::Kind::Interrupted:
    return "Interrupted";
  case KernelFault::Kind::Timeout:
    return "Timeout";
  case KernelFault::Kind::Recursion:
    return "RecursionError";
  case KernelFault::Kind::Sync:
    return "Sync";
  case KernelFault::Kind::Race:
    return "Race";
  case KernelFault::Kind::Uninitialized:
    return "Uninitialized";
  case KernelFault::Kind::UseAfterFree:
    return "UseAfterFree";
  case KernelFault::Kind::Exception:
    return "Exception";
  }
  return "?";
}

namespace detail {

std::string dimsString(Dims D) {
  return "(" + std::to_string(D.x) + ", " + std::to_string(D.y) + ", " +
         std::to_string(D.z) + ")";
}

namespace {

// -- per host thread resources ------------------------------------------------

// Kept by each host thread that runs blocks and reused from block to block.
struct WorkerResources {
  StackCache Stacks;
  std::vector<ThreadSlot> Slots;
  std::vector<WarpState> Warps;
  std::vector<uint32_t> RunQueue;
  char *Shared = nullptr;
  size_t SharedCapacity = 0;

  WorkerResources() = default;
  WorkerResources(const WorkerResources &) = delete;
  WorkerResources &operator=(const WorkerResources &) = delete;
  ~WorkerResources() { freeShared(); }

  static constexpr std::align_val_t SharedAlign{64};

  void freeShared() {
    if (!Shared)
      return;
#ifdef PCJ_FIBER_ASAN
    ASAN_UNPOISON_MEMORY_REGION(Shared, SharedCapacity);
#endif
    ::operator delete[](Shared, SharedAlign);
    Shared = nullptr;
    SharedCapacity = 0;
  }

  // A poisoned buffer of Bytes bytes, 64-byte aligned.
  char *shared(size_t Bytes) {
    size_t Need = std::max<size_t>(Bytes, 16);
    if (Need > SharedCapacity) {
      freeShared();
      size_t Cap = std::max(Need, SharedCapacity * 2);
      Shared = static_cast<char *>(::operator new[](Cap, SharedAlign));
      SharedCapacity = Cap;
    }
#ifdef PCJ_FIBER_ASAN
    // Accesses past the block's shared memory are reported by ASan (for
    // instrumented kernels, i.e. the C++ tests).
    ASAN_UNPOISON_MEMORY_REGION(Shared, Bytes);
    ASAN_POISON_MEMORY_REGION(Shared + Bytes, SharedCapacity - Bytes);
#endif
    std::memset(Shared, kSharedPoisonByte, Bytes);
    return Shared;
  }
};

WorkerResources &resources() {
  thread_local WorkerResources R;
  return R;
}

// -- block execution ----------------------------------------------------------

pcj_thread_ctx blockContext(ThreadBlock &B, char *Shared) {
  const Grid &G = *B.G;
  pcj_thread_ctx C;
  std::memset(&C, 0, sizeof C);
  C.ntid[0] = G.BlockDim.x;
  C.ntid[1] = G.BlockDim.y;
  C.ntid[2] = G.BlockDim.z;
  C.ctaid[0] = B.Idx.x;
  C.ctaid[1] = B.Idx.y;
  C.ctaid[2] = B.Idx.z;
  C.nctaid[0] = G.GridDim.x;
  C.nctaid[1] = G.GridDim.y;
  C.nctaid[2] = G.GridDim.z;
  C.shared = Shared;
  C.dynShared = Shared + G.DynSharedOffset;
  C.dynSharedBytes = G.SharedBytes - G.DynSharedOffset;
  C.sched = &B;
  C.self = nullptr;
  return C;
}

// Runs the threads of a block without barriers one after another.
void runFastThreads(ThreadBlock &B, pcj_thread_ctx &C) {
  const Grid &G = *B.G;
  KernelEntry Entry = G.Kernel->entry;
  uint32_t Linear = 0;
  for (uint32_t Z = 0; Z < G.BlockDim.z; ++Z) {
    for (uint32_t Y = 0; Y < G.BlockDim.y; ++Y) {
      if (stopping(G))
        return;
      for (uint32_t X = 0; X < G.BlockDim.x; ++X, ++Linear) {
        C.tid[0] = X;
        C.tid[1] = Y;
        C.tid[2] = Z;
        C.laneid = Linear % 32;
        C.warpid = Linear / 32;
        Entry(G.Args, &C);
      }
    }
  }
}

// The sigsetjmp frame is this small function with no locals, so nothing has
// an indeterminate value after a thread's error long-jumps back here.
bool runFastBlock(ThreadBlock &B, pcj_thread_ctx &C) {
  B.Running = &C;
  if (sigsetjmp(B.FastJmp, 0) != 0)
    return false;
  runFastThreads(B, C);
  return true;
}

ThreadSlot &popReady(ThreadBlock &B) {
  uint32_t Index = B.RunQueue[B.QueueHead];
  B.QueueHead = B.QueueHead + 1 == B.NumThreads ? 0 : B.QueueHead + 1;
  --B.QueueSize;
  ThreadSlot &S = B.Slots[Index];
  if (S.State == ThreadState::Sleeping)
    ++B.Warps[Index / 32].Runnable;
  S.State = ThreadState::Running;
  B.Running = &S.Ctx;
  return S;
}

void enqueue(ThreadBlock &B, uint32_t Index) {
  uint32_t Tail = B.QueueHead + B.QueueSize;
  if (Tail >= B.NumThreads)
    Tail -= B.NumThreads;
  B.RunQueue[Tail] = Index;
  ++B.QueueSize;
}

// The context to run after the current thread stops.
FiberContext &nextContext(ThreadBlock &B) {
  if (B.Aborted || B.QueueSize == 0 || stopping(*B.G))
    return B.Sched;
  return popReady(B).Fiber;
}

// Body of every fiber: one CUDA thread.
void fiberMain(void *Arg) {
  ThreadSlot &S = *static_cast<ThreadSlot *>(Arg);
  ThreadBlock &B = blockOf(&S.Ctx);
  B.G->Kernel->entry(B.G->Args, &S.Ctx);
  threadExited(B, S);
  fiberExit(S.Fiber, nextContext(B));
}

void runFiberBlock(ThreadBlock &B, WorkerResources &R,
                   const pcj_thread_ctx &Proto) {
  const Grid &G = *B.G;
  uint32_t N = B.NumThreads;
  uint32_t NumWarps = (N + 31) / 32;
  const FiberStack *Stacks = R.Stacks.reserve(N);
  if (R.Slots.size() < N) {
    R.Slots.resize(N);
    R.RunQueue.resize(N);
  }
  if (R.Warps.size() < NumWarps)
    R.Warps.resize(NumWarps);
  B.Slots = R.Slots.data();
  B.Warps = R.Warps.data();
  B.RunQueue = R.RunQueue.data();

  for (uint32_t W = 0; W < NumWarps; ++W) {
    uint32_t Lanes = std::min<uint32_t>(32, N - W * 32);
    B.Warps[W].reset(Lanes == 32 ? ~0u : (1u << Lanes) - 1);
  }
  for (uint32_t I = 0; I < N; ++I) {
    ThreadSlot &S = B.Slots[I];
    S.Ctx = Proto;
    Dims T = threadIdxOf(G.BlockDim, I);
    S.Ctx.tid[0] = T.x;
    S.Ctx.tid[1] = T.y;
    S.Ctx.tid[2] = T.z;
    S.Ctx.laneid = I % 32;
    S.Ctx.warpid = I / 32;
    S.Ctx.self = &S;
    S.State = ThreadState::Ready;
    S.LeadGrid = false;
    S.BarrierSite = 0;
    S.BarrierLine = 0;
    S.Stack = Stacks[I];
    fiberInit(S.Fiber, Stacks[I], &fiberMain, &S);
    B.RunQueue[I] = I;
  }
  B.QueueHead = 0;
  B.QueueSize = N;
  B.Live = N;
  B.BarrierArrived = 0;
  B.BarrierCount = 0;
  B.BarrierMixed = false;
  B.BarrierResult = 0;
  B.BarrierResultArrivals = 0;
  B.GridArrived = 0;

  fiberSwitch(B.Sched, popReady(B).Fiber);
  // Back here when no thread is Ready: all exited, an error, or a deadlock.
  if (B.Aborted || B.Live == 0 || stopping(G))
    return;
  diagnoseStall(B);
}

void runBlock(Grid &G, uint64_t Linear) {
  WorkerResources &R = resources();
  ThreadBlock B;
  B.G = &G;
  uint64_t PerPlane = uint64_t(G.GridDim.x) * G.GridDim.y;
  B.Idx = Dims{static_cast<uint32_t>(Linear % G.GridDim.x),
               static_cast<uint32_t>((Linear / G.GridDim.x) % G.GridDim.y),
               static_cast<uint32_t>(Linear / PerPlane)};
  B.NumThreads = G.ThreadsPerBlock;
  B.UsesFibers = G.Kernel->usesBarriers || G.Kernel->usesWarpOps;
  pcj_thread_ctx Proto = blockContext(B, R.shared(G.SharedBytes));
  struct CurrentScope { // pcj_cpu_poll finds the block through it
    ThreadBlock *Saved;
    explicit CurrentScope(ThreadBlock *B) : Saved(setCurrentBlock(B)) {}
    ~CurrentScope() { setCurrentBlock(Saved); }
  } Current(&B);
  struct SanitizerScope { // sanitized launches: the block's checker state
    ThreadBlock &B;
    explicit SanitizerScope(ThreadBlock &B) : B(B) {
      if (B.G->San)
        san::detail::blockBegin(B);
    }
    ~SanitizerScope() { san::detail::blockEnd(B); }
  } Sanitizer(B);
  if (!B.UsesFibers) {
    runFastBlock(B, Proto);
    return;
  }
  runFiberBlock(B, R, Proto);
}

// Runs blocks of G until none is left or the launch failed.
void runBlocks(Grid &G) noexcept {
  for (;;) {
    if (stopping(G))
      return;
    uint64_t Linear = G.NextBlock.fetch_add(1, std::memory_order_relaxed);
    if (Linear >= G.NumBlocks)
      return;
    try {
      runBlock(G, Linear);
      blockFinished(G);
    } catch (...) {
      std::lock_guard<std::mutex> Lock(G.ErrorMu);
      if (!G.HasFault && !G.Internal)
        G.Internal = std::current_exception();
      G.Failed.store(true, std::memory_order_relaxed);
      noteStopping(G);
      return;
    }
  }
}

// -- host thread pool ---------------------------------------------------------

unsigned readThreadCount() {
  unsigned N = std::thread::hardware_concurrency();
  if (const char *Env = env::raw(env::Var::CpuThreads); Env && *Env) {
    char *End = nullptr;
    unsigned long V = std::strtoul(Env, &End, 10);
    if (*End == '\0' && V > 0)
      N = static_cast<unsigned>(std::min<unsigned long>(V, 4096));
  }
  return std::max(N, 1u);
}

// Workers plus the launching thread run blocks.  Each grid accepts at most
// MaxHelpers workers; a worker takes the oldest grid that still has blocks
// to hand out and room for a helper.
class Pool {
public:
  static Pool &get();
  unsigned threads() const { return NumThreads; }
  void run(Grid &G);

private:
  explicit Pool(unsigned Threads);
  void workerLoop();
  Grid *pickLocked();
  void removeLocked(Grid *G);

  unsigned NumThreads;
  std::mutex Mu;
  std::condition_variable WorkCv, DoneCv;
  std::vector<Grid *> Active;

  static std::atomic<Pool *> Current;
  static std::mutex CreateMu;
  static void forkPrepare();
  static void forkParent();
  static void forkChild();
};

std::atomic<Pool *> Pool::Current{nullptr};
std::mutex Pool::CreateMu;

Pool &Pool::get() {
  if (Pool *P = Current.load(std::memory_order_acquire))
    return *P;
  std::lock_guard<std::mutex> Lock(CreateMu);
  if (Pool *P = Current.load(std::memory_order_relaxed))
    return *P;
  static bool AtForkRegistered = false;
  if (!AtForkRegistered) {
    pthread_atfork(&forkPrepare, &forkParent, &forkChild);
    AtForkRegistered = true;
  }
  // Never deleted: detached workers wait on it until the process ends.
  Pool *P = new Pool(readThreadCount());
  Current.store(P, std::memory_order_release);
  return *P;
}

Pool::Pool(unsigned Threads) : NumThreads(1) {
  for (unsigned I = 1; I < Threads; ++I) {
    try {
      std::thread([this] { workerLoop(); }).detach();
    } catch (const std::system_error &) {
      break; // run with the workers we got
    }
    ++NumThreads;
  }
}

// Around fork(): hold every runtime mutex so the child inherits none locked;
// the child gets a fresh pool (the old one's workers do not exist there).
void Pool::forkPrepare() {
  CreateMu.lock();
  if (Pool *P = Current.load(std::memory_order_relaxed))
    P->Mu.lock();
  StackPool::global().lockForFork();
  printMutex().lock();
  cancelForkPrepare();
}

void Pool::forkParent() {
  cancelForkParent();
  printMutex().unlock();
  StackPool::global().unlockAfterFork();
  if (Pool *P = Current.load(std::memory_order_relaxed))
    P->Mu.unlock();
  CreateMu.unlock();
}

void Pool::forkChild() {
  cancelForkChild();
  printMutex().unlock();
  StackPool::global().unlockAfterFork();
  if (Pool *P = Current.load(std::memory_order_relaxed))
    P->Mu.unlock();
  Current.store(nullptr, std::memory_order_relaxed); // old pool leaked
  CreateMu.unlock();
}

Grid *Pool::pickLocked() {
  for (size_t I = 0; I < Active.size();) {
    Grid *G = Active[I];
    if (stopping(*G) ||
        G->NextBlock.load(std::memory_order_relaxed) >= G->NumBlocks) {
      Active.erase(Active.begin() + static_cast<ptrdiff_t>(I));
      continue;
    }
    if (G->Helpers < G->MaxHelpers)
      return G;
    ++I;
  }
  return nullptr;
}

void Pool::removeLocked(Grid *G) {
  auto It = std::find(Active.begin(), Active.end(), G);
  if (It != Active.end())
    Active.erase(It);
}

void Pool::workerLoop() {
  std::unique_lock<std::mutex> Lock(Mu);
  for (;;) {
    Grid *G = pickLocked();
    if (!G) {
      WorkCv.wait(Lock);
      continue;
    }
    ++G->Helpers;
    Lock.unlock();
    runBlocks(*G);
    Lock.lock();
    removeLocked(G); // its blocks are all handed out (or it failed)
    if (--G->Helpers == 0)
      DoneCv.notify_all();
  }
}

void Pool::run(Grid &G) {
  unsigned Helpers =
      static_cast<unsigned>(std::min<uint64_t>(G.NumBlocks, NumThreads) - 1);
  if (Helpers > 0) {
    {
      std::lock_guard<std::mutex> Lock(Mu);
      G.MaxHelpers = Helpers;
      Active.push_back(&G);
    }
    if (Helpers == 1)
      WorkCv.notify_one();
    else
      WorkCv.notify_all();
  }
  runBlocks(G);
  if (Helpers == 0)
    return;
  std::unique_lock<std::mutex> Lock(Mu);
  removeLocked(&G);
  DoneCv.wait(Lock, [&] { return G.Helpers == 0; });
}

void checkDims(Dims D, uint32_t MaxX, uint32_t MaxY, uint32_t MaxZ,
               const char *What) {
  if (D.x == 0 || D.y == 0 || D.z == 0 || D.x > MaxX || D.y > MaxY ||
      D.z > MaxZ)
    throw std::invalid_argument(
        std::string("pycuda_jit CPU executor: invalid ") + What + " " +
        dimsString(D) + " (limits (" + std::to_string(MaxX) + ", " +
        std::to_string(MaxY) + ", " + std::to_string(MaxZ) + "), each >= 1)");
}

} // namespace

// -- scheduling primitives used by Sync.cpp -----------------------------------

void runGridBlocks(Grid &G) noexcept { runBlocks(G); }

void pushReady(ThreadBlock &B, uint32_t Index) {
  enqueue(B, Index);
  ThreadSlot &S = B.Slots[Index];
  if (S.State != ThreadState::Running)
    ++B.Warps[Index / 32].Runnable;
  S.State = ThreadState::Ready;
}

void suspend(ThreadBlock &B, ThreadSlot &S, ThreadState Wait) {
  S.State = Wait;
  laneStopped(B, S.Ctx.warpid);
  fiberSwitch(S.Fiber, nextContext(B));
}

// A sleeping lane does not hold back its warp's activemask callers: on the
// GPU a lane spinning on a flag is not converged with them either.
void yield(ThreadBlock &B, ThreadSlot &S) {
  enqueue(B, static_cast<uint32_t>(&S - B.Slots));
  S.State = ThreadState::Sleeping;
  laneStopped(B, S.Ctx.warpid);
  fiberSwitch(S.Fiber, nextContext(B));
}

// A sanitized launch's first finding as its fault, carrying all of them.
[[noreturn]] void throwFinding(std::shared_ptr<std::vector<san::Finding>> All) {
  const san::Finding &F = All->front();
  KernelFault::Kind K = KernelFault::Kind::Race;
  if (F.kind == san::Finding::Kind::Uninitialized)
    K = KernelFault::Kind::Uninitialized;
  else if (F.kind == san::Finding::Kind::UseAfterFree)
    K = KernelFault::Kind::UseAfterFree;
  const san::Access &A = F.accesses.back();
  KernelFault Fault(K, F.message, A.thread, A.block, A.file, A.line);
  Fault.setFindings(std::move(All));
  throw Fault;
}

} // namespace detail

// -- public API ---------------------------------------------------------------

unsigned executorThreads() { return detail::Pool::get().threads(); }

void launch(const KernelInfo &K, Dims GridDim, Dims BlockDim,
            size_t DynamicSharedBytes, void **Args,
            const LaunchControl &Control) {
  using namespace detail;
  if (!K.entry)
    throw std::invalid_argument("pycuda_jit CPU executor: null kernel entry");
  checkDims(GridDim, 0x7fffffffu, 65535, 65535, "grid");
  checkDims(BlockDim, 1024, 1024, 64, "block");
  uint64_t Threads = uint64_t(BlockDim.x) * BlockDim.y * BlockDim.z;
  if (Threads > 1024)
    throw std::invalid_argument(
        "pycuda_jit CPU executor: block " + dimsString(BlockDim) + " has " +
        std::to_string(Threads) + " threads (at most 1024)");
  size_t StaticPadded = (K.staticSharedBytes + 15) / 16 * 16;
  if (StaticPadded < K.staticSharedBytes ||
      StaticPadded + DynamicSharedBytes < StaticPadded)
    throw std::invalid_argument("pycuda_jit CPU executor: shared memory size "
                                "overflows");

  Grid G;
  G.Kernel = &K;
  G.Name = K.name ? K.name : "<kernel>";
  G.GridDim = GridDim;
  G.BlockDim = BlockDim;
  G.Args = Args;
  G.DynSharedOffset = StaticPadded;
  G.SharedBytes = StaticPadded + DynamicSharedBytes;
  G.ThreadsPerBlock = static_cast<uint32_t>(Threads);
  G.NumBlocks = uint64_t(GridDim.x) * GridDim.y * GridDim.z;
  std::unique_ptr<san::detail::SanGrid> San;
  if (K.sanitize) {
    San = std::make_unique<san::detail::SanGrid>();
    san::detail::launchBegin(G, *San, K.sanitize);
  }

  bool Interrupted = false;
  {
    InterruptScope Interrupt(G, Control.interruptible);
    DeadlineScope Deadline(G, Control.timeoutSeconds);
    Pool::get().run(G);
    joinGridThreads(G); // host threads a grid barrier started
    Interrupted = Interrupt.finish();
  }
  // Every helper has left G (Pool::run waited under the pool mutex), and the
  // watchdog no longer knows it, so no one else touches it any more.
  stopDone(G);
  std::shared_ptr<std::vector<san::Finding>> Findings;
  if (San && !G.Internal)
    Findings =
        std::make_shared<std::vector<san::Finding>>(san::detail::launchEnd(G));
  if (G.Internal)
    std::rethrow_exception(G.Internal);
  if (G.HasFault) {
    KernelFault F(G.FaultKind, G.FaultMessage, G.FaultThread, G.FaultBlock,
                  G.FaultFile, G.FaultLine);
    if (Findings && !Findings->empty())
      F.setFindings(Findings);
    F.setExceptionClass(G.FaultException);
    throw F;
  }
  if (Findings && !Findings->empty() && !Interrupted)
    throwFinding(std::move(Findings));
  if (Interrupted)
    throw KernelFault(KernelFault::Kind::Interrupted,
                      "kernel '" + std::string(G.Name) +
                          "' was interrupted (SIGINT) on the CPU executor",
                      Dims{0, 0, 0}, Dims{0, 0, 0});
}

std::span<const RuntimeSymbol> runtimeSymbols() {
#define PCJ_CPU_RUNTIME_FUNCTIONS(X)                                           \
  X(pcj_cpu_syncthreads)                                                       \
  X(pcj_cpu_syncthreads_count)                                                 \
  X(pcj_cpu_syncthreads_and)                                                   \
  X(pcj_cpu_syncthreads_or)                                                    \
  X(pcj_cpu_syncwarp)                                                          \
  X(pcj_cpu_shfl_sync)                                                         \
  X(pcj_cpu_vote_sync)                                                         \
  X(pcj_cpu_match_any_sync)                                                    \
  X(pcj_cpu_match_all_sync)                                                    \
  X(pcj_cpu_activemask)                                                        \
  X(pcj_cpu_nanosleep)                                                         \
  X(pcj_cpu_grid_sync)                                                         \
  X(pcj_cpu_vprintf)                                                           \
  X(pcj_cpu_index_error)                                                       \
  X(pcj_cpu_error)                                                             \
  X(pcj_cpu_check_stack)                                                       \
  X(pcj_cpu_raise)                                                             \
  X(pcj_cpu_poll)                                                              \
  X(pcj_cpu_heap_alloc)                                                        \
  X(pcj_cpu_heap_free)                                                         \
  X(pcj_san_access)                                                            \
  X(pcj_san_atomic_done)                                                       \
  X(pcj_san_sync)                                                              \
  X(pcj_cpu_stop_requests)
#define X(Name) RuntimeSymbol{#Name, reinterpret_cast<void *>(&Name)},
  static const RuntimeSymbol Table[] = {PCJ_CPU_RUNTIME_FUNCTIONS(X)};
#undef X
#undef PCJ_CPU_RUNTIME_FUNCTIONS
  // ... and cuda.libdevice's host functions (LibdeviceHost.h).
  static const std::vector<RuntimeSymbol> All = [] {
    std::vector<RuntimeSymbol> V(std::begin(Table), std::end(Table));
    for (const RuntimeSymbol &S : libdeviceSymbols())
      V.push_back(S);
    return V;
  }();
  return All;
}

} // namespace pcj::rt::cpu
