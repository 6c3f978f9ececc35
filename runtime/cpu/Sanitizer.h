// Sanitizer: the CPU executor's kernel checker (issue 17).  Kernels compiled
// with `sanitize` call pcj_san_access (ThreadCtx.h) before every array
// element access; the executor then sees every access of every CUDA thread
// and reports, per launch:
//
//   race    two accesses to one shared- or global-memory element from
//           different threads, at least one a write (an atomic counts as a
//           write; two atomics never race), not ordered by a block barrier,
//           a warp operation naming both lanes, a grid sync, the launch
//           boundary, or (between blocks) an atomic on one location that
//           the first block made after its access and the second before
//           its own;
//   init    a read of shared or local memory, or of a device_array element,
//           that nothing wrote (device arrays: neither the host nor a
//           kernel);
//   bounds  array indices (the compiler's bounds checks) and accesses to
//           device memory that was freed (kept in quarantine meanwhile);
//   sync    barriers and warp operations used against their contract
//           (always reported as errors; `sync` adds them to the report).
//
// The first finding of a launch becomes its KernelFault (Race,
// Uninitialized, UseAfterFree, Sync); every finding, deduplicated by kind and
// source line pair, is kept for report() (a bounded list per process).
//
// Shadow memory (Shadow.cpp): a cell per 4-byte granule of every address
// accessed, in a three-level table of lazily mapped chunks: the last write
// and up to two reads since, each as (block serial, barrier interval, site,
// warp clock, atomic run, thread), plus which bytes were written.  Block
// serials come from one process-wide counter: a block takes one when it
// starts and after each grid sync, so a record older than the grid's current
// phase is ordered before everything running now, and a shared- or
// local-memory record from before the block started is stale.  Details in
// Sanitizer.cpp.
#pragma once

#include "runtime/cpu/GridRunner.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace pcj::rt::cpu::san {

// The checks, as bits (KernelInfo::sanitize, the option's value).
enum Check : uint8_t {
  Race = 1,
  Init = 2,
  Bounds = 4,
  Sync = 8,
  All = Race | Init | Bounds | Sync,
};
// "race,init" -> Race | Init; "" / "0" -> 0; "1" / "all" -> All; an unknown
// word -> -1.
int parseChecks(const std::string &Text);
std::string checksString(uint8_t Checks); // "race,init,bounds,sync"

// One access of a finding.
struct Access {
  std::string op; // "read", "write", "atomic", "barrier", ...
  std::string file;
  int line = 0, col = -1, endCol = -1;
  Dims thread, block;
  bool known = true; // false: the block could not be identified
};

struct Finding {
  enum class Kind : uint8_t { Race, Uninitialized, UseAfterFree, Sync, Bounds };
  Kind kind = Kind::Race;
  std::string kernel;
  std::string array;   // "x", "shared array (line 12)", or ""
  int64_t index = -1;  // element offset from the array's data (-1: unknown)
  std::string message; // one line, without source text
  std::vector<Access> accesses; // the earlier access first (races)
};
const char *kindName(Finding::Kind K); // "race", "uninitialized", ...

// Every finding since the last clearReport, deduplicated by (kind, kernel,
// source lines), at most reportLimit() (PYCUDA_JIT_SANITIZE_LIMIT, default
// 1000); droppedFindings() counts the ones beyond.
std::vector<Finding> report();
void clearReport();
size_t reportLimit();
uint64_t droppedFindings();

// ---- device memory (the glue, CPU backend)
// ----------------------------------- Allocations are tracked always (a map
// insert); the shadow only once armed (a sanitized kernel was created): until
// then frees are immediate.
void arm();
bool armed();
// A device allocation; `Initialized` false for device_array (its elements
// are uninitialized until the host or a kernel writes them).
void noteAlloc(const void *Ptr, size_t Bytes, bool Initialized);
// The host wrote into [Ptr, Ptr + Bytes) (copies, memset, element writes):
// the allocation holding it counts as initialized from now on.
void noteHostWrite(const void *Ptr, size_t Bytes);
// The allocation at Ptr is released.  Armed: its shadow says freed and the
// memory is kept in a bounded quarantine (PYCUDA_JIT_SANITIZE_QUARANTINE_MB,
// default 256) and released later through Release; returns true then.
// Otherwise returns false and the caller frees it now.
bool noteFree(void *Ptr, size_t Bytes, void (*Release)(void *));

} // namespace pcj::rt::cpu::san
