// runtime/jit/CacheKey.h: every part of a kernel's key changes it (the
// compiler and toolchain, the options, the code, the signature, each
// resolution), bytes moved between parts change it, and equal parts give
// equal keys.  (That every compile option reaches the options part is
// options_test.cpp's EveryRowChangesTheCacheKey, walking the option table.)
#include "runtime/jit/CacheKey.h"

#include <gtest/gtest.h>

#include <functional>
#include <set>

using namespace pcj::jit;

namespace {

KernelKeyParts base() {
  KernelKeyParts P;
  P.compiler = "pycuda_jit-1/frontend-aa/codegen-bb|libdevice=/x:1:2;";
  P.options = "backend=1;fastmath=0;";
  P.code = "code-fingerprint";
  P.signature = "(float64[::1],) -> none";
  P.resolutions = {{"SCALE: global", "2.0"}, {"helper: device function", "h1"}};
  return P;
}

} // namespace

TEST(JitCacheKey, EqualPartsEqualKeys) {
  std::string K = composeCacheKey(base());
  EXPECT_EQ(K.size(), 64u);
  EXPECT_EQ(K.find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_EQ(composeCacheKey(base()), K);
}

TEST(JitCacheKey, EveryPartChangesTheKey) {
  using Change = std::function<void(KernelKeyParts &)>;
  std::vector<std::pair<const char *, Change>> Changes = {
      {"compiler", [](auto &P) { P.compiler += "x"; }},
      {"toolchain", [](auto &P) { P.compiler.back() = ':'; }},
      {"options", [](auto &P) { P.options = "backend=1;fastmath=1;"; }},
      {"code", [](auto &P) { P.code += "!"; }},
      {"signature", [](auto &P) { P.signature = "(float32[::1],) -> none"; }},
      {"resolution value", [](auto &P) { P.resolutions[0].second = "3.0"; }},
      {"resolution name", [](auto &P) { P.resolutions[1].first += "2"; }},
      {"resolution added",
       [](auto &P) {
         P.resolutions.push_back({"g", ""});
       }},
      {"resolution dropped", [](auto &P) { P.resolutions.pop_back(); }},
  };
  std::set<std::string> Seen = {composeCacheKey(base())};
  for (const auto &[Name, C] : Changes) {
    KernelKeyParts P = base();
    C(P);
    EXPECT_TRUE(Seen.insert(composeCacheKey(P)).second)
        << Name << " does not change the key";
  }
}

TEST(JitCacheKey, BytesMovedBetweenPartsChangeTheKey) {
  KernelKeyParts A = base(), B = base();
  A.code = "ab";
  A.signature = "c";
  B.code = "a";
  B.signature = "bc";
  EXPECT_NE(composeCacheKey(A), composeCacheKey(B));
  KernelKeyParts C = base(), D = base();
  C.resolutions = {{"x", "yz"}};
  D.resolutions = {{"xy", "z"}};
  EXPECT_NE(composeCacheKey(C), composeCacheKey(D));
}
