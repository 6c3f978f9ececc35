// NumPy's datetime64[unit] and timedelta64[unit] in kernels: Kind::Datetime
// and Kind::Timedelta, an int64 count of the unit (name(): "D", "ms"...; ""
// for NumPy's generic unit), INT64_MIN being NaT.  Not numeric: they have
// NumPy's datetime arithmetic (typeinfer/DateTimeOps.cpp) and convert only
// between units NumPy converts linearly (Y <-> M; W, D, h ... as).
#pragma once

#include "types/Type.h"

#include <cstdint>
#include <limits>

namespace pcj::types {

constexpr int64_t kNaT = std::numeric_limits<int64_t>::min();

TypeRef datetimeTy(const std::string &Unit);
TypeRef timedeltaTy(const std::string &Unit);
inline bool isDatetime(TypeRef T) { return T->kind() == Kind::Datetime; }
inline bool isTimedelta(TypeRef T) { return T->kind() == Kind::Timedelta; }
inline bool isDateLike(TypeRef T) { return isDatetime(T) || isTimedelta(T); }
// A unit NumPy knows ("Y", "M", "W", "D", "h", "m", "s", "ms", "us", "ns",
// "ps", "fs", "as"; "" the generic unit).
bool isTimeUnit(const std::string &Unit);
// The finer of two units when one converts to the other by an integer
// factor (generic converts to every unit); false when NumPy's conversion is
// not linear (years or months against days and finer).
bool commonTimeUnit(const std::string &A, const std::string &B,
                    std::string &Out);
// How many `To` make one `From` (From coarser or equal; generic: 1).
int64_t timeUnitFactor(const std::string &From, const std::string &To);

} // namespace pcj::types
