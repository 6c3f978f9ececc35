// SanitizerState: private state of the CPU executor's sanitizer, shared by
// Shadow.cpp (shadow memory), Sanitizer.cpp (the checks, pcj_san_*),
// SanitizerReport.cpp (findings, sites, messages) and the executor's hooks
// (GridRunner.cpp, Sync.cpp).  Not part of the runtime's API; see Sanitizer.h
// for the model.
#pragma once

#include "runtime/cpu/BlockState.h"
#include "runtime/cpu/Sanitizer.h"

#include <atomic>
#include <cstdint>
#include <mutex>
#include <set>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace pcj::rt::cpu::san::detail {

using cpu::detail::Grid;
using cpu::detail::ThreadBlock;

// ---- shadow memory (Shadow.cpp)
// -----------------------------------------------

enum Op : uint8_t { OpRead = 0, OpWrite = 1, OpAtomic = 2, OpSync = 3 };

// One access: who and when (20 bytes).
struct Rec {
  uint32_t blk;      // block serial (0: no access recorded)
  uint32_t ivl;      // barrier interval within that serial
  uint32_t site;     // site id (registerSite)
  uint32_t wclk;     // the thread's own warp clock at the access
  uint16_t rseq;     // atomic runs of its block before the access (saturated:
                     // a larger count only makes more atomics order it)
  uint16_t tid : 10; // linear thread index in the block
  uint16_t mask : 4; // bytes of the granule accessed
  uint16_t op : 2;   // Op
};
static_assert(sizeof(Rec) == 20, "shadow record layout");

enum CellState : uint32_t {
  WrittenBytes = 0xf, // bytes written (global memory: or known initialized)
  Touched = 0x10,     // global memory: its allocation was looked up
  LockBit = 0x80000000u,
};

// The shadow of one 4-byte granule: one cache line.  `word` holds the
// state bits and, for global memory (accessed by several host threads), a
// lock bit guarding the records; shared and local memory belong to the one
// host thread running their block.
struct alignas(64) Cell {
  std::atomic<uint32_t> word;
  Rec w;    // the last write (or atomic)
  Rec r[2]; // reads since, by two different threads at most
};
static_assert(sizeof(Cell) == 64, "shadow cell layout");

// The cell of the granule holding Addr (creating its chunk), or null for an
// address beyond the table (above 2^48).
Cell *cellFor(uintptr_t Addr);
// Zeroes the cells of [Lo, Hi) that exist (their pages go back to the
// system); the next access classifies the granule again.
void clearCells(uintptr_t Lo, uintptr_t Hi);

inline void cpuRelax() {
#if defined(__x86_64__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}
// Locks C's records and returns its state bits.
inline uint32_t lockCell(Cell &C) {
  for (;;) {
    uint32_t V = C.word.load(std::memory_order_relaxed);
    if (!(V & LockBit) &&
        C.word.compare_exchange_weak(V, V | LockBit, std::memory_order_acquire))
      return V;
    cpuRelax();
  }
}
// Stores the state bits and unlocks.
inline void unlockCell(Cell &C, uint32_t State) {
  C.word.store(State & ~LockBit, std::memory_order_release);
}

// ---- allocations (Sanitizer.cpp)
// ---------------------------------------------- What holds a global-memory
// address: host memory (NumPy arrays, pinned and mapped memory, stacks), a
// device allocation the host or a kernel initialized, a device_array nothing
// wrote yet, or freed device memory.
enum class Region : uint8_t { Host, Initialized, Uninitialized, Freed };
// The last answer for one host thread (kept in its SanBlock: no TLS lookup
// per access), valid while the registry's generation is unchanged: [lo, hi)
// is of kind `region`.
struct RegionCache {
  uint64_t generation = 0;
  uintptr_t lo = 0, hi = 0;
  Region region = Region::Host;
};
// Bumped by every change of the allocation registry.
extern std::atomic<uint64_t> RegistryGeneration;
Region classifySlow(uintptr_t Addr, RegionCache &Cache);
inline Region classify(uintptr_t Addr, RegionCache &Cache) {
  if (Cache.generation == RegistryGeneration.load(std::memory_order_acquire) &&
      Addr >= Cache.lo && Addr < Cache.hi)
    return Cache.region;
  return classifySlow(Addr, Cache);
}

// ---- sites and findings (SanitizerReport.cpp)
// ---------------------------------

struct SiteInfo {
  std::string kernel, file, array;
  int line = 0, col = -1, endCol = -1;
  uint32_t flags = 0, bytes = 0;
};
// Registers S (once; thread-safe) and returns its id (>= 1).
uint32_t registerSite(pcj_san_site *S);
SiteInfo siteInfo(uint32_t Id);

// A finding as detected: compact, formatted when the launch ends.
struct RawFinding {
  Finding::Kind kind;
  Rec first;  // the earlier access (races), else blk == 0
  Rec second; // the access that found it
  int64_t index;
};

// ---- per launch and per block
// -------------------------------------------------

// A run of a block's atomics on one global location with no other global
// access of the block between them (a spin loop is one run).
struct AtomicRun {
  uintptr_t loc;
  uint64_t tauPre; // the clock before the run's first atomic
};

struct SanGrid {
  uint8_t checks = 0;
  // Serials below this belong to earlier grid phases or launches.
  std::atomic<uint32_t> phaseBase{0};

  std::mutex mu;                                        // guards the maps below
  std::unordered_map<uint32_t, uint64_t> blockOfSerial; // -> linear block
  std::atomic<bool> anyAtomics{false};
  std::unordered_map<uint32_t, std::vector<AtomicRun>> runs; // by serial
  // Location -> serial -> the clock after that block's last atomic there.
  std::unordered_map<uintptr_t, std::unordered_map<uint32_t, uint64_t>> lastAt;

  std::mutex findMu; // guards the findings
  std::set<std::tuple<int, uint32_t, uint32_t>> seen;
  std::vector<RawFinding> found;
  uint64_t dropped = 0;
  // The synchronization sites of the threads the first sync error names.
  std::vector<Rec> syncFault;
};

struct SanBlock {
  SanGrid *G = nullptr;
  uint8_t checks = 0;
  uint32_t serial = 0;      // this block's current serial
  uint32_t firstSerial = 0; // its serial when it started
  uint32_t ivl = 0;         // barriers completed in this serial
  uint32_t rseq = 0;        // atomic runs in this serial
  bool dirty = true;        // a global access since the last atomic run
  uintptr_t runLoc = 0;     // the last run's location
  // Warp clocks, [thread][lane] (kernels with warp operations), else null:
  // vc[t][l] is the last clock of lane l (of t's warp) that t knows of.
  std::vector<uint32_t> vcStore;
  uint32_t *vc = nullptr;
  uint32_t numThreads = 0;
  // The atomic between pcj_san_access and pcj_san_atomic_done.
  uintptr_t pendingLoc = 0;
  // Per thread: the site of its last barrier or warp operation (0: none).
  std::vector<uint32_t> syncSite;
  RegionCache regions; // classify's last answer
};

// ---- executor hooks
// ------------------------------------------------------------ launch: a
// SanGrid for kernels with K.sanitize.
void launchBegin(Grid &G, SanGrid &S, uint8_t Checks);
// runBlock, before its threads run (B.San is set to per-host-thread state).
void blockBegin(ThreadBlock &B);
void blockEnd(ThreadBlock &B);
// A block barrier completed.
inline void barrierDone(ThreadBlock &B) {
  if (B.San)
    ++B.San->ivl;
}
// A warp operation of warp W completed for the lanes in Mask.
void warpSynced(ThreadBlock &B, uint32_t W, uint32_t Mask);
// A grid barrier completed (every block arrived); then each block resumes.
void gridPhaseDone(Grid &G);
void gridResumed(ThreadBlock &B);
// launch, at the end: the launch's findings (ordered: the first is the
// fault), also merged into the process report; sets `Fault` to the first
// one's kind when there is one.
std::vector<Finding> launchEnd(Grid &G);
// A sync error about to be recorded names these threads (linear indices in
// B): their last synchronization sites go into the finding.
void noteSyncFault(ThreadBlock &B, std::initializer_list<uint32_t> Tids);
void noteSyncFault(ThreadBlock &B, const std::vector<uint32_t> &Tids);
// A fault recorded by the executor (bounds, sync) as a finding.
Finding faultFinding(const Grid &G, KernelFault::Kind K);

} // namespace pcj::rt::cpu::san::detail
