// ErrorRecordAbi: what a GPU kernel's failing `assert`/`raise`/checked
// error and the host agree on (the layout only, no code; the compiler's
// lower/NvptxErrors.cpp writes it, runtime/ErrorRecord.cpp reads it).
//
// A module with error sites has two globals:
//
//   pcj_error_record  .global .b64 [2]: {record address, module id}; the
//                     host sets both when it loads the module.  The record
//                     is per context, in pinned host memory mapped into the
//                     device (cuMemHostAlloc DEVICEMAP).
//   pcj_error_sites   .global .b8 []: the site table, one entry per site id:
//                     kErrorSiteFields fields, each ended by kFieldEnd.
//
// The record (struct ErrorRecord): the first failing thread moves `state`
// from Free to Writing (atom.cas), writes the rest, fences (system scope)
// and stores Written; every failing thread then exits (PTX `exit`: no trap,
// the context survives).  The host reads a Written record after a
// synchronizing call, and frees it.
#pragma once

#include <cstddef>
#include <cstdint>

namespace pcj::rt {

inline constexpr const char *kErrorRecordGlobal = "pcj_error_record";
inline constexpr const char *kErrorSitesGlobal = "pcj_error_sites";

enum ErrorRecordState : uint32_t {
  kRecordFree = 0,
  kRecordWriting = 1, // a thread claimed it and is writing
  kRecordWritten = 2, // complete: the host may read it
};

struct ErrorRecord {
  uint32_t state;  // ErrorRecordState
  uint32_t site;   // index into the module's site table
  uint32_t module; // the module id the host gave the module at load
  uint32_t thread[3];
  uint32_t block[3];
  uint32_t pad;
  // An index error: values[0, rank) the index, values[kMaxRecordedRank,
  // kMaxRecordedRank + rank) the shape; for a site of rank 0 (an array of
  // more dimensions) values[0] and values[kMaxRecordedRank] are the index
  // and extent of the axis out of bounds.
  int64_t values[8];
};
inline constexpr unsigned kMaxRecordedRank = 4;
static_assert(offsetof(ErrorRecord, site) == 4 &&
                  offsetof(ErrorRecord, module) == 8 &&
                  offsetof(ErrorRecord, thread) == 12 &&
                  offsetof(ErrorRecord, block) == 24 &&
                  offsetof(ErrorRecord, values) == 40 &&
                  sizeof(ErrorRecord) == 104,
              "the device code writes these offsets");

// A site table entry's fields, in order.  `errorClass` names a class of
// pycuda_jit.errors (KernelIndexError, KernelZeroDivisionError, ...) for a
// checked error, or is empty for the kernel's raise/assert, whose builtin
// exception class is `exception`.  Text fields never contain the
// separators (the compiler replaces them with '?').
enum ErrorSiteField : unsigned {
  kSiteErrorClass,
  kSiteException,
  kSiteMessage,
  kSiteKernel,
  kSiteFile,
  kSiteLine,
  kSiteAxis, // an index error: the axis out of bounds, else -1
  kSiteRank, // an index error: dimensions recorded (<= kMaxRecordedRank)
  kErrorSiteFields
};
inline constexpr char kFieldEnd = '\x1f';

} // namespace pcj::rt
