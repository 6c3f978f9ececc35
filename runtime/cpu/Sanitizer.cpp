// Sanitizer: the checks behind pcj_san_access (Sanitizer.h has the model).
//
// Every access of a sanitized kernel finds its granule's cell (Shadow.cpp),
// compares itself with the accesses recorded there and records itself; a
// global-memory cell is locked meanwhile (blocks run on several host
// threads), a shared- or local-memory cell belongs to the one host thread
// running its block.  Two accesses are ordered when
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
// initialized only by its own thread.  The first access to a global-memory
// granule since its cell was cleared looks up the allocation registry (once
// per granule): inside a device_array the host has not written, nothing is
// initialized yet; inside a freed one (quarantined) every access is a
// use after free; elsewhere the granule counts as initialized.  Allocating,
// freeing and initializing from the host clear the cells of the range
// (their pages go back to the system).
#include "runtime/cpu/SanitizerState.h"
#include "support/Env.h"

#include <cstdlib>
#include <cstring>
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
  Region state; // Initialized, Uninitialized or Freed (in quarantine)
};

struct Registry {
  std::shared_mutex mu;
  std::map<uintptr_t, Allocation> allocs;
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
    const char *Env = env::raw(env::Var::SanitizeQuarantineMb);
    long MB = Env && *Env ? std::strtol(Env, nullptr, 10) : 256;
    return size_t(MB < 0 ? 0 : MB) << 20;
  }();
  return Limit;
}

// Under R.mu: the allocation holding A, or end().
std::map<uintptr_t, Allocation>::iterator holding(Registry &R, uintptr_t A) {
  auto It = R.allocs.upper_bound(A);
  if (It == R.allocs.begin())
    return R.allocs.end();
  --It;
  return A < It->second.end ? It : R.allocs.end();
}

} // namespace

std::atomic<uint64_t> RegistryGeneration{1};

Region classifySlow(uintptr_t Addr, RegionCache &Cache) {
  Registry &R = registry();
  std::shared_lock<std::shared_mutex> Lock(R.mu);
  uint64_t Gen = RegistryGeneration.load(std::memory_order_relaxed);
  auto It = R.allocs.upper_bound(Addr);
  RegionCache C{Gen, 0, It == R.allocs.end() ? ~uintptr_t(0) : It->first,
                Region::Host};
  if (It != R.allocs.begin()) {
    --It;
    if (Addr < It->second.end) {
      C.lo = It->first;
      C.hi = It->second.end;
      C.region = It->second.state;
    } else {
      C.lo = It->second.end;
    }
  }
  Cache = C;
  return C.region;
}

namespace {

// ---- ordering
// -----------------------------------------------------------------

uint16_t linearTid(const pcj_thread_ctx *Ctx) {
  return uint16_t(Ctx->warpid * 32 + Ctx->laneid);
}

uint32_t ownClock(const SanBlock &S, uint16_t Tid) {
  return S.vc ? S.vc[size_t(Tid) * 32 + Tid % 32] : 1;
}

// Block Writer made an atomic on a location, after its access with runs
// count Rseq, that block Reader made one on later.
bool atomicOrdered(SanGrid &G, uint32_t Writer, uint32_t Rseq,
                   uint32_t Reader) {
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

// Before an atomic on global memory at Loc: its run is logged now, with
// the clock before it, so that a block whose own atomic there comes later
// (and sees this one's effect) finds the run when it checks an access.
void beginAtomic(SanBlock &S, uintptr_t Loc) {
  SanGrid &G = *S.G;
  uint64_t Before = Clock.fetch_add(1) + 1;
  S.pendingLoc = Loc;
  if (!S.dirty && S.runLoc == Loc && S.rseq != 0)
    return; // the same run (a spin loop)
  std::lock_guard<std::mutex> Lock(G.mu);
  G.runs[S.serial].push_back(AtomicRun{Loc, Before});
  ++S.rseq;
  S.runLoc = Loc;
  S.dirty = false;
}

struct Probe {
  SanBlock &S;
  uint16_t tid;
  uint8_t space; // PCJ_SAN_GLOBAL / SHARED / LOCAL
  Rec me;
  uintptr_t addr, base; // the element and its array's data (0: unknown)
  uint32_t bytes;       // the element's size
  // The element's offset in its array (computed for findings only: a
  // division per access would cost more than the rest of the check).
  int64_t index() const {
    return base ? int64_t(addr - base) / int64_t(bytes) : int64_t(-1);
  }
};

// Whether record R (live) happened before access A.
inline bool ordered(const Rec &R, const Probe &A) {
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

// Record R is absent, or from before the block started (shared and local
// memory).
inline bool stale(const Rec &R, const Probe &A) {
  return R.blk == 0 || (A.space != PCJ_SAN_GLOBAL && R.blk < A.S.firstSerial);
}

inline bool conflicts(const Rec &R, const Probe &A) {
  if (stale(R, A) || !(R.mask & A.me.mask))
    return false;
  if (R.op == OpRead && A.me.op == OpRead)
    return false;
  if (R.op == OpAtomic && A.me.op == OpAtomic)
    return false;
  return !ordered(R, A);
}

void addFinding(const Probe &P, Finding::Kind K, const Rec *First) {
  SanGrid &G = *P.S.G;
  const Rec &Second = P.me;
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
  F.index = P.index();
  G.found.push_back(F);
}

inline void recordRead(Cell &C, const Probe &A) {
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

// Local memory: initialized only by the thread's own writes; no races.
inline uint32_t checkLocal(Cell &C, uint32_t State, const Probe &A) {
  const Rec &Me = A.me;
  bool Mine = !stale(C.w, A) && C.w.tid == A.tid;
  if (Me.op != OpWrite && (A.S.checks & Init) &&
      !(Mine && (State & Me.mask) == Me.mask))
    addFinding(A, Finding::Kind::Uninitialized, nullptr);
  if (Me.op != OpRead) {
    if (!Mine)
      State &= ~WrittenBytes;
    C.w = Me;
    State |= Me.mask;
  }
  return State;
}

// Shared and global memory; returns the new state bits.
inline uint32_t checkShared(Cell &C, uint32_t State, const Probe &A,
                            uintptr_t Addr) {
  uint8_t Checks = A.S.checks;
  const Rec &Me = A.me;
  if (A.space == PCJ_SAN_GLOBAL && !(State & Touched)) {
    // The first access since the cell was cleared: what memory is it?
    Region R = classify(Addr, A.S.regions);
    if (R == Region::Freed) {
      if (Checks & Bounds)
        addFinding(A, Finding::Kind::UseAfterFree, nullptr);
      return State;
    }
    State |=
        Touched | (R == Region::Uninitialized ? 0u : uint32_t(WrittenBytes));
  } else if (A.space == PCJ_SAN_SHARED && stale(C.w, A)) {
    State &= ~WrittenBytes; // written by an earlier block, if at all
  }
  if (Me.op != OpWrite && (Checks & Init) && (State & Me.mask) != Me.mask)
    addFinding(A, Finding::Kind::Uninitialized, nullptr);
  if (Checks & Race) {
    if (conflicts(C.w, A))
      addFinding(A, Finding::Kind::Race, &C.w);
    if (Me.op != OpRead)
      for (const Rec &R : C.r)
        if (conflicts(R, A))
          addFinding(A, Finding::Kind::Race, &R);
  }
  if (Me.op == OpRead) {
    recordRead(C, A);
  } else {
    C.w = Me;
    State |= Me.mask;
    C.r[0].blk = C.r[1].blk = 0;
  }
  return State;
}

void checkCell(Cell &C, const Probe &A, uintptr_t Addr) {
  if (A.space != PCJ_SAN_GLOBAL) { // this host thread's memory: no lock
    uint32_t State = C.word.load(std::memory_order_relaxed);
    State = A.space == PCJ_SAN_LOCAL ? checkLocal(C, State, A)
                                     : checkShared(C, State, A, Addr);
    C.word.store(State, std::memory_order_relaxed);
    return;
  }
  uint32_t State = lockCell(C);
  unlockCell(C, checkShared(C, State, A, Addr));
}

} // namespace

// ---- executor hooks
// -------------------------------------------------------------

void launchBegin(Grid &G, SanGrid &S, uint8_t Checks) {
  S.checks = Checks;
  S.phaseBase.store(SerialCounter.load() + 1);
  G.San = &S;
  arm();
}

namespace {
thread_local SanBlock BlockState;

void registerSerial(ThreadBlock &B) {
  SanGrid &G = *B.G->San;
  uint64_t Linear =
      (uint64_t(B.Idx.z) * B.G->GridDim.y + B.Idx.y) * B.G->GridDim.x + B.Idx.x;
  std::lock_guard<std::mutex> Lock(G.mu);
  G.blockOfSerial[B.San->serial] = Linear;
}
} // namespace

void blockBegin(ThreadBlock &B) {
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

void blockEnd(ThreadBlock &B) { B.San = nullptr; }

void noteSyncFault(ThreadBlock &B, const std::vector<uint32_t> &Tids) {
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

void noteSyncFault(ThreadBlock &B, std::initializer_list<uint32_t> Tids) {
  noteSyncFault(B, std::vector<uint32_t>(Tids));
}

void warpSynced(ThreadBlock &B, uint32_t W, uint32_t Mask) {
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

void gridResumed(ThreadBlock &B) {
  if (!B.San)
    return;
  B.San->serial = newSerial();
  B.San->ivl = B.San->rseq = 0;
  B.San->dirty = true;
  registerSerial(B);
}

// ---- memory registry (the glue)
// ---------------------------------------------------

} // namespace detail

using detail::Region;

void arm() { detail::Armed.store(true); }
bool armed() { return detail::Armed.load(std::memory_order_relaxed); }

void noteAlloc(const void *Ptr, size_t Bytes, bool Initialized) {
  auto &R = detail::registry();
  uintptr_t Lo = uintptr_t(Ptr), Hi = Lo + (Bytes ? Bytes : 1);
  {
    std::unique_lock<std::shared_mutex> Lock(R.mu);
    R.allocs[Lo] = detail::Allocation{Hi, Initialized ? Region::Initialized
                                                      : Region::Uninitialized};
    detail::RegistryGeneration.fetch_add(1);
  }
  if (armed())
    detail::clearCells(Lo, Hi); // what an earlier occupant left
}

void noteHostWrite(const void *Ptr, size_t Bytes) {
  auto &R = detail::registry();
  uintptr_t Lo = 0, Hi = 0;
  {
    std::unique_lock<std::shared_mutex> Lock(R.mu);
    auto It = detail::holding(R, uintptr_t(Ptr));
    if (It == R.allocs.end() || It->second.state != Region::Uninitialized)
      return;
    It->second.state = Region::Initialized;
    detail::RegistryGeneration.fetch_add(1);
    Lo = It->first;
    Hi = It->second.end;
  }
  if (armed()) // its granules are classified again, as initialized
    detail::clearCells(Lo, Hi);
}

bool noteFree(void *Ptr, size_t Bytes, void (*Release)(void *)) {
  auto &R = detail::registry();
  uintptr_t Lo = uintptr_t(Ptr), Hi = Lo + (Bytes ? Bytes : 1);
  bool Keep = armed() && detail::quarantineLimit() > 0;
  {
    std::unique_lock<std::shared_mutex> Lock(R.mu);
    if (Keep)
      R.allocs[Lo] = detail::Allocation{Hi, Region::Freed};
    else
      R.allocs.erase(Lo);
    detail::RegistryGeneration.fetch_add(1);
  }
  if (!Keep)
    return false;
  detail::clearCells(Lo, Hi); // the next access finds the memory freed
  std::vector<detail::Registry::Held> Out;
  {
    std::lock_guard<std::mutex> Lock(R.qmu);
    R.held.push_back({Ptr, Hi - Lo, Release});
    R.heldBytes += Hi - Lo;
    while (R.heldBytes > detail::quarantineLimit() && !R.held.empty()) {
      Out.push_back(R.held.front());
      R.heldBytes -= R.held.front().bytes;
      R.held.pop_front();
    }
  }
  for (const auto &H : Out) {
    uintptr_t HLo = uintptr_t(H.ptr);
    {
      std::unique_lock<std::shared_mutex> Lock(R.mu);
      auto It = R.allocs.find(HLo);
      if (It != R.allocs.end() && It->second.state == Region::Freed)
        R.allocs.erase(It);
      detail::RegistryGeneration.fetch_add(1);
    }
    detail::clearCells(HLo, HLo + H.bytes);
    H.release(H.ptr);
  }
  return true;
}

} // namespace pcj::rt::cpu::san

// ---- the C ABI
// -----------------------------------------------------------------

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
  if (site->flags & PCJ_SAN_READONLY) {
    // Cannot race: only a device_array nothing initialized, or freed
    // memory, needs the cell.
    Region R = classify(Addr, S->regions);
    if (R == Region::Host || R == Region::Initialized)
      return;
  }
  uint16_t Tid = linearTid(ctx);
  if (Space == PCJ_SAN_GLOBAL && Op != OpAtomic)
    S->dirty = true;
  Probe A{*S, Tid, Space, Rec{}, Addr, uintptr_t(base), Bytes};
  A.me.blk = S->serial;
  A.me.ivl = S->ivl;
  A.me.site = Id;
  A.me.wclk = ownClock(*S, Tid);
  A.me.rseq = uint16_t(S->rseq < 0xffff ? S->rseq : 0xffff);
  A.me.tid = Tid;
  A.me.op = Op;
  if (Space == PCJ_SAN_GLOBAL && Op == OpAtomic)
    beginAtomic(*S, Addr); // after the record took the runs count
  // An element of up to 16 bytes is one granule (its first): every access
  // to an element goes through the same cell.  Larger ones (whole records)
  // are checked granule by granule.
  if (Bytes <= 16) {
    unsigned Off = Addr & 3;
    A.me.mask = Bytes >= 4 ? 0xf : uint8_t(((1u << Bytes) - 1) << Off) & 0xf;
    if (Cell *C = cellFor(Addr)) {
      // The next CUDA thread usually accesses the next element here (x
      // runs fastest): fetch its cell meanwhile.  Never past the chunk.
      if ((((Addr >> 2) + 2) & 0xfffff) > 1)
        __builtin_prefetch(C + (Bytes + 3) / 4 * 2, 1);
      checkCell(*C, A, Addr);
    }
    return;
  }
  for (uintptr_t G = Addr & ~uintptr_t(3); G < Addr + Bytes; G += 4) {
    uintptr_t Lo = G < Addr ? Addr : G;
    uintptr_t Hi = G + 4 < Addr + Bytes ? G + 4 : Addr + Bytes;
    A.me.mask = uint8_t(((1u << (Hi - Lo)) - 1) << (Lo & 3)) & 0xf;
    if (Cell *C = cellFor(G))
      checkCell(*C, A, G);
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
  uint64_t &Last = G.lastAt[Loc][S->serial];
  Last = After > Last ? After : Last;
  G.anyAtomics.store(true, std::memory_order_release);
}

} // extern "C"
