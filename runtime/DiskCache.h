// The on-disk cache of compiled kernels (content addressed; never stale).
//
// An entry is one file <dir>/<key>.pcjc:
//   magic "PCJCACHE" | u32 format version | 32-byte key | u64 payload length
//   | 32-byte SHA-256 of everything before it and the payload | payload
// and the payload is a list of named sections (cubin, ptx, host object,
// metadata: runtime/CacheMeta.h's versioned record): u32 name length, name,
// u64 data length, data.  The checksum
// covers the header too, so an entry copied under another name with its key
// bytes rewritten to match is refused.
//
// Entries are written to a temporary file in the same directory and renamed
// into place, so readers see a whole entry or none, and concurrent writers
// of one key all succeed leaving one valid entry.  The directory is created
// private (0700).  An entry that is not a regular file owned by this user
// (a FIFO or device is refused without blocking), is larger than
// kMaxEntryBytes (refused from its size, unread), is truncated, fails its
// checksum, has another format version or another key is ignored (the
// caller recompiles and overwrites it); nothing from the
// cache is ever executed on the host without these checks, and nothing is
// unpickled: it holds only bytes.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace pcj::rt {

struct CacheEntry {
  std::string key; // 64 hex digits
  std::map<std::string, std::string> sections;
};

struct CacheFileInfo {
  std::string path, key;
  uint64_t bytes = 0;
  bool valid = false;
  std::string problem; // why an invalid entry is ignored
  std::vector<std::string> sections;
  std::string kernel; // from the "meta" record, if it decodes
};

class DiskCache {
public:
  // 3: the "meta" section is runtime/CacheMeta.h's record (2 held
  // "key=value" text; such entries are refused as another version).
  static constexpr uint32_t kFormatVersion = 3;
  // The largest entry read or written (64 MiB; kernels' entries are KiBs to
  // a few MiB): a bigger file is refused from its size, unread.
  static constexpr uint64_t kMaxEntryBytes = uint64_t(64) << 20;

  explicit DiskCache(std::string Dir) : Dir(std::move(Dir)) {}
  // $PYCUDA_JIT_CACHE_DIR, else $XDG_CACHE_HOME/pycuda_jit, else
  // ~/.cache/pycuda_jit.
  static std::string defaultDir();

  const std::string &dir() const { return Dir; }
  // Creates the directory (0700) if needed; false (with a reason) when it
  // cannot be used safely (not ours, writable by others).
  bool ensureDir(std::string *Why = nullptr);

  std::optional<CacheEntry> load(const std::string &Key,
                                 std::string *Problem = nullptr) const;
  bool store(const CacheEntry &E, std::string *Why = nullptr);

  std::vector<CacheFileInfo> list() const;
  // Removes every entry (and stray temporaries); returns how many.
  size_t clear();

  std::string pathFor(const std::string &Key) const;

private:
  std::string Dir;
};

// Parses an entry's bytes (exposed for tests); nullopt + Problem if invalid.
std::optional<CacheEntry> parseCacheEntry(const std::string &Bytes,
                                          const std::string &ExpectKey,
                                          std::string *Problem);
std::string serializeCacheEntry(const CacheEntry &E);

} // namespace pcj::rt
