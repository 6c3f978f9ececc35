// Names shared by lowering and the code around it, without LLVM: fast-math
// flag names and kernel symbol mangling (see Lower.h).  Kept apart from the
// lowering so that the extension's LLVM-free part can use them.
#include "lower/Lower.h"

#include <cctype>
#include <cstdint>
#include <cstdio>
#include <utility>

namespace pcj::lower {

unsigned fastmath::flagNamed(const std::string &Name) {
  static const std::pair<const char *, unsigned> Names[] = {
      {"contract", Contract}, {"afn", Afn},   {"arcp", Arcp},
      {"nsz", Nsz},           {"ninf", Ninf}, {"nnan", Nnan},
      {"reassoc", Reassoc},   {"fast", 127}};
  for (auto [N, F] : Names)
    if (Name == N)
      return F;
  return 0;
}

std::string mangleKernelName(const std::string &Qualname,
                             const std::string &SignatureText) {
  std::string Base;
  for (char C : Qualname)
    Base += (std::isalnum((unsigned char)C) || C == '_') ? C : '_';
  if (Base.empty() || std::isdigit((unsigned char)Base[0]))
    Base = "k_" + Base;
  uint64_t H = 1469598103934665603ull; // FNV-1a
  for (char C : Qualname + "|" + SignatureText) {
    H ^= (unsigned char)C;
    H *= 1099511628211ull;
  }
  char Hex[17];
  snprintf(Hex, sizeof Hex, "%016llx", (unsigned long long)H);
  return Base + "_" + std::string(Hex, 8);
}

} // namespace pcj::lower
