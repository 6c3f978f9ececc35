// BlockState: private state of a running grid and block, shared by
// GridRunner.cpp (pool, grid and block scheduling), Sync.cpp (barriers, warp
// operations, errors) and Printf.cpp.  Not part of the runtime's API.
//
// A block runs on one host thread.  In fiber mode every CUDA thread has a
// ThreadSlot (its pcj_thread_ctx, fiber and wait state); the block keeps a
// FIFO run queue of Ready threads.  A thread that must wait (barrier, warp
// operation, activemask) switches directly to the next Ready thread; the
// thread whose arrival (or exit) completes a barrier or warp operation marks
// the waiters Ready and continues without switching.  When no thread is
// Ready the last one switches back to the block's scheduler context
// (ThreadBlock::Sched), which then finds either every thread exited, an error,
// or a deadlock.
//
// Each warp counts its runnable lanes (Ready or Running); a lane waiting in
// activemask is released when that count drops to zero (Sync.cpp).
#pragma once

#include "runtime/cpu/Fiber.h"
#include "runtime/cpu/GridRunner.h"

#include <atomic>
#include <condition_variable>
#include <csetjmp>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace pcj::rt::cpu::san::detail {
struct SanGrid;
struct SanBlock;
} // namespace pcj::rt::cpu::san::detail

namespace pcj::rt::cpu::detail {

// One launch.
struct Grid {
  const KernelInfo *Kernel = nullptr;
  const char *Name = "";
  Dims GridDim, BlockDim;
  void **Args = nullptr;
  size_t SharedBytes = 0;     // static, padded to 16, + dynamic
  size_t DynSharedOffset = 0; // static size padded to 16
  uint32_t ThreadsPerBlock = 0;
  uint64_t NumBlocks = 0;

  std::atomic<uint64_t> NextBlock{0};
  std::atomic<bool> Failed{false};
  // Stopping (Cancel.cpp): SIGINT stops this launch; it bumped the stop
  // word (guarded by ErrorMu); its time limit in seconds (0: none).
  bool Interruptible = false;
  bool StopCounted = false;
  double TimeoutSeconds = 0;

  std::mutex ErrorMu; // guards the first error below
  bool HasFault = false;
  KernelFault::Kind FaultKind = KernelFault::Kind::Raised;
  std::string FaultMessage;
  std::string FaultFile;      // the kernel source line it happened at, if known
  std::string FaultException; // Kind::Exception: the class name
  int32_t FaultLine = 0;
  Dims FaultThread, FaultBlock;
  std::exception_ptr Internal; // a C++ exception from the runtime itself

  // Guarded by the pool's mutex.
  unsigned Helpers = 0;
  unsigned MaxHelpers = 0;

  // Grid-wide barrier (cuda.cg.this_grid().sync(), Sync.cpp).  A block whose
  // threads all arrived waits (its host thread blocks) until every block of
  // the grid arrived; blocks not started yet get extra host threads.
  std::atomic<bool> CoopActive{false}; // some block reached a grid barrier
  std::atomic<uint64_t> BlocksDone{0}; // blocks that finished (or aborted)
  std::mutex CoopMu;                   // guards the fields below
  std::condition_variable CoopCv;
  uint64_t CoopArrived = 0;    // blocks waiting at the current grid barrier
  uint64_t CoopGeneration = 0; // completed grid barriers
  std::vector<std::thread> CoopThreads; // extra host threads, joined by launch

  san::detail::SanGrid *San = nullptr; // sanitized launches (Sanitizer.cpp)
};

enum class ThreadState : uint8_t {
  Ready,
  Running,
  AtBarrier,
  AtWarpOp,
  AtGridSync,
  AtActiveMask,
  Sleeping, // queued to run again after nanosleep yielded
  Exited
};

enum class WarpOpKind : uint8_t { SyncWarp, Shfl, Vote, MatchAny, MatchAll };

// The arguments of one lane's warp operation.
struct WarpOp {
  WarpOpKind Kind = WarpOpKind::SyncWarp;
  int32_t Mode = 0;
  uint32_t UserMask = 0; // as passed
  uint32_t Mask = 0;     // restricted to lanes that exist
  int32_t Lane = 0;
  int32_t Width = 32;
  int32_t Pred = 0;
  uint64_t Value = 0;
};

struct ThreadSlot {
  pcj_thread_ctx Ctx;
  FiberContext Fiber;
  FiberStack Stack; // the fiber's stack (pcj_cpu_check_stack)
  ThreadState State = ThreadState::Ready;
  bool LeadGrid = false; // resumed to wait for the grid on the block's behalf
  int32_t BarrierSite = 0;
  int32_t BarrierLine = 0;
};

// A warp's pending operations, one entry per lane (structure of arrays, so
// that completing an operation touches a few cache lines, not 32 slots).
// Lane entries are valid while the lane waits, and the results until the
// lane has read them after completion.
struct WarpState {
  uint32_t Exists = 0;    // lanes that exist (a partial last warp has fewer)
  uint32_t Exited = 0;    // lanes whose thread has returned
  uint32_t Waiting = 0;   // lanes suspended in a warp operation
  uint32_t Named = 0;     // union of the waiting lanes' masks
  uint32_t Runnable = 0;  // lanes Ready or Running
  uint32_t AmWaiting = 0; // lanes suspended in activemask
  int32_t AmSite[32];     // their call sites
  uint32_t AmResult[32];  // their masks, once released
  WarpOpKind Kind[32];
  int8_t Mode[32];
  uint32_t Mask[32];
  uint32_t UserMask[32];
  int32_t Lane[32];
  int32_t Width[32];
  int32_t Pred[32];
  int32_t ResultPred[32];
  uint64_t Value[32];
  uint64_t Result[32];

  void reset(uint32_t ExistingLanes) {
    Exists = ExistingLanes;
    Exited = Waiting = Named = AmWaiting = 0;
    Runnable = static_cast<uint32_t>(__builtin_popcount(ExistingLanes));
  }
};

struct ThreadBlock {
  Grid *G = nullptr;
  Dims Idx;
  uint32_t NumThreads = 0;
  bool UsesFibers = false;
  bool Aborted = false; // an error stopped this block

  // Fiber mode only.
  ThreadSlot *Slots = nullptr;
  WarpState *Warps = nullptr;
  uint32_t *RunQueue = nullptr; // ring buffer of NumThreads entries
  uint32_t QueueHead = 0;
  uint32_t QueueSize = 0;
  uint32_t Live = 0; // threads not exited
  // The barrier being filled: arrivals, their predicates, and whether they
  // came from different call sites (then it never completes: a deadlock).
  uint32_t BarrierArrived = 0;
  uint32_t BarrierCount = 0;
  int32_t BarrierSite = 0;
  bool BarrierMixed = false;
  // Arrivals and arrivals with pred != 0 at the last completed barrier.
  // One copy is enough: the next barrier cannot complete before every
  // waiter of this one resumed (and read it).
  uint32_t BarrierResult = 0;
  uint32_t BarrierResultArrivals = 0;
  uint32_t GridArrived = 0; // threads of this block at a grid barrier
  FiberContext Sched;       // the host thread's context that runs the block
  pcj_thread_ctx *Running = nullptr; // the CUDA thread running now

  // Fast path only: where a terminated thread jumps back to.
  sigjmp_buf FastJmp;

  san::detail::SanBlock *San = nullptr; // sanitized launches
};

inline ThreadBlock &blockOf(pcj_thread_ctx *Ctx) {
  return *static_cast<ThreadBlock *>(Ctx->sched);
}
inline ThreadSlot *slotOf(pcj_thread_ctx *Ctx) {
  return static_cast<ThreadSlot *>(Ctx->self);
}

// threadIdx of the linear index I in a block of shape D.
inline Dims threadIdxOf(Dims D, uint32_t I) {
  return Dims{I % D.x, (I / D.x) % D.y, I / (D.x * D.y)};
}
inline Dims threadIdxOf(const pcj_thread_ctx &Ctx) {
  return Dims{Ctx.tid[0], Ctx.tid[1], Ctx.tid[2]};
}
std::string dimsString(Dims D); // "(x, y, z)"

// -- scheduling (GridRunner.cpp)
// ------------------------------------------------ Marks a waiting thread (or
// the running one, to yield) Ready.
void pushReady(ThreadBlock &B, uint32_t Index);
// Suspends the running thread S in state Wait (what it waits for) and
// resumes the next Ready thread, or the scheduler if there is none.
void suspend(ThreadBlock &B, ThreadSlot &S, ThreadState Wait);
// The running thread S yields: it stays Ready, behind the others.
void yield(ThreadBlock &B, ThreadSlot &S);
// Bookkeeping of a lane that stops being runnable (it waits or exited):
// releases the warp's lanes waiting in activemask when it was the last
// runnable one.  `Self` (a lane index, or -1) is a lane released by the
// caller itself, which continues without being queued.
void laneStopped(ThreadBlock &B, uint32_t Warp, int Self = -1);

// Runs blocks of G until none is left or the launch failed (the body of
// every host thread that works on a grid).
void runGridBlocks(Grid &G) noexcept;

// -- grid barrier (Sync.cpp) --------------------------------------------------
// Called when one of G's blocks has finished: a grid barrier that can no
// longer complete (a block returned without reaching it) is a deadlock.
void blockFinished(Grid &G) noexcept;
// Joins the extra host threads grid barriers started (launch, at the end).
void joinGridThreads(Grid &G);

// -- errors (Sync.cpp) --------------------------------------------------------
// Records the launch's first error; later ones are dropped.
void recordFault(Grid &G, KernelFault::Kind Kind, const std::string &Message,
                 Dims Thread, Dims BlockIdx, const char *File = nullptr,
                 int32_t Line = 0, const char *Exception = nullptr) noexcept;
// Ends the calling CUDA thread after an error was recorded: a fiber switches
// away for good, the fast path long-jumps out of the block.
[[noreturn]] void terminateThread(pcj_thread_ctx *Ctx);
// Bookkeeping when a fiber's kernel function returned; may record a deadlock
// (a lane exited while others wait for it in a warp operation).
void threadExited(ThreadBlock &B, ThreadSlot &S);
// Called by the scheduler when no thread is Ready but some have not exited.
void diagnoseStall(ThreadBlock &B);

// -- stopping a launch (Cancel.cpp) -----------------------------------------
// A SIGINT arrived while an interruptible launch ran (cleared when it ends).
extern std::atomic<bool> InterruptPending;
// Whether G's threads must stop: it failed (an error, its time limit) or was
// interrupted.
inline bool stopping(const Grid &G) {
  return G.Failed.load(std::memory_order_relaxed) ||
         (G.Interruptible && InterruptPending.load(std::memory_order_relaxed));
}
// With G.ErrorMu held, when G fails: makes generated code poll (once per
// grid); stopDone undoes it when the launch ends.
void noteStopping(Grid &G);
void stopDone(Grid &G);
// The block the calling host thread runs, for pcj_cpu_poll; returns the
// previous one.
ThreadBlock *setCurrentBlock(ThreadBlock *B);
// While alive (and Enable), SIGINT stops G: our handler runs before the
// previous one.  finish() restores it and says whether SIGINT arrived.
class InterruptScope {
public:
  InterruptScope(Grid &G, bool Enable);
  ~InterruptScope();
  bool finish();

private:
  Grid &G;
  bool Installed = false;
};
// While alive, a watchdog records a Timeout fault for G after Seconds (> 0).
class DeadlineScope {
public:
  DeadlineScope(Grid &G, double Seconds);
  ~DeadlineScope();

private:
  Grid &G;
  bool Active = false;
};
// Around fork() (GridRunner.cpp's handlers).
void cancelForkPrepare();
void cancelForkParent();
void cancelForkChild();

// -- printf (Printf.cpp) ------------------------------------------------------
// Held around fork() so a child never inherits it locked.
std::mutex &printMutex();

} // namespace pcj::rt::cpu::detail
