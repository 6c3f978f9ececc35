// The metadata record of a cache entry (see CacheMeta.h).
#include "runtime/CacheMeta.h"

namespace pcj::rt {

namespace {

enum : uint8_t { kBarriers = 1, kWarpOps = 2, kGridSync = 4 };

void putU32(std::string &Out, uint32_t V) {
  for (int K = 0; K < 4; ++K)
    Out.push_back(char((V >> (8 * K)) & 0xff));
}

void putU64(std::string &Out, uint64_t V) {
  for (int K = 0; K < 8; ++K)
    Out.push_back(char((V >> (8 * K)) & 0xff));
}

void putStr(std::string &Out, const std::string &S) {
  putU32(Out, uint32_t(S.size()));
  Out += S;
}

// Reads the record front to back; every read fails once past the end.
class Reader {
public:
  explicit Reader(std::string_view B) : Bytes(B) {}

  bool u8(uint8_t &V) {
    if (Bytes.size() - Pos < 1)
      return false;
    V = uint8_t(Bytes[Pos++]);
    return true;
  }
  bool u32(uint32_t &V) {
    uint64_t W = 0;
    if (!little(4, W))
      return false;
    V = uint32_t(W);
    return true;
  }
  bool u64(uint64_t &V) { return little(8, V); }
  bool str(std::string &S) {
    uint32_t N = 0;
    if (!u32(N) || Bytes.size() - Pos < N)
      return false;
    S.assign(Bytes.substr(Pos, N));
    Pos += N;
    return true;
  }
  bool atEnd() const { return Pos == Bytes.size(); }
  size_t left() const { return Bytes.size() - Pos; }

private:
  bool little(int N, uint64_t &V) {
    if (Bytes.size() - Pos < size_t(N))
      return false;
    V = 0;
    for (int K = 0; K < N; ++K)
      V |= uint64_t(uint8_t(Bytes[Pos + K])) << (8 * K);
    Pos += N;
    return true;
  }

  std::string_view Bytes;
  size_t Pos = 0;
};

} // namespace

std::string encodeKernelMeta(const KernelMeta &M) {
  std::string Out;
  putU32(Out, kMetaVersion);
  putStr(Out, M.kernel);
  putStr(Out, M.signature);
  Out.push_back(char((M.usesBarriers ? kBarriers : 0) |
                     (M.usesWarpOps ? kWarpOps : 0) |
                     (M.usesGridSync ? kGridSync : 0)));
  putU64(Out, M.staticSharedBytes);
  putU32(Out, uint32_t(M.readOnlyArgs.size()));
  for (bool B : M.readOnlyArgs)
    Out.push_back(B ? 1 : 0);
  return Out;
}

std::optional<KernelMeta> decodeKernelMeta(std::string_view Bytes) {
  Reader R(Bytes);
  KernelMeta M;
  uint32_t Version = 0, Args = 0;
  uint8_t Flags = 0;
  if (!R.u32(Version) || Version != kMetaVersion || !R.str(M.kernel) ||
      !R.str(M.signature) || !R.u8(Flags) ||
      (Flags & ~(kBarriers | kWarpOps | kGridSync)) ||
      !R.u64(M.staticSharedBytes) || !R.u32(Args) || R.left() != Args)
    return std::nullopt;
  M.usesBarriers = Flags & kBarriers;
  M.usesWarpOps = Flags & kWarpOps;
  M.usesGridSync = Flags & kGridSync;
  M.readOnlyArgs.reserve(Args);
  for (uint32_t K = 0; K < Args; ++K) {
    uint8_t B = 0;
    if (!R.u8(B) || B > 1)
      return std::nullopt;
    M.readOnlyArgs.push_back(B == 1);
  }
  if (!R.atEnd())
    return std::nullopt;
  return M;
}

} // namespace pcj::rt
