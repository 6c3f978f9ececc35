// The metadata section of a disk-cache entry (runtime/DiskCache.h): the facts
// of a compile that a cache hit needs besides the machine code, in one
// versioned binary record.  No CPython, no compiler types: the driver fills
// and reads the struct (driver::cacheMeta, driver::restoreFromCache).
//
//   u32 kMetaVersion | str kernel | str signature | u8 flags
//   | u64 static shared bytes | u32 argument count | u8 per argument (0/1)
//
// (str: u32 length, bytes; integers little-endian; flags: bit 0 barriers,
// bit 1 warp operations, bit 2 grid sync.)  decodeKernelMeta accepts exactly
// that and nothing else: another version (the "key=value" text of entry
// format 2 included), a truncated record, trailing bytes, an unknown flag bit
// or an argument byte other than 0/1 is nullopt, which the cache treats as a
// miss.  Example: encodeKernelMeta({"k_1", "(float64[::1],)", true, false,
// false, 0, {false}}) is 4 + 7 + 19 + 1 + 8 + 4 + 1 bytes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pcj::rt {

struct KernelMeta {
  std::string kernel;    // the kernel's symbol
  std::string signature; // its signature text
  bool usesBarriers = false;
  bool usesWarpOps = false;
  bool usesGridSync = false;
  uint64_t staticSharedBytes = 0;
  std::vector<bool> readOnlyArgs; // per argument: an array only read
};

// Bumped with every change of the record's layout.
inline constexpr uint32_t kMetaVersion = 1;

std::string encodeKernelMeta(const KernelMeta &M);
std::optional<KernelMeta> decodeKernelMeta(std::string_view Bytes);

} // namespace pcj::rt
