// Arbitrary-precision integers with Python's semantics, for evaluating
// constant expressions of Python ints exactly at compile time:
//
//   BigInt::pow(BigInt(10), 100)         -> 1 followed by 100 zeros
//   floorDivMod(BigInt(-7), BigInt(2))   -> q -4, r 1 (Python's // and %)
//   bitAnd(BigInt(-1), BigInt(255))      -> 255 (two's complement, unbounded)
//
// Values are limited to kMaxBits bits; an operation whose result would be
// larger returns false (a kernel cannot use such a value anyway: the largest
// double is below 2**1024).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace pcj {

class BigInt {
public:
  static constexpr size_t kMaxBits = 16384;

  BigInt() = default;
  explicit BigInt(int64_t V);
  // Decimal digits with an optional '-'; false if malformed.
  static bool fromDecimal(std::string_view S, BigInt &Out);
  std::string toDecimal() const;
  bool toInt64(int64_t &Out) const; // false if it does not fit

  bool isZero() const { return Mag.empty(); }
  bool isNegative() const { return Neg; }
  size_t bitLength() const;           // of the magnitude
  int compare(const BigInt &O) const; // -1, 0, 1

  BigInt operator-() const;
  // Each returns false when the result would exceed kMaxBits (or the
  // operation is undefined: division by zero, negative shift or exponent).
  static bool add(const BigInt &A, const BigInt &B, BigInt &Out);
  static bool sub(const BigInt &A, const BigInt &B, BigInt &Out);
  static bool mul(const BigInt &A, const BigInt &B, BigInt &Out);
  static bool pow(const BigInt &A, const BigInt &E, BigInt &Out);
  // Python's floor division and modulo (the remainder has B's sign).
  static bool floorDivMod(const BigInt &A, const BigInt &B, BigInt *Q,
                          BigInt *R);
  static bool shiftLeft(const BigInt &A, const BigInt &N, BigInt &Out);
  static bool shiftRight(const BigInt &A, const BigInt &N, BigInt &Out);
  static BigInt bitAnd(const BigInt &A, const BigInt &B);
  static BigInt bitOr(const BigInt &A, const BigInt &B);
  static BigInt bitXor(const BigInt &A, const BigInt &B);
  BigInt invert() const; // ~x == -x - 1

private:
  bool Neg = false;
  std::vector<uint32_t> Mag; // little-endian limbs, no leading zero limb

  void trim();
  static BigInt bitwise(const BigInt &A, const BigInt &B, int Op);
};

} // namespace pcj
