// Arbitrary-precision integers (see BigInt.h).  Sign and magnitude; the
// magnitude is little-endian 32-bit limbs.  Schoolbook algorithms: values are
// small (at most kMaxBits bits) and only constant expressions use them.
#include "support/BigInt.h"

#include <algorithm>

namespace pcj {

namespace {

using Limbs = std::vector<uint32_t>;

void trimLimbs(Limbs &M) {
  while (!M.empty() && M.back() == 0)
    M.pop_back();
}

int cmpMag(const Limbs &A, const Limbs &B) {
  if (A.size() != B.size())
    return A.size() < B.size() ? -1 : 1;
  for (size_t K = A.size(); K-- > 0;)
    if (A[K] != B[K])
      return A[K] < B[K] ? -1 : 1;
  return 0;
}

Limbs addMag(const Limbs &A, const Limbs &B) {
  Limbs R(std::max(A.size(), B.size()) + 1, 0);
  uint64_t Carry = 0;
  for (size_t K = 0; K + 1 < R.size(); ++K) {
    uint64_t S = Carry + (K < A.size() ? A[K] : 0) + (K < B.size() ? B[K] : 0);
    R[K] = uint32_t(S);
    Carry = S >> 32;
  }
  R.back() = uint32_t(Carry);
  trimLimbs(R);
  return R;
}

// A - B for |A| >= |B|.
Limbs subMag(const Limbs &A, const Limbs &B) {
  Limbs R(A.size(), 0);
  int64_t Borrow = 0;
  for (size_t K = 0; K < A.size(); ++K) {
    int64_t D = int64_t(A[K]) - (K < B.size() ? B[K] : 0) - Borrow;
    Borrow = D < 0;
    R[K] = uint32_t(D + (Borrow ? (int64_t(1) << 32) : 0));
  }
  trimLimbs(R);
  return R;
}

Limbs mulMag(const Limbs &A, const Limbs &B) {
  if (A.empty() || B.empty())
    return {};
  Limbs R(A.size() + B.size(), 0);
  for (size_t I = 0; I < A.size(); ++I) {
    uint64_t Carry = 0;
    for (size_t J = 0; J < B.size(); ++J) {
      uint64_t T = uint64_t(A[I]) * B[J] + R[I + J] + Carry;
      R[I + J] = uint32_t(T);
      Carry = T >> 32;
    }
    R[I + B.size()] = uint32_t(Carry);
  }
  trimLimbs(R);
  return R;
}

size_t bitLen(const Limbs &M) {
  if (M.empty())
    return 0;
  uint32_t Top = M.back();
  size_t Bits = 0;
  while (Top) {
    ++Bits;
    Top >>= 1;
  }
  return (M.size() - 1) * 32 + Bits;
}

bool testBit(const Limbs &M, size_t Bit) {
  return Bit / 32 < M.size() && (M[Bit / 32] >> (Bit % 32)) & 1;
}

Limbs shlMag(const Limbs &M, size_t N) {
  if (M.empty())
    return {};
  Limbs R(M.size() + N / 32 + 1, 0);
  unsigned S = N % 32;
  for (size_t K = 0; K < M.size(); ++K) {
    uint64_t V = uint64_t(M[K]) << S;
    R[K + N / 32] |= uint32_t(V);
    R[K + N / 32 + 1] |= uint32_t(V >> 32);
  }
  trimLimbs(R);
  return R;
}

Limbs shrMag(const Limbs &M, size_t N) {
  if (N / 32 >= M.size())
    return {};
  Limbs R(M.size() - N / 32, 0);
  unsigned S = N % 32;
  for (size_t K = 0; K < R.size(); ++K) {
    uint64_t Lo = M[K + N / 32];
    uint64_t Hi = K + N / 32 + 1 < M.size() ? M[K + N / 32 + 1] : 0;
    R[K] = uint32_t(((Hi << 32) | Lo) >> S);
  }
  trimLimbs(R);
  return R;
}

// Truncating division of magnitudes (binary long division), B non-zero.
void divModMag(const Limbs &A, const Limbs &B, Limbs &Q, Limbs &R) {
  Q.assign(A.size(), 0);
  R.clear();
  for (size_t Bit = bitLen(A); Bit-- > 0;) {
    R = shlMag(R, 1);
    if (testBit(A, Bit)) {
      if (R.empty())
        R.push_back(0);
      R[0] |= 1;
    }
    if (cmpMag(R, B) >= 0) {
      R = subMag(R, B);
      Q[Bit / 32] |= uint32_t(1) << (Bit % 32);
    }
  }
  trimLimbs(Q);
}

// Divides M in place by a small divisor, returning the remainder.
uint32_t divSmall(Limbs &M, uint32_t D) {
  uint64_t Rem = 0;
  for (size_t K = M.size(); K-- > 0;) {
    uint64_t Cur = (Rem << 32) | M[K];
    M[K] = uint32_t(Cur / D);
    Rem = Cur % D;
  }
  trimLimbs(M);
  return uint32_t(Rem);
}

bool tooBig(const Limbs &M) { return bitLen(M) > BigInt::kMaxBits; }

} // namespace

BigInt::BigInt(int64_t V) {
  Neg = V < 0;
  uint64_t U = Neg ? 0 - uint64_t(V) : uint64_t(V);
  Mag = {uint32_t(U), uint32_t(U >> 32)};
  trim();
}

void BigInt::trim() {
  trimLimbs(Mag);
  if (Mag.empty())
    Neg = false;
}

bool BigInt::fromDecimal(std::string_view S, BigInt &Out) {
  Out = BigInt();
  bool Negative = !S.empty() && S[0] == '-';
  if (Negative)
    S.remove_prefix(1);
  if (S.empty() || S.size() > kMaxBits / 3 + 1)
    return false;
  for (char C : S) {
    if (C < '0' || C > '9')
      return false;
    // Out = Out * 10 + digit
    uint64_t Carry = uint64_t(C - '0');
    for (uint32_t &L : Out.Mag) {
      uint64_t T = uint64_t(L) * 10 + Carry;
      L = uint32_t(T);
      Carry = T >> 32;
    }
    if (Carry)
      Out.Mag.push_back(uint32_t(Carry));
  }
  Out.Neg = Negative;
  Out.trim();
  return true;
}

std::string BigInt::toDecimal() const {
  if (Mag.empty())
    return "0";
  Limbs M = Mag;
  std::string Digits;
  while (!M.empty()) {
    uint32_t Chunk = divSmall(M, 1000000000u);
    for (int K = 0; K < 9; ++K) {
      Digits.push_back(char('0' + Chunk % 10));
      Chunk /= 10;
      if (M.empty() && Chunk == 0)
        break;
    }
  }
  while (Digits.size() > 1 && Digits.back() == '0')
    Digits.pop_back();
  if (Neg)
    Digits.push_back('-');
  std::reverse(Digits.begin(), Digits.end());
  return Digits;
}

bool BigInt::toInt64(int64_t &Out) const {
  if (Mag.size() > 2)
    return false;
  uint64_t U = Mag.empty() ? 0 : Mag[0];
  if (Mag.size() == 2)
    U |= uint64_t(Mag[1]) << 32;
  if (Neg) {
    if (U > (uint64_t(1) << 63))
      return false;
    Out = int64_t(0 - U);
    return true;
  }
  if (U >= (uint64_t(1) << 63))
    return false;
  Out = int64_t(U);
  return true;
}

size_t BigInt::bitLength() const { return bitLen(Mag); }

int BigInt::compare(const BigInt &O) const {
  if (Neg != O.Neg)
    return Neg ? -1 : 1;
  int C = cmpMag(Mag, O.Mag);
  return Neg ? -C : C;
}

BigInt BigInt::operator-() const {
  BigInt R = *this;
  R.Neg = !Neg;
  R.trim();
  return R;
}

bool BigInt::add(const BigInt &A, const BigInt &B, BigInt &Out) {
  BigInt R;
  if (A.Neg == B.Neg) {
    R.Mag = addMag(A.Mag, B.Mag);
    R.Neg = A.Neg;
  } else if (cmpMag(A.Mag, B.Mag) >= 0) {
    R.Mag = subMag(A.Mag, B.Mag);
    R.Neg = A.Neg;
  } else {
    R.Mag = subMag(B.Mag, A.Mag);
    R.Neg = B.Neg;
  }
  R.trim();
  if (tooBig(R.Mag))
    return false;
  Out = R;
  return true;
}

bool BigInt::sub(const BigInt &A, const BigInt &B, BigInt &Out) {
  return add(A, -B, Out);
}

bool BigInt::mul(const BigInt &A, const BigInt &B, BigInt &Out) {
  if (bitLen(A.Mag) + bitLen(B.Mag) > kMaxBits + 1)
    return false;
  BigInt R;
  R.Mag = mulMag(A.Mag, B.Mag);
  R.Neg = A.Neg != B.Neg;
  R.trim();
  if (tooBig(R.Mag))
    return false;
  Out = R;
  return true;
}

bool BigInt::pow(const BigInt &A, const BigInt &E, BigInt &Out) {
  int64_t N;
  if (E.Neg || !E.toInt64(N))
    return false;
  // |A| <= 1 never grows; otherwise the result has about N * bits(A) bits.
  if (bitLen(A.Mag) > 1 && uint64_t(N) > kMaxBits)
    return false;
  BigInt Result(1), Base = A;
  while (N > 0) {
    if ((N & 1) && !mul(Result, Base, Result))
      return false;
    N >>= 1;
    if (N && !mul(Base, Base, Base))
      return false;
  }
  Out = Result;
  return true;
}

bool BigInt::floorDivMod(const BigInt &A, const BigInt &B, BigInt *Q,
                         BigInt *R) {
  if (B.isZero())
    return false;
  BigInt Qt, Rt;
  divModMag(A.Mag, B.Mag, Qt.Mag, Rt.Mag);
  Qt.Neg = A.Neg != B.Neg;
  Rt.Neg = A.Neg;
  Qt.trim();
  Rt.trim();
  // Round toward negative infinity: the remainder takes B's sign.
  if (!Rt.isZero() && Rt.Neg != B.Neg) {
    sub(Qt, BigInt(1), Qt);
    add(Rt, B, Rt);
  }
  if (Q)
    *Q = Qt;
  if (R)
    *R = Rt;
  return true;
}

bool BigInt::shiftLeft(const BigInt &A, const BigInt &N, BigInt &Out) {
  int64_t S;
  if (N.Neg || !N.toInt64(S))
    return false;
  if (A.isZero()) {
    Out = A;
    return true;
  }
  if (uint64_t(S) + bitLen(A.Mag) > kMaxBits)
    return false;
  BigInt R;
  R.Mag = shlMag(A.Mag, size_t(S));
  R.Neg = A.Neg;
  R.trim();
  Out = R;
  return true;
}

bool BigInt::shiftRight(const BigInt &A, const BigInt &N, BigInt &Out) {
  int64_t S;
  if (N.Neg)
    return false;
  if (!N.toInt64(S) || uint64_t(S) > kMaxBits) // shifts everything out
    S = int64_t(kMaxBits) + 1;
  BigInt R;
  if (!A.Neg) {
    R.Mag = shrMag(A.Mag, size_t(S));
  } else { // floor: -((|a| - 1) >> s) - 1
    BigInt M1;
    M1.Mag = subMag(A.Mag, {1});
    R.Mag = shrMag(M1.Mag, size_t(S));
    R.trim();
    add(R, BigInt(1), R);
    R.Neg = true;
  }
  R.trim();
  Out = R;
  return true;
}

// Op: 0 and, 1 or, 2 xor, on unbounded two's complement values.
BigInt BigInt::bitwise(const BigInt &A, const BigInt &B, int Op) {
  size_t L = std::max(A.Mag.size(), B.Mag.size()) + 1;
  auto Twos = [L](const BigInt &X) {
    Limbs T = X.Mag;
    T.resize(L, 0);
    if (X.Neg) { // 2**(32L) - |x| = ~(|x| - 1)
      Limbs M1 = subMag(X.Mag, {1});
      M1.resize(L, 0);
      for (size_t K = 0; K < L; ++K)
        T[K] = ~M1[K];
    }
    return T;
  };
  Limbs TA = Twos(A), TB = Twos(B), T(L);
  for (size_t K = 0; K < L; ++K)
    T[K] = Op == 0 ? TA[K] & TB[K] : Op == 1 ? TA[K] | TB[K] : TA[K] ^ TB[K];
  BigInt R;
  if (T.back() >> 31) { // negative: |r| = ~t + 1
    for (uint32_t &X : T)
      X = ~X;
    trimLimbs(T);
    R.Mag = addMag(T, {1});
    R.Neg = true;
  } else {
    trimLimbs(T);
    R.Mag = T;
  }
  R.trim();
  return R;
}

BigInt BigInt::bitAnd(const BigInt &A, const BigInt &B) {
  return bitwise(A, B, 0);
}
BigInt BigInt::bitOr(const BigInt &A, const BigInt &B) {
  return bitwise(A, B, 1);
}
BigInt BigInt::bitXor(const BigInt &A, const BigInt &B) {
  return bitwise(A, B, 2);
}

BigInt BigInt::invert() const {
  BigInt R;
  sub(-*this, BigInt(1), R);
  return R;
}

} // namespace pcj
