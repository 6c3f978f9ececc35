// The on-disk kernel cache (see DiskCache.h).
#include "runtime/DiskCache.h"
#include "runtime/CacheMeta.h"
#include "support/Env.h"

#include "support/Sha256.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <random>
#include <sys/stat.h>
#include <unistd.h>

namespace pcj::rt {

namespace {

constexpr char kMagic[8] = {'P', 'C', 'J', 'C', 'A', 'C', 'H', 'E'};
constexpr size_t kSumOffset = 8 + 4 + 32 + 8; // magic, version, key, length
constexpr size_t kHeader = kSumOffset + 32;

void putU32(std::string &S, uint32_t V) {
  for (int I = 0; I < 4; ++I)
    S += char(V >> (8 * I));
}
void putU64(std::string &S, uint64_t V) {
  for (int I = 0; I < 8; ++I)
    S += char(V >> (8 * I));
}
uint64_t getU(const std::string &S, size_t Off, int Bytes) {
  uint64_t V = 0;
  for (int I = 0; I < Bytes; ++I)
    V |= uint64_t(uint8_t(S[Off + I])) << (8 * I);
  return V;
}

std::string unhex(const std::string &Hex) {
  std::string Out;
  for (size_t I = 0; I + 1 < Hex.size(); I += 2)
    Out += char(std::stoi(Hex.substr(I, 2), nullptr, 16));
  return Out;
}

bool validKey(const std::string &Key) {
  if (Key.size() != 64)
    return false;
  for (char C : Key)
    if (!std::isxdigit((unsigned char)C))
      return false;
  return true;
}

// Reads a regular file owned by this user, without following symlinks and
// without blocking (O_NONBLOCK: opening a FIFO for reading would otherwise
// wait for a writer), and only when it is at most kMaxEntryBytes long.
bool readOwnedFile(const std::string &Path, std::string &Out,
                   std::string *Problem) {
  auto Fail = [&](int Fd, std::string Why) {
    if (Fd >= 0)
      ::close(Fd);
    if (Problem)
      *Problem = std::move(Why);
    return false;
  };
  int Fd = ::open(Path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (Fd < 0)
    return Fail(-1, errno == ENOENT
                        ? std::string("missing")
                        : std::string("cannot open: ") + std::strerror(errno));
  struct stat St;
  if (fstat(Fd, &St) != 0 || !S_ISREG(St.st_mode))
    return Fail(Fd, "not a regular file");
  if (St.st_uid != geteuid())
    return Fail(Fd, "owned by another user");
  if (uint64_t(St.st_size) > DiskCache::kMaxEntryBytes)
    return Fail(Fd, std::to_string(St.st_size) +
                        " bytes, larger than an entry may be (" +
                        std::to_string(DiskCache::kMaxEntryBytes) + ")");
  Out.resize(size_t(St.st_size));
  size_t Got = 0;
  while (Got < Out.size()) {
    ssize_t N = ::read(Fd, Out.data() + Got, Out.size() - Got);
    if (N < 0 && errno == EINTR)
      continue;
    if (N <= 0)
      break;
    Got += size_t(N);
  }
  if (Got != Out.size())
    return Fail(Fd, "short read");
  ::close(Fd);
  return true;
}

// The checksum of an entry: its header up to the checksum field, then the
// payload.
std::array<uint8_t, 32> entrySum(std::string_view Head,
                                 std::string_view Payload) {
  return Sha256().update(Head.substr(0, kSumOffset)).update(Payload).digest();
}

} // namespace

std::string serializeCacheEntry(const CacheEntry &E) {
  std::string Payload;
  for (const auto &[Name, Data] : E.sections) {
    putU32(Payload, uint32_t(Name.size()));
    Payload += Name;
    putU64(Payload, Data.size());
    Payload += Data;
  }
  std::string Out(kMagic, 8);
  putU32(Out, DiskCache::kFormatVersion);
  Out += unhex(E.key);
  putU64(Out, Payload.size());
  auto Sum = entrySum(Out, Payload);
  Out.append(reinterpret_cast<const char *>(Sum.data()), Sum.size());
  return Out + Payload;
}

std::optional<CacheEntry> parseCacheEntry(const std::string &Bytes,
                                          const std::string &ExpectKey,
                                          std::string *Problem) {
  auto Bad = [&](const char *Why) -> std::optional<CacheEntry> {
    if (Problem)
      *Problem = Why;
    return std::nullopt;
  };
  if (Bytes.size() < kHeader)
    return Bad("truncated header");
  if (std::memcmp(Bytes.data(), kMagic, 8) != 0)
    return Bad("not a pycuda_jit cache entry");
  if (getU(Bytes, 8, 4) != DiskCache::kFormatVersion)
    return Bad("another format version");
  std::string Key = Sha256::hex(std::string_view(Bytes.data() + 12, 32));
  if (!ExpectKey.empty() && Key != ExpectKey)
    return Bad("key does not match the file name");
  uint64_t Len = getU(Bytes, 44, 8);
  if (Len != Bytes.size() - kHeader)
    return Bad("truncated or padded payload");
  std::string_view Payload(Bytes.data() + kHeader, Len);
  auto Sum = entrySum(Bytes, Payload);
  if (std::memcmp(Sum.data(), Bytes.data() + kSumOffset, 32) != 0)
    return Bad("checksum mismatch");
  CacheEntry E;
  E.key = Key;
  size_t Off = kHeader;
  while (Off < Bytes.size()) {
    if (Off + 4 > Bytes.size())
      return Bad("corrupt section table");
    uint64_t NL = getU(Bytes, Off, 4);
    Off += 4;
    if (Off + NL + 8 > Bytes.size())
      return Bad("corrupt section table");
    std::string Name = Bytes.substr(Off, NL);
    Off += NL;
    uint64_t DL = getU(Bytes, Off, 8);
    Off += 8;
    if (Off + DL > Bytes.size())
      return Bad("corrupt section table");
    E.sections[Name] = Bytes.substr(Off, DL);
    Off += DL;
  }
  return E;
}

std::string DiskCache::defaultDir() { return env::cacheDir(); }

bool DiskCache::ensureDir(std::string *Why) {
  // mkdir -p, the last component private.
  std::string Path;
  for (size_t I = 0; I <= Dir.size(); ++I) {
    if (I < Dir.size() && Dir[I] != '/') {
      continue;
    }
    Path = Dir.substr(0, I);
    if (Path.empty())
      continue;
    if (::mkdir(Path.c_str(), I == Dir.size() ? 0700 : 0755) != 0 &&
        errno != EEXIST) {
      if (Why)
        *Why = "cannot create " + Path + ": " + std::strerror(errno);
      return false;
    }
  }
  struct stat St;
  if (lstat(Dir.c_str(), &St) != 0 || !S_ISDIR(St.st_mode)) {
    if (Why)
      *Why = Dir + " is not a directory";
    return false;
  }
  if (St.st_uid != geteuid()) {
    if (Why)
      *Why = Dir + " belongs to another user";
    return false;
  }
  if (St.st_mode & (S_IWGRP | S_IWOTH)) {
    if (Why)
      *Why = Dir + " is writable by other users";
    return false;
  }
  return true;
}

std::string DiskCache::pathFor(const std::string &Key) const {
  return Dir + "/" + Key + ".pcjc";
}

std::optional<CacheEntry> DiskCache::load(const std::string &Key,
                                          std::string *Problem) const {
  if (!validKey(Key)) {
    if (Problem)
      *Problem = "malformed key";
    return std::nullopt;
  }
  std::string Bytes;
  if (!readOwnedFile(pathFor(Key), Bytes, Problem))
    return std::nullopt;
  return parseCacheEntry(Bytes, Key, Problem);
}

bool DiskCache::store(const CacheEntry &E, std::string *Why) {
  if (!validKey(E.key)) {
    if (Why)
      *Why = "malformed key";
    return false;
  }
  if (!ensureDir(Why))
    return false;
  std::string Bytes = serializeCacheEntry(E);
  if (Bytes.size() > kMaxEntryBytes) {
    if (Why)
      *Why = std::to_string(Bytes.size()) +
             " bytes, larger than an entry may be (" +
             std::to_string(kMaxEntryBytes) + ")";
    return false;
  }
  std::random_device Rd;
  std::string Tmp = Dir + "/.tmp-" + E.key.substr(0, 16) + "-" +
                    std::to_string(getpid()) + "-" + std::to_string(Rd());
  int Fd = ::open(Tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (Fd < 0) {
    if (Why)
      *Why = "cannot create " + Tmp + ": " + std::strerror(errno);
    return false;
  }
  size_t Put = 0;
  while (Put < Bytes.size()) {
    ssize_t N = ::write(Fd, Bytes.data() + Put, Bytes.size() - Put);
    if (N <= 0)
      break;
    Put += size_t(N);
  }
  bool Ok = Put == Bytes.size() && ::fsync(Fd) == 0;
  Ok = ::close(Fd) == 0 && Ok;
  if (!Ok || ::rename(Tmp.c_str(), pathFor(E.key).c_str()) != 0) {
    if (Why)
      *Why = std::string("cannot write the entry: ") + std::strerror(errno);
    ::unlink(Tmp.c_str());
    return false;
  }
  return true;
}

std::vector<CacheFileInfo> DiskCache::list() const {
  std::vector<CacheFileInfo> Out;
  DIR *D = ::opendir(Dir.c_str());
  if (!D)
    return Out;
  while (dirent *Ent = ::readdir(D)) {
    std::string Name = Ent->d_name;
    if (Name.size() != 64 + 5 || Name.substr(64) != ".pcjc")
      continue;
    CacheFileInfo I;
    I.path = Dir + "/" + Name;
    I.key = Name.substr(0, 64);
    std::string Bytes, Problem;
    if (readOwnedFile(I.path, Bytes, &Problem)) {
      I.bytes = Bytes.size();
      if (auto E = parseCacheEntry(Bytes, I.key, &Problem)) {
        I.valid = true;
        for (const auto &S : E->sections)
          I.sections.push_back(S.first);
        auto M = E->sections.find("meta");
        if (M != E->sections.end())
          if (std::optional<KernelMeta> K = decodeKernelMeta(M->second))
            I.kernel = K->kernel;
      }
    }
    I.problem = I.valid ? "" : Problem;
    Out.push_back(std::move(I));
  }
  ::closedir(D);
  std::sort(Out.begin(), Out.end(),
            [](const CacheFileInfo &A, const CacheFileInfo &B) {
              return A.key < B.key;
            });
  return Out;
}

size_t DiskCache::clear() {
  size_t N = 0;
  DIR *D = ::opendir(Dir.c_str());
  if (!D)
    return 0;
  std::vector<std::string> Doomed;
  while (dirent *Ent = ::readdir(D)) {
    std::string Name = Ent->d_name;
    bool Entry = Name.size() == 69 && Name.substr(64) == ".pcjc";
    bool Temp = Name.rfind(".tmp-", 0) == 0;
    if (Entry || Temp)
      Doomed.push_back(Dir + "/" + Name);
  }
  ::closedir(D);
  for (const std::string &P : Doomed)
    N += ::unlink(P.c_str()) == 0;
  return N;
}

} // namespace pcj::rt
