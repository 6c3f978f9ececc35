// SHA-256 (FIPS 180-4), for content-addressed cache keys and checksums.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace pcj {

class Sha256 {
public:
  Sha256();
  Sha256 &update(const void *Data, size_t Len);
  Sha256 &update(std::string_view S) { return update(S.data(), S.size()); }
  // A length-prefixed field: unambiguous concatenation of variable parts.
  Sha256 &field(std::string_view S);
  std::array<uint8_t, 32> digest(); // finalizes; the object is then spent
  std::string hexDigest();

  static std::string hex(std::string_view Data);

private:
  void block(const uint8_t *P);
  uint32_t H[8];
  uint8_t Buf[64];
  size_t BufLen = 0;
  uint64_t Total = 0;
};

} // namespace pcj
