// Tests for support/BigInt: Python int semantics on values beyond 64 bits
// (expected values computed by CPython).
#include "support/BigInt.h"

#include <gtest/gtest.h>

namespace pcj {
namespace {

BigInt big(const char *Decimal) {
  BigInt B;
  EXPECT_TRUE(BigInt::fromDecimal(Decimal, B)) << Decimal;
  return B;
}

std::string dec(const BigInt &B) { return B.toDecimal(); }

// a = -(10**40) - 12345, b = 2**70 + 3
const char *kA = "-10000000000000000000000000000000000012345";
const char *kB = "1180591620717411303427";

TEST(BigInt, DecimalRoundTripAndInt64) {
  for (const char *S : {"0", "1", "-1", "9223372036854775807",
                        "-9223372036854775808", "18446744073709551615", kA, kB})
    EXPECT_EQ(dec(big(S)), S);
  int64_t I = 0;
  EXPECT_TRUE(big("-9223372036854775808").toInt64(I));
  EXPECT_EQ(I, INT64_MIN);
  EXPECT_FALSE(big("9223372036854775808").toInt64(I));
  EXPECT_FALSE(big("-9223372036854775809").toInt64(I));
  BigInt B;
  EXPECT_FALSE(BigInt::fromDecimal("12a", B));
  EXPECT_FALSE(BigInt::fromDecimal("-", B));
  EXPECT_EQ(dec(BigInt(INT64_MIN)), "-9223372036854775808");
}

TEST(BigInt, Arithmetic) {
  BigInt A = big(kA), B = big(kB), R;
  ASSERT_TRUE(BigInt::add(A, B, R));
  EXPECT_EQ(dec(R), "-9999999999999999998819408379282588708918");
  ASSERT_TRUE(BigInt::sub(A, B, R));
  EXPECT_EQ(dec(R), "-10000000000000000001180591620717411315772");
  ASSERT_TRUE(BigInt::mul(A, B, R));
  EXPECT_EQ(dec(R),
            "-11805916207174113034270000000000000014574403557756442540806315");
  ASSERT_TRUE(BigInt::pow(BigInt(10), BigInt(100), R));
  EXPECT_EQ(dec(R), "1" + std::string(100, '0'));
  ASSERT_TRUE(BigInt::pow(BigInt(7), BigInt(200), R));
  EXPECT_EQ(
      dec(R),
      "1046183829131435717501889961181681365981918855017023365995014008403"
      "5125767424262251774382614909364050293065248252546314174063180343683"
      "591188150754267339816534637456120001");
  ASSERT_TRUE(BigInt::pow(BigInt(0), BigInt(0), R));
  EXPECT_EQ(dec(R), "1");
  EXPECT_FALSE(BigInt::pow(BigInt(2), BigInt(-1), R));
  EXPECT_FALSE(BigInt::pow(BigInt(2), BigInt(BigInt::kMaxBits + 1), R));
  ASSERT_TRUE(BigInt::pow(BigInt(-1), BigInt(1000001), R));
  EXPECT_EQ(dec(R), "-1");
}

TEST(BigInt, FloorDivisionAndModulo) {
  BigInt A = big(kA), B = big(kB), Q, R;
  ASSERT_TRUE(BigInt::floorDivMod(A, B, &Q, &R));
  EXPECT_EQ(dec(Q), "-8470329472543003391");
  EXPECT_EQ(dec(R), "399392891046590908612");
  ASSERT_TRUE(BigInt::floorDivMod(-A, B, &Q, &R));
  EXPECT_EQ(dec(Q), "8470329472543003390");
  EXPECT_EQ(dec(R), "781198729670820394815");
  ASSERT_TRUE(BigInt::floorDivMod(A, BigInt(-7), &Q, &R));
  EXPECT_EQ(dec(Q), "1428571428571428571428571428571428573192");
  EXPECT_EQ(dec(R), "-1");
  const int64_t Cases[][4] = {{-5, 2, -3, 1}, {5, -2, -3, -1}, {-6, 3, -2, 0}};
  for (const auto &C : Cases) {
    ASSERT_TRUE(BigInt::floorDivMod(BigInt(C[0]), BigInt(C[1]), &Q, &R));
    EXPECT_EQ(dec(Q), std::to_string(C[2]));
    EXPECT_EQ(dec(R), std::to_string(C[3]));
  }
  EXPECT_FALSE(BigInt::floorDivMod(A, BigInt(0), &Q, &R));
}

TEST(BigInt, BitsAndShifts) {
  BigInt A = big(kA), B = big(kB), R;
  EXPECT_EQ(dec(BigInt::bitAnd(A, B)), "1180591620717411303427");
  EXPECT_EQ(dec(BigInt::bitOr(A, B)),
            "-10000000000000000000000000000000000012345");
  EXPECT_EQ(dec(BigInt::bitXor(A, B)),
            "-10000000000000000001180591620717411315772");
  EXPECT_EQ(dec(A.invert()), "10000000000000000000000000000000000012344");
  EXPECT_EQ(dec(BigInt::bitAnd(BigInt(-1), BigInt(255))), "255");
  EXPECT_EQ(dec(BigInt::bitXor(BigInt(-1), BigInt(0))), "-1");
  ASSERT_TRUE(BigInt::shiftLeft(A, BigInt(77), R));
  EXPECT_EQ(
      dec(R),
      "-1511157274518286468382720000000000001865523655392824645218467840");
  ASSERT_TRUE(BigInt::shiftRight(A, BigInt(5), R));
  EXPECT_EQ(dec(R), "-312500000000000000000000000000000000386");
  ASSERT_TRUE(BigInt::shiftRight(BigInt(-1), BigInt(100), R));
  EXPECT_EQ(dec(R), "-1");
  ASSERT_TRUE(BigInt::shiftRight(BigInt(12345), BigInt(3), R));
  EXPECT_EQ(dec(R), "1543");
  ASSERT_TRUE(
      BigInt::shiftRight(BigInt(12345), big("100000000000000000000"), R));
  EXPECT_EQ(dec(R), "0");
  EXPECT_FALSE(BigInt::shiftLeft(BigInt(1), BigInt(-1), R));
  EXPECT_FALSE(BigInt::shiftLeft(BigInt(1), BigInt(BigInt::kMaxBits), R));
}

TEST(BigInt, Compare) {
  EXPECT_LT(big(kA).compare(big(kB)), 0);
  EXPECT_GT(big(kB).compare(BigInt(INT64_MAX)), 0);
  EXPECT_EQ(big("-0").compare(BigInt(0)), 0);
  EXPECT_LT(BigInt(-3).compare(BigInt(-2)), 0);
}

} // namespace
} // namespace pcj
