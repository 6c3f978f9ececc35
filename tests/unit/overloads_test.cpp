// Tests for types/Overloads: numba's ranking of explicit signatures.
#include "types/Overloads.h"
#include "types/Signature.h"

#include <gtest/gtest.h>

namespace pcj::types {
namespace {

TypeRef T(const char *Name) { return parseType(Name); }

TEST(Overloads, ConversionKinds) {
  EXPECT_EQ(conversion(T("int32"), T("int32")), Conversion::Exact);
  EXPECT_EQ(conversion(T("int16"), T("int64")), Conversion::Promote);
  EXPECT_EQ(conversion(T("float32"), T("float64")), Conversion::Promote);
  EXPECT_EQ(conversion(T("complex64"), T("complex128")), Conversion::Promote);
  EXPECT_EQ(conversion(T("int32"), T("float64")), Conversion::Safe);
  EXPECT_EQ(conversion(T("uint8"), T("int16")), Conversion::Safe);
  EXPECT_EQ(conversion(T("bool"), T("int8")), Conversion::Safe);
  EXPECT_EQ(conversion(T("float64"), T("complex128")), Conversion::Safe);
  EXPECT_EQ(conversion(T("int64"), T("float64")), Conversion::Unsafe);
  EXPECT_EQ(conversion(T("int64"), T("float32")), Conversion::Unsafe);
  EXPECT_EQ(conversion(T("float64"), T("float32")), Conversion::Unsafe);
  EXPECT_EQ(conversion(T("float32"), T("int64")), Conversion::Unsafe);
  EXPECT_EQ(conversion(T("int64"), T("uint64")), Conversion::Unsafe);
  EXPECT_EQ(conversion(T("int32"), T("bool")), Conversion::Unsafe);
  EXPECT_EQ(conversion(T("complex64"), T("float64")), Conversion::None);
  EXPECT_EQ(conversion(T("float32[::1]"), T("float32[:]")), Conversion::Safe);
  EXPECT_EQ(conversion(T("float32[:]"), T("float32[::1]")), Conversion::None);
  EXPECT_EQ(conversion(T("float32[:]"), T("float64[:]")), Conversion::None);
  EXPECT_EQ(conversion(T("float32[:]"), T("float32")), Conversion::None);
  // A tuple converts as its least safe element.
  EXPECT_EQ(conversion(T("(int32, float32)"), T("(int64, float64)")),
            Conversion::Promote);
  EXPECT_EQ(conversion(T("(int32, float64)"), T("(int64, float32)")),
            Conversion::Unsafe);
}

std::vector<size_t> choose(std::vector<const char *> Args,
                           std::vector<std::vector<const char *>> Cands) {
  std::vector<TypeRef> A;
  for (const char *N : Args)
    A.push_back(T(N));
  std::vector<std::vector<TypeRef>> C;
  for (const auto &P : Cands) {
    C.emplace_back();
    for (const char *N : P)
      C.back().push_back(T(N));
  }
  return chooseOverload(A, C).best;
}

TEST(Overloads, Choice) {
  using V = std::vector<size_t>;
  // Python (int, float) arguments: float64 loses less than float32.
  EXPECT_EQ(choose({"int64", "float64"},
                   {{"float32", "float32"}, {"float64", "float64"}}),
            V{1});
  // Exact beats everything; promotion beats a safe conversion.
  EXPECT_EQ(choose({"int32"}, {{"int64"}, {"int32"}, {"float64"}}), V{1});
  EXPECT_EQ(choose({"int16"}, {{"float64"}, {"int32"}}), V{1});
  // Equal ranks are ambiguous.
  EXPECT_EQ(choose({"int16"}, {{"int64"}, {"int32"}}), (V{0, 1}));
  EXPECT_EQ(choose({"float64", "float64"},
                   {{"float32", "float64"}, {"float64", "float32"}}),
            (V{0, 1}));
  // Nothing fits: wrong arity, or a conversion that does not exist.
  EXPECT_EQ(choose({"complex128"}, {{"float64"}, {"int32", "int32"}}), V{});
}

} // namespace
} // namespace pcj::types
