// Sanitizer: the checks behind pcj_san_access (Sanitizer.h has the model).
//
// Every access of a sanitized kernel locks its granule's cell (Shadow.cpp),
// compares itself with the accesses recorded there, records itself and
// unlocks.  Two accesses are ordered when
//
//   - the recorded one is from an earlier grid phase or launch (its block
//     serial is below the grid's phase base);
//   - both are from one block serial and a barrier completed between them
//     (different intervals), or they are the same thread's, or their lanes
//     are in one warp and a warp operation naming both ran between them:
//     each thread keeps a clock per lane of its warp (vector clocks over 32
//     lanes); a completed warp operation joins its participants' clocks and
//     advances each one's own;
//   - they are from different blocks of one phase and the first block made
//     an atomic on some global location after its access while the second
//     made one on the same location before its own (atomics order like
//     acquire-release operations, with or without a fence).  Clocks of a
//     process-wide counter are taken before and after every global atomic;
//     consecutive atomics of a block on one location with no other global
//     access between them form one run (a spin loop), so the log stays
//     small.
//
// A race is two unordered accesses from different threads, at least one a
// write or atomic, not both atomics, touching a common byte.  Records of
// shared and local memory from before the block started are stale: shared
// memory starts uninitialized in every block, and a local array is
// initialized only by its own thread.  Reads of global memory nothing wrote
// in any launch look up the allocation registry once per granule: inside a
// device_array the host has not written, they are uninitialized reads;
// anywhere else the granule is then marked known-initialized.
#include "runtime/cpu/SanitizerState.h"

#include <cstdlib>
#include <deque>
#include <map>
#include <shared_mutex>

namespace pcj::rt::cpu::san {
namespace detail {
namespace {

std::atomic<uint32_t> SerialCounter{0};
std::atomic<uint64_t> Clock{0};

uint32_t newSerial() { return SerialCounter.fetch_add(1) + 1; }

// ---- the allocation registry ------------------------------------------------

struct Allocation {
  uintptr_t end;
  bool initialized;
};

struct Registry {
  std::shared_mutex mu;
  std::map<uintptr_t, Allocation> allocs;
  std::atomic<uint64_t> generation{1};
  // Quarantine (armed only): freed blocks not yet given back.
  std::mutex qmu;
  struct Held {
    void *ptr;
    size_t bytes;
    void (*release)(void *);
  };
  std::deque<Held> held;
  size_t heldBytes = 0;
};
Registry &registry() {
  static auto *R = new Registry(); // outlives static destructors
  return *R;
}

std::atomic<bool> Armed{false};

size_t quarantineLimit() {
  static const size_t Limit = [] {
    const char *Env = std::getenv("PYCUDA_JIT_SANITIZE_QUARANTINE_MB");
    long MB = Env && *Env ? std::strtol(Env, nullptr, 10) : 256;
    return size_t(MB < 0 ? 0 : MB) << 20;
  }();
  return Limit;
}

// The last registry answer of this host thread, valid while the registry's
// generation is unchanged: [Lo, Hi) is (not) uninitialized device memory.
struct RegistryCache {
  uint64_t generation = 0;
  uintptr_t lo = 0, hi = 0;
  bool uninit = false;
};
thread_local RegistryCache Cache;

} // namespace

bool inUninitializedAllocation(uintptr_t Addr) {
  Registry &R = registry();
  uint64_t Gen = R.generation.load(std::memory_order_acquire);
  if (Cache.generation == Gen && Addr >= Cache.lo && Addr < Cache.hi)
    return Cache.uninit;
  std::shared_lock<std::shared_mutex> Lock(R.mu);
  Gen = R.generation.load(std::memory_order_relaxed);
  auto It = R.allocs.upper_bound(Addr);
  uintptr_t Hi = It == R.allocs.end() ? ~uintptr_t(0) : It->first;
  uintptr_t Lo = 0;
  bool Uninit = false;
  if (It != R.allocs.begin()) {
    --It;
    if (Addr < It->second.end) {
      Lo = It->first;
      Hi = It->second.end;
      Uninit = !It->second.initialized;
    } else {
      Lo = It->second.end;
    }
  }
  Cache = RegistryCache{Gen, Lo, Hi, Uninit};
  return Uninit;
}

namespace {

// ---- ordering -----------------------------------------------------------------

uint16_t linearTid(const pcj_thread_ctx *Ctx) {
  return uint16_t(Ctx->warpid * 32 + Ctx->laneid);
}

uint32_t ownClock(const SanBlock &S, uint16_t Tid) {
  return S.vc ? S.vc[size_t(Tid) * 32 + Tid % 32] : 1;
}

// Block Writer made an atomic on a location, after its access with runs
// count Rseq, that block Reader made one on later.
bool atomicOrdered(SanGrid &G, uint32_t Writer, uint32_t Rseq, uint32_t Reader) {
  std::lock_guard<std::mutex> Lock(G.mu);
  auto R = G.runs.find(Writer);
  if (R == G.runs.end())
    return false;
  for (size_t K = Rseq; K < R->second.size(); ++K) {
    const AtomicRun &Run = R->second[K];
    auto L = G.lastAt.find(Run.loc);
    if (L == G.lastAt.end())
      continue;
    auto T = L->second.find(Reader);
    if (T != L->second.end() && T->second > Run.tauPre)
      return true;
  }
  return false;
}

struct Probe {
  SanBlock &S;
  uint16_t tid;
  uint8_t space; // PCJ_SAN_GLOBAL / SHARED / LOCAL
  Rec me;
};

// Whether record R (live) happened before access A.
bool ordered(const Rec &R, const Probe &A) {
  const SanBlock &S = A.S;
  if (R.blk < S.G->phaseBase.load(std::memory_order_relaxed))
    return true;
  if (R.blk == S.serial) {
    if (R.ivl != S.ivl || R.tid == A.tid)
      return true;
    if (R.tid / 32 != A.tid / 32)
      return false;
    return S.vc && S.vc[size_t(A.tid) * 32 + R.tid % 32] >= R.wclk;
  }
  if (A.space != PCJ_SAN_GLOBAL)
    return true; // shared memory of another block: reused memory, stale
  if (!S.G->anyAtomics.load(std::memory_order_acquire))
    return false;
  return atomicOrdered(*S.G, R.blk, R.rseq, S.serial);
}

// Record R is from before the block started (shared and local memory).
bool stale(const Rec &R, const Probe &A) {
  return R.blk == 0 ||
         (A.space != PCJ_SAN_GLOBAL && R.blk < A.S.firstSerial);
}

bool conflicts(const Rec &R, const Probe &A) {
  if (stale(R, A) || !(R.mask & A.me.mask))
    return false;
  if (R.op == OpRead && A.me.op == OpRead)
    return false;
  if (R.op == OpAtomic && A.me.op == OpAtomic)
    return false;
  return !ordered(R, A);
}

void addFinding(SanGrid &G, Finding::Kind K, const Rec *First, const Rec &Second,
                int64_t Index) {
  uint32_t A = First ? First->site : 0, B = Second.site;
  if (K == Finding::Kind::Race && A > B)
    std::swap(A, B);
  std::lock_guard<std::mutex> Lock(G.findMu);
  if (!G.seen.insert({int(K), A, B}).second)
    return;
  if (G.found.size() >= reportLimit()) {
    ++G.dropped;
    return;
  }
  RawFinding F;
  F.kind = K;
  F.first = First ? *First : Rec{};
  F.second = Second;
  F.index = Index;
  G.found.push_back(F);
}

void recordRead(Cell &C, const Probe &A) {
  for (Rec &R : C.r)
    if (R.blk == A.me.blk && R.tid == A.me.tid) {
      R = A.me;
      return;
    }
  // A read that happened before this one can go: whatever races with it
  // races with this one too.
  for (Rec &R : C.r)
    if (stale(R, A) || ordered(R, A)) {
      R = A.me;
      return;
    }
  C.r[1] = A.me;
}

void checkCell(Cell &C, Probe &A, uintptr_t Addr, int64_t Index) {
  SanBlock &S = A.S;
  SanGrid &G = *S.G;
  uint8_t Checks = S.checks;
  Rec &Me = A.me;
  lockCell(C);
  if (C.state & Freed) {
    if (Checks & Bounds)
      addFinding(G, Finding::Kind::UseAfterFree, nullptr, Me, Index);
    unlockCell(C);
    return;
  }
  if (A.space == PCJ_SAN_LOCAL) {
    // Private memory: initialized only by this thread's own writes.
    bool Mine = !stale(C.w, A) && C.w.tid == A.tid;
    if (Me.op != OpWrite && (Checks & Init) &&
        !(Mine && (C.state & Me.mask) == Me.mask))
      addFinding(G, Finding::Kind::Uninitialized, nullptr, Me, Index);
    if (Me.op != OpRead) {
      if (!Mine)
        C.state &= ~WrittenBytes;
      C.w = Me;
      C.state |= Me.mask;
    }
    unlockCell(C);
    return;
  }
  if (A.space == PCJ_SAN_SHARED && stale(C.w, A))
    C.state &= ~WrittenBytes; // written by an earlier block, if at all
  if (Me.op != OpWrite && (Checks & Init) &&
      (C.state & Me.mask) != Me.mask) {
    if (A.space == PCJ_SAN_SHARED || inUninitializedAllocation(Addr))
      addFinding(G, Finding::Kind::Uninitialized, nullptr, Me, Index);
    else
      C.state |= WrittenBytes; // host memory or initialized by the host
  }
  if (Checks & Race) {
    if (conflicts(C.w, A))
      addFinding(G, Finding::Kind::Race, &C.w, Me, Index);
    if (Me.op != OpRead)
      for (const Rec &R : C.r)
        if (conflicts(R, A))
          addFinding(G, Finding::Kind::Race, &R, Me, Index);
  }
  if (Me.op == OpRead) {
    recordRead(C, A);
  } else {
    C.w = Me;
    C.state |= Me.mask;
    C.r[0].blk = C.r[1].blk = 0;
  }
  unlockCell(C);
}

} // namespace

// ---- executor hooks -------------------------------------------------------------

void launchBegin(Grid &G, SanGrid &S, uint8_t Checks) {
  S.checks = Checks;
  S.phaseBase.store(SerialCounter.load() + 1);
  G.San = &S;
  arm();
}

namespace {
thread_local SanBlock BlockState;

void registerSerial(Block &B) {
  SanGrid &G = *B.G->San;
  uint64_t Linear = (uint64_t(B.Idx.z) * B.G->GridDim.y + B.Idx.y) *
                        B.G->GridDim.x + B.Idx.x;
  std::lock_guard<std::mutex> Lock(G.mu);
  G.blockOfSerial[B.San->serial] = Linear;
}
} // namespace

void blockBegin(Block &B) {
  SanBlock &S = BlockState;
  S.G = B.G->San;
  S.checks = S.G->checks;
  S.serial = S.firstSerial = newSerial();
  S.ivl = S.rseq = 0;
  S.dirty = true;
  S.runLoc = 0;
  S.numThreads = B.NumThreads;
  S.syncSite.assign(B.NumThreads, 0);
  S.vc = nullptr;
  if (B.G->Kernel->usesWarpOps) {
    S.vcStore.assign(size_t(B.NumThreads) * 32, 0);
    S.vc = S.vcStore.data();
    for (uint32_t T = 0; T < B.NumThreads; ++T)
      S.vc[size_t(T) * 32 + T % 32] = 1;
  }
  B.San = &S;
  registerSerial(B);
}

void blockEnd(Block &B) { B.San = nullptr; }

void noteSyncFault(Block &B, const std::vector<uint32_t> &Tids) {
  SanBlock *S = B.San;
  if (!S)
    return;
  std::lock_guard<std::mutex> Lock(S->G->findMu);
  if (!S->G->syncFault.empty())
    return;
  for (uint32_t T : Tids) {
    if (T >= S->syncSite.size() || !S->syncSite[T])
      continue;
    Rec R{};
    R.blk = S->serial;
    R.site = S->syncSite[T];
    R.tid = uint16_t(T);
    R.op = OpSync;
    S->G->syncFault.push_back(R);
  }
}

void noteSyncFault(Block &B, std::initializer_list<uint32_t> Tids) {
  noteSyncFault(B, std::vector<uint32_t>(Tids));
}

void warpSynced(Block &B, uint32_t W, uint32_t Mask) {
  SanBlock *S = B.San;
  if (!S || !S->vc)
    return;
  uint32_t Join[32] = {};
  uint32_t Base = W * 32;
  for (uint32_t Rest = Mask; Rest; Rest &= Rest - 1) {
    const uint32_t *V = S->vc + size_t(Base + __builtin_ctz(Rest)) * 32;
    for (int L = 0; L < 32; ++L)
      Join[L] = V[L] > Join[L] ? V[L] : Join[L];
  }
  for (uint32_t Rest = Mask; Rest; Rest &= Rest - 1) {
    uint32_t L = static_cast<uint32_t>(__builtin_ctz(Rest));
    uint32_t *V = S->vc + size_t(Base + L) * 32;
    for (int K = 0; K < 32; ++K)
      V[K] = Join[K];
    ++V[L];
  }
}

void gridPhaseDone(Grid &G) {
  if (G.San)
    G.San->phaseBase.store(SerialCounter.load() + 1);
}

void gridResumed(Block &B) {
  if (!B.San)
    return;
  B.San->serial = newSerial();
  B.San->ivl = B.San->rseq = 0;
  B.San->dirty = true;
  registerSerial(B);
}

// ---- memory registry (the glue) ---------------------------------------------------

} // namespace detail

void arm() { detail::Armed.store(true); }
bool armed() { return detail::Armed.load(std::memory_order_relaxed); }

void noteAlloc(const void *Ptr, size_t Bytes, bool Initialized) {
  auto &R = detail::registry();
  uintptr_t Lo = uintptr_t(Ptr), Hi = Lo + (Bytes ? Bytes : 1);
  {
    std::unique_lock<std::shared_mutex> Lock(R.mu);
    R.allocs[Lo] = detail::Allocation{Hi, Initialized};
    R.generation.fetch_add(1);
  }
  if (armed())
    detail::clearCells(Lo, Hi); // what an earlier occupant left
}

void noteHostWrite(const void *Ptr, size_t Bytes) {
  auto &R = detail::registry();
  uintptr_t A = uintptr_t(Ptr);
  std::unique_lock<std::shared_mutex> Lock(R.mu);
  auto It = R.allocs.upper_bound(A);
  if (It == R.allocs.begin())
    return;
  --It;
  if (A < It->second.end && !It->second.initialized) {
    It->second.initialized = true;
    R.generation.fetch_add(1);
  }
}

bool noteFree(void *Ptr, size_t Bytes, void (*Release)(void *)) {
  auto &R = detail::registry();
  uintptr_t Lo = uintptr_t(Ptr), Hi = Lo + (Bytes ? Bytes : 1);
  {
    std::unique_lock<std::shared_mutex> Lock(R.mu);
    R.allocs.erase(Lo);
    R.generation.fetch_add(1);
  }
  if (!armed())
    return false;
  detail::markFreed(Lo, Hi);
  std::vector<detail::Registry::Held> Out;
  {
    std::lock_guard<std::mutex> Lock(R.qmu);
    R.held.push_back({Ptr, Bytes ? Bytes : 1, Release});
    R.heldBytes += Bytes ? Bytes : 1;
    while (R.heldBytes > detail::quarantineLimit() && !R.held.empty()) {
      Out.push_back(R.held.front());
      R.heldBytes -= R.held.front().bytes;
      R.held.pop_front();
    }
  }
  for (const auto &H : Out) {
    detail::clearCells(uintptr_t(H.ptr), uintptr_t(H.ptr) + H.bytes);
    H.release(H.ptr);
  }
  return true;
}

} // namespace pcj::rt::cpu::san

// ---- the C ABI -----------------------------------------------------------------

using namespace pcj::rt::cpu;
using namespace pcj::rt::cpu::san::detail;

extern "C" {

void pcj_san_access(pcj_thread_ctx *ctx, pcj_san_site *site, const void *ptr,
                    const void *base) {
  SanBlock *S = pcj::rt::cpu::detail::blockOf(ctx).San;
  if (!S)
    return;
  uint32_t Id = __atomic_load_n(&site->id, __ATOMIC_ACQUIRE);
  if (!Id)
    Id = registerSite(site);
  uint8_t Op = site->flags & 3;
  uint8_t Space = site->flags & (3 << 2);
  uint32_t Bytes = site->bytes ? site->bytes : 1;
  uintptr_t Addr = uintptr_t(ptr);
  int64_t Index =
      base ? int64_t(Addr - uintptr_t(base)) / int64_t(Bytes) : int64_t(-1);
  uint16_t Tid = linearTid(ctx);
  if (Space == PCJ_SAN_GLOBAL) {
    if (Op == OpAtomic) {
      S->pendingLoc = Addr;
      S->pendingTau = Clock.fetch_add(1) + 1;
    } else {
      S->dirty = true;
    }
  }
  Probe A{*S, Tid, Space,
           Rec{S->serial, S->ivl, Id, ownClock(*S, Tid), S->rseq, Tid, 0, Op}};
  // An element of up to 16 bytes is one granule (its first): every access
  // to an element goes through the same cell.  Larger ones (whole records)
  // are checked granule by granule.
  if (Bytes <= 16) {
    unsigned Off = Addr & 3;
    A.me.mask = Bytes >= 4 ? 0xf : uint8_t(((1u << Bytes) - 1) << Off) & 0xf;
    if (Cell *C = cellFor(Addr))
      checkCell(*C, A, Addr, Index);
    return;
  }
  for (uintptr_t G = Addr & ~uintptr_t(3); G < Addr + Bytes; G += 4) {
    uintptr_t Lo = G < Addr ? Addr : G;
    uintptr_t Hi = G + 4 < Addr + Bytes ? G + 4 : Addr + Bytes;
    A.me.mask = uint8_t(((1u << (Hi - Lo)) - 1) << (Lo & 3)) & 0xf;
    if (Cell *C = cellFor(G))
      checkCell(*C, A, G, Index);
  }
}

void pcj_san_sync(pcj_thread_ctx *ctx, pcj_san_site *site) {
  SanBlock *S = pcj::rt::cpu::detail::blockOf(ctx).San;
  if (!S)
    return;
  uint32_t Id = __atomic_load_n(&site->id, __ATOMIC_ACQUIRE);
  S->syncSite[linearTid(ctx)] = Id ? Id : registerSite(site);
}

void pcj_san_atomic_done(pcj_thread_ctx *ctx) {
  SanBlock *S = pcj::rt::cpu::detail::blockOf(ctx).San;
  if (!S || !S->pendingLoc)
    return;
  uint64_t After = Clock.fetch_add(1) + 1;
  SanGrid &G = *S->G;
  uintptr_t Loc = S->pendingLoc;
  S->pendingLoc = 0;
  std::lock_guard<std::mutex> Lock(G.mu);
  if (S->dirty || S->runLoc != Loc || S->rseq == 0) {
    G.runs[S->serial].push_back(AtomicRun{Loc, S->pendingTau});
    ++S->rseq;
    S->runLoc = Loc;
    S->dirty = false;
  }
  uint64_t &Last = G.lastAt[Loc][S->serial];
  Last = After > Last ? After : Last;
  G.anyAtomics.store(true, std::memory_order_release);
}

} // extern "C"
