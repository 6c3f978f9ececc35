// Sync: the runtime functions generated host code calls for block barriers,
// warp-level operations and grid sync (ThreadCtx.h), with CUDA semantics
// (a failing thread's entry points: KernelErrors.cpp).
//
// Barrier: a thread adds its predicate and waits; the arrival that makes
// the arrivals equal the block's live (not exited) threads computes the
// reduction, hands it to every waiter, marks them Ready and continues.  An
// exiting thread counts as arrived at every later barrier (PTX: an exiting
// thread releases a barrier it holds up; bar.red reduces over the arriving
// threads), so its exit may be what completes one.  Arrivals come with a
// call-site number: threads waiting at different syncthreads calls never
// meet, the block runs out of Ready threads, and the scheduler calls
// diagnoseStall, which reports who waits where and how many exited.
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
// activemask emulates convergence: the caller waits until no lane of its
// warp is runnable (every other live lane reached an activemask call, waits
// at a barrier or warp operation, sleeps in nanosleep, or exited); then the
// lanes waiting at the same activemask call site each get that group as the
// mask.  A lane that runs on after a warp operation thus still finds the
// lanes that resumed with it (ballot then activemask in a full warp gives
// 0xffffffff), and lanes that took another branch or left a loop earlier
// are not in it.  Without fibers (kernels that use neither barriers nor warp
// operations, so not activemask) it would return every lane of the warp.
//
// Grid barrier (cuda.cg.this_grid().sync()): the block's live threads meet
// like at a barrier (exited ones count as arrived); the last to arrive, or
// a waiter resumed when the last live thread exits, blocks its host thread
// until every block of the grid has arrived, after starting an extra host
// thread for the blocks no one has started yet (so every block is alive at
// once, bounded by kMaxCoopBlocks / kMaxCoopThreads).  A block that
// finishes while others wait (all its threads returned) makes the barrier
// impossible, as on the GPU: a Deadlock error.  nanosleep yields to the
// block's other ready threads.
//
// Synchronization errors end the calling CUDA thread (terminateThread) after
// recording the launch's first error; the rest of the block is abandoned.
#include "runtime/cpu/BlockState.h"
#include "runtime/cpu/SanitizerState.h"

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

std::string where(const ThreadBlock &B) {
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
    ThreadBlock &B = blockOf(Ctx);
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

struct BarrierResult {
  uint32_t Count;    // arrivals with pred != 0
  uint32_t Arrivals; // threads that arrived (the live ones)
};

// Completes the barrier every live thread of B has arrived at: hands the
// reduction to the waiters and marks them Ready (all but Self, which goes on).
void completeBarrier(ThreadBlock &B, const ThreadSlot *Self) {
  B.BarrierResult = B.BarrierCount;
  B.BarrierResultArrivals = B.BarrierArrived;
  B.BarrierArrived = 0;
  B.BarrierCount = 0;
  B.BarrierMixed = false;
  san::detail::barrierDone(B);
  for (uint32_t I = 0; I < B.NumThreads; ++I)
    if (&B.Slots[I] != Self && B.Slots[I].State == ThreadState::AtBarrier)
      pushReady(B, I);
}

// A block barrier: complete once every thread that has not exited arrived
// at it (exited threads count as arrived and contribute no predicate, like
// PTX bar.sync / bar.red).  Arrivals from different call sites never
// complete: the block stalls and diagnoseStall reports it.
BarrierResult barrier(pcj_thread_ctx *Ctx, bool Pred, int32_t Site,
                      int32_t Line) {
  ThreadBlock &B = blockOf(Ctx);
  ThreadSlot *S = slotOf(Ctx);
  if (!S) {
    if (B.NumThreads == 1)
      return {Pred ? 1u : 0u, 1u};
    noFiberSupport(Ctx, "syncthreads");
  }
  if (B.BarrierArrived == 0)
    B.BarrierSite = Site;
  else if (B.BarrierSite != Site)
    B.BarrierMixed = true;
  B.BarrierCount += Pred ? 1 : 0;
  S->BarrierSite = Site;
  S->BarrierLine = Line;
  if (++B.BarrierArrived == B.Live && !B.BarrierMixed) {
    completeBarrier(B, S);
    return {B.BarrierResult, B.BarrierResultArrivals};
  }
  suspend(B, *S, ThreadState::AtBarrier);
  return {B.BarrierResult, B.BarrierResultArrivals};
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
  san::detail::noteSyncFault(
      blockOf(Ctx), {Ctx->warpid * 32 + Ctx->laneid, Ctx->warpid * 32 + J});
  report(Ctx, Kind::Sync,
         "warp operation mismatch " + where(blockOf(Ctx)) + ": " +
             threadName(*Ctx) + " calls " + opString(Op) + " while lane " +
             std::to_string(J) + " waits in " + opString(W, J) +
             "; all lanes named in a mask must call the same operation with "
             "the same mask");
  terminateThread(Ctx);
}

// Runs the calling lane's warp operation Op to completion.
WarpResult warpOp(pcj_thread_ctx *Ctx, WarpOp Op) {
  ThreadBlock &B = blockOf(Ctx);
  ThreadSlot *S = slotOf(Ctx);
  uint32_t Lane = Ctx->laneid;
  uint32_t Lanes = B.NumThreads - Ctx->warpid * 32;
  uint32_t Exists = Lanes >= 32 ? ~0u : bit(Lanes) - 1;
  Op.Mask = Op.UserMask & Exists;
  if (!(Op.Mask & bit(Lane))) {
    san::detail::noteSyncFault(B, {Ctx->warpid * 32 + Lane});
    report(Ctx, Kind::Sync,
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
    san::detail::noteSyncFault(B, {Ctx->warpid * 32 + Lane});
    report(Ctx, Kind::Sync,
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
    suspend(B, *S, ThreadState::AtWarpOp);
    return WarpResult{W.Result[Lane], W.ResultPred[Lane]};
  }
  completeWarpOp(W, Op.Mask);
  san::detail::warpSynced(B, Ctx->warpid, Op.Mask);
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
  return "deadlock in kernel '" + std::string(G.Name) +
         "': " + std::to_string(G.CoopArrived) + " of " +
         std::to_string(G.NumBlocks) +
         " blocks wait in cuda.cg.this_grid().sync() while " +
         std::to_string(Done) + (Done == 1 ? " block" : " blocks") +
         " returned without reaching it; every block must call grid sync the "
         "same number of times";
}

// The calling block (its last thread to arrive) waits until every block of
// the grid arrived.  Returns false when the launch failed meanwhile.
bool gridBarrier(pcj_thread_ctx *Ctx) {
  ThreadBlock &B = blockOf(Ctx);
  Grid &G = *B.G;
  uint64_t Threads = G.NumBlocks * G.ThreadsPerBlock;
  if (G.NumBlocks > kMaxCoopBlocks || Threads > kMaxCoopThreads) {
    report(Ctx, Kind::Raised,
           "cuda.cg.this_grid().sync() in kernel '" + std::string(G.Name) +
               "' needs all " + std::to_string(G.NumBlocks) + " blocks (" +
               std::to_string(Threads) +
               " threads) of the grid running at once, but the CPU executor "
               "keeps at most " +
               std::to_string(kMaxCoopBlocks) + " blocks and " +
               std::to_string(kMaxCoopThreads) +
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
    san::detail::gridPhaseDone(G);
    G.CoopCv.notify_all();
    return true;
  }
  if (gridBarrierStuck(G)) {
    std::string Msg = gridStuckMessage(G);
    Lock.unlock();
    report(Ctx, Kind::Sync, Msg);
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
                 "blocks (" +
                 E.what() + "); launch fewer blocks");
      return false;
    }
  }
  while (G.CoopGeneration == Gen) {
    if (stopping(G))
      return false;
    // Errors elsewhere set Failed without notifying: look again now and then.
    G.CoopCv.wait_for(Lock, std::chrono::milliseconds(20));
  }
  return true;
}

} // namespace

// -- activemask -------------------------------------------------------------

void laneStopped(ThreadBlock &B, uint32_t Warp, int Self) {
  WarpState &W = B.Warps[Warp];
  if (--W.Runnable != 0 || !W.AmWaiting)
    return;
  // No lane of the warp can run on: each group of lanes waiting at the same
  // activemask call gets its own lanes as the mask.
  uint32_t Base = Warp * 32;
  for (uint32_t Pending = W.AmWaiting; Pending;) {
    int32_t Site = W.AmSite[__builtin_ctz(Pending)];
    uint32_t Group = 0;
    for (uint32_t Rest = Pending; Rest; Rest &= Rest - 1) {
      uint32_t L = static_cast<uint32_t>(__builtin_ctz(Rest));
      if (W.AmSite[L] == Site)
        Group |= bit(L);
    }
    for (uint32_t Rest = Group; Rest; Rest &= Rest - 1) {
      uint32_t L = static_cast<uint32_t>(__builtin_ctz(Rest));
      W.AmResult[L] = Group;
      if (static_cast<int>(L) == Self) {
        B.Slots[Base + L].State = ThreadState::Running;
        ++W.Runnable;
      } else {
        pushReady(B, Base + L);
      }
    }
    Pending &= ~Group;
  }
  W.AmWaiting = 0;
}

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
    recordFault(G, Kind::Sync, Msg, Dims{0, 0, 0}, Dims{0, 0, 0});
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
                 Dims BlockIdx, const char *File, int32_t Line,
                 const char *Exception) noexcept {
  std::lock_guard<std::mutex> Lock(G.ErrorMu);
  G.Failed.store(true, std::memory_order_relaxed);
  noteStopping(G);
  if (G.HasFault || G.Internal)
    return;
  try {
    G.FaultMessage = Message;
    G.FaultFile = File ? File : "";
    G.FaultException = Exception ? Exception : "";
  } catch (...) {
    G.FaultMessage.clear(); // out of memory: keep the kind and coordinates
  }
  G.FaultLine = Line;
  G.HasFault = true;
  G.FaultKind = K;
  G.FaultThread = Thread;
  G.FaultBlock = BlockIdx;
}

void terminateThread(pcj_thread_ctx *Ctx) {
  ThreadBlock &B = blockOf(Ctx);
  B.Aborted = true;
  ThreadSlot *S = slotOf(Ctx);
  if (!S)
    siglongjmp(B.FastJmp, 1);
  S->State = ThreadState::Exited;
  fiberExit(S->Fiber, B.Sched);
}

namespace {
// An exited thread counts as arrived at every later barrier: its exit may
// be the arrival that completes the block barrier, or the block's part of a
// grid barrier (a waiter is then resumed to wait for the grid).
void releaseBarriersAfterExit(ThreadBlock &B) {
  if (B.Aborted || B.Live == 0)
    return;
  if (B.BarrierArrived == B.Live && !B.BarrierMixed) {
    completeBarrier(B, nullptr);
    return;
  }
  if (B.GridArrived != B.Live)
    return;
  for (uint32_t I = 0; I < B.NumThreads; ++I) {
    if (B.Slots[I].State != ThreadState::AtGridSync)
      continue;
    B.Slots[I].LeadGrid = true;
    pushReady(B, I);
    return;
  }
}
} // namespace

void threadExited(ThreadBlock &B, ThreadSlot &S) {
  S.State = ThreadState::Exited;
  --B.Live;
  uint32_t Lane = S.Ctx.laneid;
  WarpState &W = B.Warps[S.Ctx.warpid];
  W.Exited |= bit(Lane);
  laneStopped(B, S.Ctx.warpid);
  if (!(W.Named & bit(Lane))) {
    releaseBarriersAfterExit(B);
    return;
  }
  uint32_t Stuck = 0;
  for (uint32_t Rest = W.Waiting; Rest; Rest &= Rest - 1) {
    uint32_t J = static_cast<uint32_t>(__builtin_ctz(Rest));
    if (W.Mask[J] & bit(Lane))
      Stuck |= bit(J);
  }
  uint32_t First = static_cast<uint32_t>(__builtin_ctz(Stuck));
  const ThreadSlot &Waiter = B.Slots[S.Ctx.warpid * 32 + First];
  san::detail::noteSyncFault(B, {S.Ctx.warpid * 32 + First});
  recordFault(*B.G, Kind::Sync,
              "deadlock " + where(B) + ": " + threadName(S.Ctx) +
                  " exited while " + laneList(Stuck) + " of warp " +
                  std::to_string(S.Ctx.warpid) + " wait for it in " +
                  opString(W, First) +
                  "; every lane named in the mask must reach the operation",
              threadIdxOf(Waiter.Ctx), B.Idx);
  B.Aborted = true;
}

void diagnoseStall(ThreadBlock &B) {
  uint32_t AtBarrier = 0, AtWarp = 0, AtGrid = 0, Exited = 0;
  // Barrier waiters by (line, call site); grid sync waiters by line.
  std::map<std::pair<int32_t, int32_t>, uint32_t> Lines;
  std::map<int32_t, uint32_t> GridLines;
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
      ++Lines[{S.BarrierLine, S.BarrierSite}];
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
           std::to_string(B.NumThreads) + " threads wait at " +
           (B.BarrierMixed ? "different syncthreads (" : "syncthreads (");
    bool FirstLine = true;
    for (auto [Key, Count] : Lines) {
      int32_t Line = Key.first;
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
  if (B.BarrierMixed)
    Msg += " (every thread of the block that has not returned must reach "
           "the same syncthreads call; on the GPU a barrier in divergent "
           "code is undefined behaviour)";
  else if (AtBarrier && AtGrid)
    Msg += " (some threads wait at syncthreads, others in a grid sync: "
           "every thread that has not returned must reach the same barrier)";
  else if ((AtBarrier || AtGrid) && AtWarp)
    Msg += " (threads wait at a barrier for lanes that wait in a warp "
           "operation for them)";
  Dims Thread = FirstWaiter ? threadIdxOf(FirstWaiter->Ctx) : Dims{0, 0, 0};
  // Threads at different barriers: a barrier in divergent code (undefined
  // behaviour on the GPU, a synccheck error under compute-sanitizer).
  if (B.BarrierMixed && B.San) { // one waiter per barrier call site
    std::vector<uint32_t> Waiters;
    std::map<int32_t, bool> Seen;
    for (uint32_t I = 0; I < B.NumThreads; ++I)
      if (B.Slots[I].State == ThreadState::AtBarrier &&
          !Seen[B.Slots[I].BarrierSite]) {
        Seen[B.Slots[I].BarrierSite] = true;
        Waiters.push_back(I);
      }
    san::detail::noteSyncFault(B, Waiters);
  }
  recordFault(*B.G, B.BarrierMixed ? Kind::Sync : Kind::Deadlock, Msg, Thread,
              B.Idx);
}

} // namespace pcj::rt::cpu::detail

// -- the C ABI ----------------------------------------------------------------

using namespace pcj::rt::cpu::detail;

extern "C" {

void pcj_cpu_syncthreads(pcj_thread_ctx *ctx, int32_t site, int32_t line) {
  barrier(ctx, false, site, line);
}

int32_t pcj_cpu_syncthreads_count(pcj_thread_ctx *ctx, int32_t pred,
                                  int32_t site, int32_t line) {
  return static_cast<int32_t>(barrier(ctx, pred != 0, site, line).Count);
}

int32_t pcj_cpu_syncthreads_and(pcj_thread_ctx *ctx, int32_t pred, int32_t site,
                                int32_t line) {
  BarrierResult R = barrier(ctx, pred != 0, site, line);
  return R.Count == R.Arrivals;
}

int32_t pcj_cpu_syncthreads_or(pcj_thread_ctx *ctx, int32_t pred, int32_t site,
                               int32_t line) {
  return barrier(ctx, pred != 0, site, line).Count != 0;
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

// The lanes of the caller's warp converged at this call (see the header).
uint32_t pcj_cpu_activemask(pcj_thread_ctx *ctx, int32_t site) {
  ThreadBlock &B = blockOf(ctx);
  ThreadSlot *S = slotOf(ctx);
  if (!S) { // a block run without fibers: its threads run one by one
    uint32_t Lanes = B.NumThreads - ctx->warpid * 32;
    return Lanes >= 32 ? ~0u : (1u << Lanes) - 1;
  }
  uint32_t Lane = ctx->laneid;
  WarpState &W = B.Warps[ctx->warpid];
  W.AmSite[Lane] = site;
  W.AmWaiting |= bit(Lane);
  if (W.Runnable == 1) { // the last runnable lane: release now, go on
    S->State = ThreadState::AtActiveMask;
    laneStopped(B, ctx->warpid, static_cast<int>(Lane));
    return W.AmResult[Lane];
  }
  suspend(B, *S, ThreadState::AtActiveMask);
  return W.AmResult[Lane];
}

void pcj_cpu_nanosleep(pcj_thread_ctx *ctx, uint32_t ns) {
  ThreadSlot *S = slotOf(ctx);
  ThreadBlock &B = blockOf(ctx);
  if (!S || B.QueueSize == 0) {
    std::this_thread::yield(); // other blocks may be what this one waits for
    return;
  }
  yield(B, *S);
}

// The block's live threads meet first (exited ones count as arrived); the
// last to arrive (or a waiter resumed when the last live thread exited)
// waits for the grid on the block's behalf, then releases the others.
void pcj_cpu_grid_sync(pcj_thread_ctx *ctx, int32_t line) {
  ThreadBlock &B = blockOf(ctx);
  ThreadSlot *S = slotOf(ctx);
  if (!S && B.NumThreads != 1)
    noFiberSupport(ctx, "cuda.cg.this_grid().sync()");
  if (S && ++B.GridArrived < B.Live) {
    S->BarrierLine = line;
    suspend(B, *S, ThreadState::AtGridSync);
    if (!S->LeadGrid)
      return;
    S->LeadGrid = false;
  }
  B.GridArrived = 0;
  if (!gridBarrier(ctx))
    terminateThread(ctx);
  pcj::rt::cpu::san::detail::gridResumed(B);
  if (!S)
    return;
  for (uint32_t I = 0; I < B.NumThreads; ++I)
    if (B.Slots[I].State == ThreadState::AtGridSync)
      pushReady(B, I);
}

} // extern "C"
