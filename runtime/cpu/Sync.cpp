// Sync: the runtime functions generated host code calls for block barriers,
// warp-level operations and errors (ThreadCtx.h), with CUDA semantics.
//
// Barrier: a thread adds its predicate and waits; the last of the block's
// threads to arrive computes the reduction, hands it to every waiter, marks
// them Ready and continues.  A barrier that some threads can never reach
// (they returned) leaves the block with no Ready thread; the scheduler then
// calls diagnoseStall, which reports who waits where and how many exited.
//
// Warp operations (*_sync): lanes are the 32 consecutive linear thread ids.
// A lane records its operation and waits until every lane named in the mask
// has arrived at an operation of the same kind with the same mask; the last
// arrival computes every participant's result.  Lanes outside the block (a
// partial last warp) are dropped from masks, as on the GPU.  Errors, all
// KernelFault(Deadlock): a mask naming a lane that has exited (or a lane
// exiting while named in a waiting lane's mask), a mask without the caller's
// own lane, and lanes named in each other's masks waiting in different
// operations or with different masks.
//
// Shuffles follow PTX shfl.sync exactly, from the operand CUDA derives from
// `width`: c = ((32 - width) << 8) | (up ? 0 : 0x1f).  A source lane outside
// the segment yields the caller's own value; a source lane outside the mask
// (undefined on the GPU) also yields the caller's own value.
//
// activemask returns the warp's lanes that have not exited, so on the CPU
// it depends on the interleaving: lanes run one after another between
// synchronization points, and one may have returned while the GPU would
// still run it in lockstep with the caller.  On the fast path (no fibers)
// it returns every lane of the warp.
//
// Grid barrier (cuda.cg.this_grid().sync()): the block's threads meet like
// at a barrier; the last to arrive blocks its host thread until every block
// of the grid has arrived, after starting an extra host thread for the
// blocks no one has started yet (so every block is alive at once, bounded
// by kMaxCoopBlocks / kMaxCoopThreads).  A block that finishes while others
// wait makes the barrier impossible: a Deadlock error.  nanosleep yields to
// the block's other ready threads.
//
// Errors end the calling CUDA thread (terminateThread) after recording the
// launch's first error; the rest of the block is abandoned.
#include "runtime/cpu/BlockState.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <system_error>
#include <thread>

namespace pcj::rt::cpu::detail {
namespace {

using Kind = KernelFault::Kind;

constexpr uint32_t bit(uint32_t Lane) { return 1u << Lane; }

const char *opName(WarpOpKind K, int32_t Mode) {
  switch (K) {
  case WarpOpKind::SyncWarp:
    return "syncwarp";
  case WarpOpKind::Shfl: {
    static const char *const Names[] = {"shfl_sync", "shfl_up_sync",
                                        "shfl_down_sync", "shfl_xor_sync"};
    return Mode >= 0 && Mode < 4 ? Names[Mode] : "shfl_sync";
  }
  case WarpOpKind::Vote: {
    static const char *const Names[] = {"all_sync", "any_sync", "eq_sync",
                                        "ballot_sync"};
    return Mode >= 0 && Mode < 4 ? Names[Mode] : "vote_sync";
  }
  case WarpOpKind::MatchAny:
    return "match_any_sync";
  case WarpOpKind::MatchAll:
    return "match_all_sync";
  }
  return "?";
}

std::string hex32(uint32_t V) {
  char Buf[16];
  std::snprintf(Buf, sizeof Buf, "0x%08x", V);
  return Buf;
}

// "lane 3" / "lanes 0-4, 7, 9-31"
std::string laneList(uint32_t Mask) {
  std::string Out;
  int Count = 0;
  for (uint32_t L = 0; L < 32;) {
    if (!(Mask & bit(L))) {
      ++L;
      continue;
    }
    uint32_t E = L;
    while (E + 1 < 32 && (Mask & bit(E + 1)))
      ++E;
    if (!Out.empty())
      Out += ", ";
    Out += std::to_string(L);
    if (E > L)
      Out += "-" + std::to_string(E);
    Count += static_cast<int>(E - L + 1);
    L = E + 1;
  }
  return (Count == 1 ? "lane " : "lanes ") + Out;
}

std::string opString(WarpOpKind K, int32_t Mode, uint32_t UserMask) {
  return std::string(opName(K, Mode)) + "(mask=" + hex32(UserMask) + ")";
}
std::string opString(const WarpOp &O) {
  return opString(O.Kind, O.Mode, O.UserMask);
}
// The operation lane L of W waits in.
std::string opString(const WarpState &W, uint32_t L) {
  return opString(W.Kind[L], W.Mode[L], W.UserMask[L]);
}

std::string where(const Block &B) {
  return "in kernel '" + std::string(B.G->Name) + "', block " +
         dimsString(B.Idx);
}

std::string threadName(const pcj_thread_ctx &C) {
  return "thread " + dimsString(threadIdxOf(C)) + " (warp " +
         std::to_string(C.warpid) + " lane " + std::to_string(C.laneid) + ")";
}

// Records an error attributed to the calling thread.  Callers then call
// terminateThread in a separate statement, so that the message's temporaries
// are destroyed before the thread's stack is abandoned.
void report(pcj_thread_ctx *Ctx, Kind K, const std::string &Msg) {
  recordFault(*blockOf(Ctx).G, K, Msg, threadIdxOf(*Ctx), blockOf(Ctx).Idx);
}

[[noreturn]] void noFiberSupport(pcj_thread_ctx *Ctx, const char *What) {
  {
    Block &B = blockOf(Ctx);
    recordFault(*B.G, Kind::Raised,
                "internal error: kernel '" + std::string(B.G->Name) +
                    "' calls " + What +
                    " but was launched without barrier/warp-op support "
                    "(KernelInfo::usesBarriers/usesWarpOps are false), " +
                    threadName(*Ctx) + " block " + dimsString(B.Idx),
                threadIdxOf(*Ctx), B.Idx);
  }
  terminateThread(Ctx);
}

// -- barrier ------------------------------------------------------------------

uint32_t barrier(pcj_thread_ctx *Ctx, bool Pred, int32_t Line) {
  Block &B = blockOf(Ctx);
  ThreadSlot *S = slotOf(Ctx);
  if (!S) {
    if (B.NumThreads == 1)
      return Pred ? 1 : 0;
    noFiberSupport(Ctx, "syncthreads");
  }
  B.BarrierCount += Pred ? 1 : 0;
  if (++B.BarrierArrived == B.NumThreads) {
    uint32_t Count = B.BarrierCount;
    B.BarrierArrived = 0;
    B.BarrierCount = 0;
    B.BarrierResult = Count;
    uint32_t Self = static_cast<uint32_t>(S - B.Slots);
    for (uint32_t I = 0; I < B.NumThreads; ++I)
      if (I != Self)
        pushReady(B, I);
    return Count;
  }
  S->State = ThreadState::AtBarrier;
  S->BarrierLine = Line;
  suspend(B, *S);
  return B.BarrierResult;
}

// -- warp operations ----------------------------------------------------------

// PTX shfl.sync source lane selection; returns false if out of range.
bool shflSource(uint32_t Lane, int32_t Mode, int32_t B, int32_t Width,
                uint32_t &Src) {
  uint32_t Clamp = Mode == 1 ? 0 : 0x1f;
  uint32_t C = ((32u - static_cast<uint32_t>(Width)) << 8) | Clamp;
  uint32_t SegMask = (C >> 8) & 0x1f;
  int64_t MaxLane = (Lane & SegMask) | (C & 0x1f & ~SegMask);
  int64_t MinLane = Lane & SegMask;
  int64_t BVal = static_cast<uint32_t>(B);
  int64_t J = 0;
  bool Ok = false;
  switch (Mode) {
  case 1: // up
    J = int64_t(Lane) - BVal;
    Ok = J >= MaxLane;
    break;
  case 2: // down
    J = int64_t(Lane) + BVal;
    Ok = J <= MaxLane;
    break;
  case 3: // xor (bfly)
    J = int64_t(Lane) ^ BVal;
    Ok = J <= MaxLane;
    break;
  default: // idx
    J = MinLane | (BVal & 0x1f & ~int64_t(SegMask));
    Ok = J <= MaxLane;
    break;
  }
  Src = Ok ? static_cast<uint32_t>(J) : Lane;
  return Ok;
}

// Computes the result of every lane in Mask.
void completeWarpOp(WarpState &W, uint32_t Mask) {
  uint32_t Ballot = 0;
  bool AllEqual = true;
  uint64_t First = W.Value[__builtin_ctz(Mask)];
  for (uint32_t Rest = Mask; Rest; Rest &= Rest - 1) {
    uint32_t L = static_cast<uint32_t>(__builtin_ctz(Rest));
    if (W.Pred[L])
      Ballot |= bit(L);
    AllEqual &= W.Value[L] == First;
  }
  for (uint32_t Rest = Mask; Rest; Rest &= Rest - 1) {
    uint32_t L = static_cast<uint32_t>(__builtin_ctz(Rest));
    switch (W.Kind[L]) {
    case WarpOpKind::SyncWarp:
      break;
    case WarpOpKind::Shfl: {
      uint32_t Src = L;
      bool Ok = shflSource(L, W.Mode[L], W.Lane[L], W.Width[L], Src);
      W.Result[L] = Ok && (Mask & bit(Src)) ? W.Value[Src] : W.Value[L];
      W.ResultPred[L] = Ok;
      break;
    }
    case WarpOpKind::Vote:
      switch (W.Mode[L]) {
      case 0:
        W.Result[L] = Ballot == Mask;
        break;
      case 1:
        W.Result[L] = Ballot != 0;
        break;
      case 2:
        W.Result[L] = Ballot == 0 || Ballot == Mask;
        break;
      default:
        W.Result[L] = Ballot;
        break;
      }
      break;
    case WarpOpKind::MatchAny: {
      uint32_t Same = 0;
      for (uint32_t K = Mask; K; K &= K - 1) {
        uint32_t J = static_cast<uint32_t>(__builtin_ctz(K));
        if (W.Value[J] == W.Value[L])
          Same |= bit(J);
      }
      W.Result[L] = Same;
      break;
    }
    case WarpOpKind::MatchAll:
      W.Result[L] = AllEqual ? Mask : 0;
      W.ResultPred[L] = AllEqual;
      break;
    }
  }
}

void storeOp(WarpState &W, uint32_t L, const WarpOp &Op) {
  W.Kind[L] = Op.Kind;
  W.Mode[L] = static_cast<int8_t>(Op.Mode);
  W.Mask[L] = Op.Mask;
  W.UserMask[L] = Op.UserMask;
  W.Lane[L] = Op.Lane;
  W.Width[L] = Op.Width;
  W.Pred[L] = Op.Pred;
  W.Value[L] = Op.Value;
  W.Result[L] = 0;
  W.ResultPred[L] = 0;
}

struct WarpResult {
  uint64_t Value;
  int32_t Pred;
};

[[noreturn]] void mismatch(pcj_thread_ctx *Ctx, const WarpOp &Op,
                           const WarpState &W, uint32_t J) {
  report(Ctx, Kind::Deadlock,
         "warp operation mismatch " + where(blockOf(Ctx)) + ": " +
             threadName(*Ctx) + " calls " + opString(Op) + " while lane " +
             std::to_string(J) + " waits in " + opString(W, J) +
             "; all lanes named in a mask must call the same operation with "
             "the same mask");
  terminateThread(Ctx);
}

// Runs the calling lane's warp operation Op to completion.
WarpResult warpOp(pcj_thread_ctx *Ctx, WarpOp Op) {
  Block &B = blockOf(Ctx);
  ThreadSlot *S = slotOf(Ctx);
  uint32_t Lane = Ctx->laneid;
  uint32_t Lanes = B.NumThreads - Ctx->warpid * 32;
  uint32_t Exists = Lanes >= 32 ? ~0u : bit(Lanes) - 1;
  Op.Mask = Op.UserMask & Exists;
  if (!(Op.Mask & bit(Lane))) {
    report(Ctx, Kind::Deadlock,
           "invalid warp operation " + where(B) + ": " + threadName(*Ctx) +
               " calls " + opString(Op) +
               ", whose mask does not name the calling lane");
    terminateThread(Ctx);
  }
  if (!S) {
    if (Op.Mask != bit(Lane))
      noFiberSupport(Ctx, opName(Op.Kind, Op.Mode));
    WarpState Alone; // a single participant completes at once
    storeOp(Alone, Lane, Op);
    completeWarpOp(Alone, Op.Mask);
    return WarpResult{Alone.Result[Lane], Alone.ResultPred[Lane]};
  }

  WarpState &W = B.Warps[Ctx->warpid];
  if (uint32_t Gone = Op.Mask & W.Exited) {
    report(Ctx, Kind::Deadlock,
           "deadlock " + where(B) + ": " + threadName(*Ctx) + " calls " +
               opString(Op) + " but " + laneList(Gone) +
               " named in the mask already exited; every lane named in the "
               "mask must reach the operation");
    terminateThread(Ctx);
  }
  // Waiting lanes that name each other always agree (checked as each
  // arrived), so one waiting lane of the mask stands for all of them.
  if (uint32_t Inside = W.Waiting & Op.Mask) {
    uint32_t R = static_cast<uint32_t>(__builtin_ctz(Inside));
    if (W.Mask[R] != Op.Mask || W.Kind[R] != Op.Kind)
      mismatch(Ctx, Op, W, R);
  }
  if (W.Named & bit(Lane)) { // named by a lane outside the mask?
    for (uint32_t Rest = W.Waiting & ~Op.Mask; Rest; Rest &= Rest - 1) {
      uint32_t J = static_cast<uint32_t>(__builtin_ctz(Rest));
      if (W.Mask[J] & bit(Lane))
        mismatch(Ctx, Op, W, J);
    }
  }

  storeOp(W, Lane, Op);
  W.Waiting |= bit(Lane);
  W.Named |= Op.Mask;
  if ((W.Waiting & Op.Mask) != Op.Mask) {
    S->State = ThreadState::AtWarpOp;
    suspend(B, *S);
    return WarpResult{W.Result[Lane], W.ResultPred[Lane]};
  }
  completeWarpOp(W, Op.Mask);
  W.Waiting &= ~Op.Mask;
  W.Named = 0;
  for (uint32_t Rest = W.Waiting; Rest; Rest &= Rest - 1)
    W.Named |= W.Mask[__builtin_ctz(Rest)];
  uint32_t WarpBase = Ctx->warpid * 32;
  for (uint32_t Rest = Op.Mask & ~bit(Lane); Rest; Rest &= Rest - 1)
    pushReady(B, WarpBase + static_cast<uint32_t>(__builtin_ctz(Rest)));
  return WarpResult{W.Result[Lane], W.ResultPred[Lane]};
}

WarpOp makeOp(WarpOpKind K, uint32_t Mask) {
  WarpOp Op;
  Op.Kind = K;
  Op.UserMask = Mask;
  return Op;
}

// -- grid barrier -------------------------------------------------------------

// Every block of a grid that synchronizes is alive at once, each waiting one
// on its own host thread with its fibers' stacks: bounded like a GPU's
// co-residency limit.
constexpr uint64_t kMaxCoopBlocks = 1024;
constexpr uint64_t kMaxCoopThreads = 16384;

// With CoopMu held: the current grid barrier can never complete when every
// block has either arrived or finished, and some finished.
bool gridBarrierStuck(const Grid &G) {
  uint64_t Done = G.BlocksDone.load();
  return G.CoopArrived > 0 && Done > 0 && G.CoopArrived + Done >= G.NumBlocks;
}

std::string gridStuckMessage(const Grid &G) {
  uint64_t Done = G.BlocksDone.load();
  return "deadlock in kernel '" + std::string(G.Name) + "': " +
         std::to_string(G.CoopArrived) + " of " + std::to_string(G.NumBlocks) +
         " blocks wait in cuda.cg.this_grid().sync() while " +
         std::to_string(Done) + (Done == 1 ? " block" : " blocks") +
         " returned without reaching it; every block must call grid sync the "
         "same number of times";
}

// The calling block (its last thread to arrive) waits until every block of
// the grid arrived.  Returns false when the launch failed meanwhile.
bool gridBarrier(pcj_thread_ctx *Ctx) {
  Block &B = blockOf(Ctx);
  Grid &G = *B.G;
  uint64_t Threads = G.NumBlocks * G.ThreadsPerBlock;
  if (G.NumBlocks > kMaxCoopBlocks || Threads > kMaxCoopThreads) {
    report(Ctx, Kind::Raised,
           "cuda.cg.this_grid().sync() in kernel '" + std::string(G.Name) +
               "' needs all " + std::to_string(G.NumBlocks) + " blocks (" +
               std::to_string(Threads) +
               " threads) of the grid running at once, but the CPU executor "
               "keeps at most " + std::to_string(kMaxCoopBlocks) +
               " blocks and " + std::to_string(kMaxCoopThreads) +
               " threads of a synchronizing grid alive (a GPU: about its "
               "multiprocessor count times the blocks that fit on one); "
               "launch fewer blocks and cover the data with a grid-stride "
               "loop");
    return false;
  }
  G.CoopActive.store(true);
  std::unique_lock<std::mutex> Lock(G.CoopMu);
  uint64_t Gen = G.CoopGeneration;
  if (++G.CoopArrived == G.NumBlocks) {
    G.CoopArrived = 0;
    ++G.CoopGeneration;
    G.CoopCv.notify_all();
    return true;
  }
  if (gridBarrierStuck(G)) {
    std::string Msg = gridStuckMessage(G);
    Lock.unlock();
    report(Ctx, Kind::Deadlock, Msg);
    return false;
  }
  // Blocks that have not started need a host thread while this one waits.
  if (G.NextBlock.load(std::memory_order_relaxed) < G.NumBlocks) {
    try {
      G.CoopThreads.emplace_back([&G] { runGridBlocks(G); });
    } catch (const std::system_error &E) {
      Lock.unlock();
      report(Ctx, Kind::Raised,
             "cuda.cg.this_grid().sync() in kernel '" + std::string(G.Name) +
                 "': could not start a host thread for the grid's remaining "
                 "blocks (" + E.what() + "); launch fewer blocks");
      return false;
    }
  }
  while (G.CoopGeneration == Gen) {
    if (G.Failed.load(std::memory_order_relaxed))
      return false;
    // Errors elsewhere set Failed without notifying: look again now and then.
    G.CoopCv.wait_for(Lock, std::chrono::milliseconds(20));
  }
  return true;
}

} // namespace

void blockFinished(Grid &G) noexcept {
  G.BlocksDone.fetch_add(1);
  if (!G.CoopActive.load())
    return;
  std::string Msg;
  {
    std::lock_guard<std::mutex> Lock(G.CoopMu);
    if (gridBarrierStuck(G))
      Msg = gridStuckMessage(G);
    G.CoopCv.notify_all();
  }
  if (!Msg.empty())
    recordFault(G, Kind::Deadlock, Msg, Dims{0, 0, 0}, Dims{0, 0, 0});
}

void joinGridThreads(Grid &G) {
  for (;;) {
    std::vector<std::thread> Threads;
    {
      std::lock_guard<std::mutex> Lock(G.CoopMu);
      Threads.swap(G.CoopThreads);
    }
    if (Threads.empty())
      return;
    for (std::thread &T : Threads)
      T.join();
  }
}

// -- errors -------------------------------------------------------------------

void recordFault(Grid &G, Kind K, const std::string &Message, Dims Thread,
                 Dims BlockIdx) noexcept {
  std::lock_guard<std::mutex> Lock(G.ErrorMu);
  G.Failed.store(true, std::memory_order_relaxed);
  if (G.HasFault || G.Internal)
    return;
  try {
    G.FaultMessage = Message;
  } catch (...) {
    G.FaultMessage.clear(); // out of memory: keep the kind and coordinates
  }
  G.HasFault = true;
  G.FaultKind = K;
  G.FaultThread = Thread;
  G.FaultBlock = BlockIdx;
}

void terminateThread(pcj_thread_ctx *Ctx) {
  Block &B = blockOf(Ctx);
  B.Aborted = true;
  ThreadSlot *S = slotOf(Ctx);
  if (!S)
    siglongjmp(B.FastJmp, 1);
  S->State = ThreadState::Exited;
  fiberExit(S->Fiber, B.Sched);
}

void threadExited(Block &B, ThreadSlot &S) {
  S.State = ThreadState::Exited;
  --B.Live;
  uint32_t Lane = S.Ctx.laneid;
  WarpState &W = B.Warps[S.Ctx.warpid];
  W.Exited |= bit(Lane);
  if (!(W.Named & bit(Lane)))
    return;
  uint32_t Stuck = 0;
  for (uint32_t Rest = W.Waiting; Rest; Rest &= Rest - 1) {
    uint32_t J = static_cast<uint32_t>(__builtin_ctz(Rest));
    if (W.Mask[J] & bit(Lane))
      Stuck |= bit(J);
  }
  uint32_t First = static_cast<uint32_t>(__builtin_ctz(Stuck));
  const ThreadSlot &Waiter = B.Slots[S.Ctx.warpid * 32 + First];
  recordFault(*B.G, Kind::Deadlock,
              "deadlock " + where(B) + ": " + threadName(S.Ctx) +
                  " exited while " + laneList(Stuck) + " of warp " +
                  std::to_string(S.Ctx.warpid) + " wait for it in " +
                  opString(W, First) +
                  "; every lane named in the mask must reach the operation",
              threadIdxOf(Waiter.Ctx), B.Idx);
  B.Aborted = true;
}

void diagnoseStall(Block &B) {
  uint32_t AtBarrier = 0, AtWarp = 0, AtGrid = 0, Exited = 0;
  std::map<int32_t, uint32_t> Lines, GridLines;
  const ThreadSlot *FirstWaiter = nullptr;
  for (uint32_t I = 0; I < B.NumThreads; ++I) {
    const ThreadSlot &S = B.Slots[I];
    if (S.State == ThreadState::Exited) {
      ++Exited;
      continue;
    }
    if (!FirstWaiter)
      FirstWaiter = &S;
    if (S.State == ThreadState::AtBarrier) {
      ++AtBarrier;
      ++Lines[S.BarrierLine];
    } else if (S.State == ThreadState::AtGridSync) {
      ++AtGrid;
      ++GridLines[S.BarrierLine];
    } else {
      ++AtWarp;
    }
  }
  std::string Msg = "deadlock " + where(B) + ": no thread can make progress";
  if (AtBarrier) {
    Msg += "; " + std::to_string(AtBarrier) + " of " +
           std::to_string(B.NumThreads) + " threads wait at syncthreads (";
    bool FirstLine = true;
    for (auto [Line, Count] : Lines) {
      if (!FirstLine)
        Msg += ", ";
      FirstLine = false;
      Msg += (Line > 0 ? "line " + std::to_string(Line) : "unknown line") +
             ": " + std::to_string(Count) +
             (Count == 1 ? " thread" : " threads");
    }
    Msg += ")";
  }
  if (AtGrid) {
    Msg += "; " + std::to_string(AtGrid) + " of " +
           std::to_string(B.NumThreads) +
           " threads wait in cuda.cg.this_grid().sync() (";
    bool FirstLine = true;
    for (auto [Line, Count] : GridLines) {
      if (!FirstLine)
        Msg += ", ";
      FirstLine = false;
      Msg += (Line > 0 ? "line " + std::to_string(Line) : "unknown line") +
             ": " + std::to_string(Count) +
             (Count == 1 ? " thread" : " threads");
    }
    Msg += ")";
  }
  if (AtWarp) {
    Msg += "; " + std::to_string(AtWarp) + " threads wait in warp operations";
    uint32_t NumWarps = (B.NumThreads + 31) / 32;
    int Shown = 0;
    for (uint32_t W = 0; W < NumWarps && Shown < 4; ++W) {
      const WarpState &WS = B.Warps[W];
      if (!WS.Waiting)
        continue;
      uint32_t L = static_cast<uint32_t>(__builtin_ctz(WS.Waiting));
      Msg += (Shown++ ? ", " : " (") + std::string("warp ") +
             std::to_string(W) + ": " + laneList(WS.Waiting) + " in " +
             opString(WS, L) + " waiting for " +
             laneList(WS.Mask[L] & ~WS.Waiting);
    }
    if (Shown)
      Msg += ")";
  }
  Msg += "; " + std::to_string(Exited) +
         (Exited == 1 ? " thread" : " threads") + " exited";
  if ((AtBarrier || AtGrid) && Exited)
    Msg += " (a syncthreads or grid sync must be reached by every thread of "
           "the block; threads that return before it make it wait forever)";
  else if (AtBarrier && AtWarp)
    Msg += " (threads wait at a barrier for lanes that wait in a warp "
           "operation for them)";
  Dims Thread = FirstWaiter ? threadIdxOf(FirstWaiter->Ctx) : Dims{0, 0, 0};
  recordFault(*B.G, Kind::Deadlock, Msg, Thread, B.Idx);
}

} // namespace pcj::rt::cpu::detail

// -- the C ABI ----------------------------------------------------------------

using namespace pcj::rt::cpu::detail;

extern "C" {

void pcj_cpu_syncthreads(pcj_thread_ctx *ctx, int32_t line) {
  barrier(ctx, false, line);
}

int32_t pcj_cpu_syncthreads_count(pcj_thread_ctx *ctx, int32_t pred,
                                  int32_t line) {
  return static_cast<int32_t>(barrier(ctx, pred != 0, line));
}

int32_t pcj_cpu_syncthreads_and(pcj_thread_ctx *ctx, int32_t pred,
                                int32_t line) {
  return barrier(ctx, pred != 0, line) == blockOf(ctx).NumThreads;
}

int32_t pcj_cpu_syncthreads_or(pcj_thread_ctx *ctx, int32_t pred,
                               int32_t line) {
  return barrier(ctx, pred != 0, line) != 0;
}

void pcj_cpu_syncwarp(pcj_thread_ctx *ctx, uint32_t mask) {
  warpOp(ctx, makeOp(WarpOpKind::SyncWarp, mask));
}

uint64_t pcj_cpu_shfl_sync(pcj_thread_ctx *ctx, uint32_t mask, uint64_t value,
                           int32_t mode, int32_t lane, int32_t width) {
  WarpOp Op = makeOp(WarpOpKind::Shfl, mask);
  Op.Value = value;
  Op.Mode = mode;
  Op.Lane = lane;
  Op.Width = width;
  return warpOp(ctx, Op).Value;
}

uint32_t pcj_cpu_vote_sync(pcj_thread_ctx *ctx, uint32_t mask, int32_t pred,
                           int32_t mode) {
  WarpOp Op = makeOp(WarpOpKind::Vote, mask);
  Op.Pred = pred != 0;
  Op.Mode = mode;
  return static_cast<uint32_t>(warpOp(ctx, Op).Value);
}

uint32_t pcj_cpu_match_any_sync(pcj_thread_ctx *ctx, uint32_t mask,
                                uint64_t value) {
  WarpOp Op = makeOp(WarpOpKind::MatchAny, mask);
  Op.Value = value;
  return static_cast<uint32_t>(warpOp(ctx, Op).Value);
}

uint32_t pcj_cpu_match_all_sync(pcj_thread_ctx *ctx, uint32_t mask,
                                uint64_t value, int32_t *pred) {
  WarpOp Op = makeOp(WarpOpKind::MatchAll, mask);
  Op.Value = value;
  WarpResult R = warpOp(ctx, Op);
  if (pred)
    *pred = R.Pred;
  return static_cast<uint32_t>(R.Value);
}

uint32_t pcj_cpu_activemask(pcj_thread_ctx *ctx) {
  Block &B = blockOf(ctx);
  uint32_t WarpBase = ctx->warpid * 32;
  uint32_t Lanes = B.NumThreads - WarpBase;
  uint32_t Exists = Lanes >= 32 ? ~0u : (1u << Lanes) - 1;
  if (!slotOf(ctx))
    return Exists; // threads of the fast path run as if all concurrently
  return Exists & ~B.Warps[ctx->warpid].Exited;
}

void pcj_cpu_nanosleep(pcj_thread_ctx *ctx, uint32_t ns) {
  ThreadSlot *S = slotOf(ctx);
  Block &B = blockOf(ctx);
  if (!S || B.QueueSize == 0) {
    std::this_thread::yield(); // other blocks may be what this one waits for
    return;
  }
  pushReady(B, static_cast<uint32_t>(S - B.Slots));
  suspend(B, *S);
}

void pcj_cpu_grid_sync(pcj_thread_ctx *ctx, int32_t line) {
  Block &B = blockOf(ctx);
  ThreadSlot *S = slotOf(ctx);
  if (!S && B.NumThreads != 1)
    noFiberSupport(ctx, "cuda.cg.this_grid().sync()");
  // The block's threads meet first; the last to arrive waits for the grid.
  if (S && ++B.GridArrived < B.NumThreads) {
    S->State = ThreadState::AtGridSync;
    S->BarrierLine = line;
    suspend(B, *S);
    return;
  }
  B.GridArrived = 0;
  if (!gridBarrier(ctx))
    terminateThread(ctx);
  if (S) {
    uint32_t Self = static_cast<uint32_t>(S - B.Slots);
    for (uint32_t I = 0; I < B.NumThreads; ++I)
      if (I != Self)
        pushReady(B, I);
  }
}

void pcj_cpu_index_error(pcj_thread_ctx *ctx, const pcj_index_site *site,
                         int64_t index, int32_t axis, int64_t extent) {
  if (!ctx || !ctx->sched) {
    std::fprintf(stderr, "pycuda_jit: index error outside the CPU executor\n");
    std::abort();
  }
  {
    Block &B = blockOf(ctx);
    const char *Kernel = site && site->kernel ? site->kernel : B.G->Name;
    const char *File = site && site->file ? site->file : "<unknown>";
    int32_t Line = site ? site->line : 0;
    recordFault(*B.G, Kind::IndexError,
                "index " + std::to_string(index) +
                    " is out of bounds for axis " + std::to_string(axis) +
                    " with size " + std::to_string(extent) + " in kernel '" +
                    Kernel + "' (" + File + ":" + std::to_string(Line) +
                    "), thread " + dimsString(threadIdxOf(*ctx)) + " block " +
                    dimsString(B.Idx),
                threadIdxOf(*ctx), B.Idx);
  }
  terminateThread(ctx);
}

void pcj_cpu_error(pcj_thread_ctx *ctx, const pcj_error_site *site) {
  if (!ctx || !ctx->sched) {
    std::fprintf(stderr, "pycuda_jit: kernel error outside the CPU executor: %s\n",
                 site && site->message ? site->message : "");
    std::abort();
  }
  {
    Block &B = blockOf(ctx);
    Kind K = site && site->kind == PCJ_ERROR_ZERO_DIVISION ? Kind::ZeroDivision
                                                           : Kind::IndexError;
    std::string Message = site && site->message ? site->message : "error";
    const char *Kernel = site && site->kernel ? site->kernel : B.G->Name;
    const char *File = site && site->file ? site->file : "<unknown>";
    int32_t Line = site ? site->line : 0;
    recordFault(*B.G, K,
                Message + " in kernel '" + Kernel + "' (" + File + ":" +
                    std::to_string(Line) + "), thread " +
                    dimsString(threadIdxOf(*ctx)) + " block " + dimsString(B.Idx),
                threadIdxOf(*ctx), B.Idx);
  }
  terminateThread(ctx);
}

void pcj_cpu_raise(pcj_thread_ctx *ctx, const char *message) {
  if (!ctx || !ctx->sched) {
    std::fprintf(stderr,
                 "pycuda_jit: kernel error outside the CPU executor: %s\n",
                 message ? message : "");
    std::abort();
  }
  {
    Block &B = blockOf(ctx);
    recordFault(*B.G, Kind::Raised,
                std::string(message ? message : "exception raised") +
                    " in kernel '" + B.G->Name + "', thread " +
                    dimsString(threadIdxOf(*ctx)) + " block " +
                    dimsString(B.Idx),
                threadIdxOf(*ctx), B.Idx);
  }
  terminateThread(ctx);
}

} // extern "C"
