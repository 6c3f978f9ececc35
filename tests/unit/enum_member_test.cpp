// Tests for the Enum member type (types::enumMemberTy): one type per class
// key, printed with the whole key (the printed type keys specializations
// and the disk cache), passed to a kernel exactly as its value is.
#include "types/KernelABI.h"
#include "types/Type.h"

#include <gtest/gtest.h>

namespace pcj::types {
namespace {

TEST(EnumMember, OneTypePerClassKey) {
  TypeRef A = enumMemberTy("m.Color@1", int64Ty());
  EXPECT_EQ(A, enumMemberTy("m.Color@1", int64Ty()));
  // Another class object with the same name is another type.
  EXPECT_NE(A, enumMemberTy("m.Color@2", int64Ty()));
  EXPECT_NE(A, enumMemberTy("m.Color@1", float64Ty()));
  EXPECT_EQ(A->kind(), Kind::EnumMember);
  EXPECT_EQ(A->inner(), int64Ty());
  EXPECT_EQ(A->str(), "Enum<int64>(m.Color@1)");
  EXPECT_NE(A->str(), enumMemberTy("m.Color@2", int64Ty())->str());
  EXPECT_TRUE(A->isRuntime());
  EXPECT_FALSE(A->isNumeric());
}

TEST(EnumMember, PassedAsItsValue) {
  TypeRef Pair = tupleTy({float64Ty(), float64Ty()});
  TypeRef Planet = enumMemberTy("m.Planet@7", Pair);
  std::vector<AbiSlot> Member = flattenKernelParams({Planet, int32Ty()});
  std::vector<AbiSlot> Value = flattenKernelParams({Pair, int32Ty()});
  ASSERT_EQ(Member.size(), Value.size());
  for (size_t K = 0; K < Member.size(); ++K) {
    EXPECT_EQ(Member[K].scalar, Value[K].scalar);
    EXPECT_EQ(Member[K].offset, Value[K].offset);
    EXPECT_EQ(Member[K].param, Value[K].param);
    EXPECT_EQ(Member[K].path, Value[K].path);
  }
  unsigned MS, MA, VS, VA;
  abiSizeAlign(Planet, MS, MA);
  abiSizeAlign(Pair, VS, VA);
  EXPECT_EQ(MS, VS);
  EXPECT_EQ(MA, VA);
}

} // namespace
} // namespace pcj::types
