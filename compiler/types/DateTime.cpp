// Time units of datetime64/timedelta64 (see DateTime.h).
#include "types/DateTime.h"

namespace pcj::types {

namespace {
struct UnitRow {
  const char *name;
  // Which linear family (0: Y/M, 1: W and finer) and how many of the next
  // finer unit of the family one of this unit holds (0: the finest).
  int family;
  int64_t next;
};
// Coarse to fine.
const UnitRow Units[] = {
    {"Y", 0, 12},    {"M", 0, 0},     {"W", 1, 7},     {"D", 1, 24},
    {"h", 1, 60},    {"m", 1, 60},    {"s", 1, 1000},  {"ms", 1, 1000},
    {"us", 1, 1000}, {"ns", 1, 1000}, {"ps", 1, 1000}, {"fs", 1, 1000},
    {"as", 1, 0},
};

int unitIndex(const std::string &U) {
  for (size_t K = 0; K < std::size(Units); ++K)
    if (U == Units[K].name)
      return int(K);
  return -1;
}
} // namespace

bool isTimeUnit(const std::string &Unit) {
  return Unit.empty() || unitIndex(Unit) >= 0;
}

bool commonTimeUnit(const std::string &A, const std::string &B,
                    std::string &Out) {
  if (A.empty() || B.empty()) {
    Out = A.empty() ? B : A;
    return true;
  }
  int IA = unitIndex(A), IB = unitIndex(B);
  if (IA < 0 || IB < 0 || Units[IA].family != Units[IB].family)
    return false;
  Out = IA > IB ? A : B;
  return true;
}

int64_t timeUnitFactor(const std::string &From, const std::string &To) {
  if (From.empty() || To.empty())
    return 1;
  int64_t F = 1;
  for (int K = unitIndex(From); K < unitIndex(To); ++K)
    F *= Units[K].next;
  return F;
}

} // namespace pcj::types
