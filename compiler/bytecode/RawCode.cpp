// RawCode helpers: Python-like, deterministic reprs and structural equality
// for ConstValue, and name lookup in the interpreter's opcode table.
//
//   ConstValue::ofFloat(1e16).repr()  == "1e+16"   (as Python's repr)
//   tuple (1, 'a').repr()             == "(1, 'a')"
#include "bytecode/RawCode.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace pcj::bc {

int OpcodeTable::number(const std::string &Name) const {
  auto It = opmap.find(Name);
  return It == opmap.end() ? -1 : It->second;
}

namespace {

// Python's float repr: the shortest digits that round-trip, printed fixed
// when the decimal exponent is in [-4, 16) and in scientific notation
// otherwise; fixed notation always shows a fractional part unless
// `ForComplex` (complex parts print as "2" rather than "2.0").
std::string floatRepr(double D, bool ForComplex = false) {
  if (std::isnan(D))
    return "nan";
  if (std::isinf(D))
    return D < 0 ? "-inf" : "inf";
  char Buf[64];
  auto R =
      std::to_chars(Buf, Buf + sizeof(Buf), D, std::chars_format::scientific);
  std::string Sci(Buf, R.ptr);
  // Sci: [-]d[.ddd]e(+|-)XX
  bool Neg = Sci[0] == '-';
  if (Neg)
    Sci.erase(0, 1);
  size_t E = Sci.find('e');
  std::string Digits = Sci.substr(0, E);
  int Exp = std::stoi(Sci.substr(E + 1));
  Digits.erase(std::remove(Digits.begin(), Digits.end(), '.'), Digits.end());
  std::string Out = Neg ? "-" : "";
  if (Exp >= -4 && Exp < 16) {
    if (Exp < 0) {
      Out += "0." + std::string(-Exp - 1, '0') + Digits;
    } else if ((int)Digits.size() <= Exp + 1) {
      Out += Digits + std::string(Exp + 1 - Digits.size(), '0');
      if (!ForComplex)
        Out += ".0";
    } else {
      Out += Digits.substr(0, Exp + 1) + "." + Digits.substr(Exp + 1);
    }
    return Out;
  }
  Out += Digits.substr(0, 1);
  if (Digits.size() > 1)
    Out += "." + Digits.substr(1);
  char ExpBuf[16];
  std::snprintf(ExpBuf, sizeof(ExpBuf), "e%c%02d", Exp < 0 ? '-' : '+',
                Exp < 0 ? -Exp : Exp);
  return Out + ExpBuf;
}

void appendEscaped(std::string &Out, unsigned char C, char Quote,
                   bool IsBytes) {
  switch (C) {
  case '\\':
    Out += "\\\\";
    return;
  case '\n':
    Out += "\\n";
    return;
  case '\r':
    Out += "\\r";
    return;
  case '\t':
    Out += "\\t";
    return;
  default:
    break;
  }
  if (C == (unsigned char)Quote) {
    Out += '\\';
    Out += Quote;
    return;
  }
  // Non-ASCII bytes of a str are UTF-8 and printed as-is (as Python does for
  // printable characters); in bytes they are escapes.
  if (C < 0x20 || C == 0x7f || (IsBytes && C >= 0x80)) {
    char Buf[8];
    std::snprintf(Buf, sizeof(Buf), "\\x%02x", C);
    Out += Buf;
    return;
  }
  Out += (char)C;
}

std::string quoted(const std::string &S, bool IsBytes) {
  // Python prefers single quotes unless the text has ' and no ".
  bool HasSingle = S.find('\'') != std::string::npos;
  bool HasDouble = S.find('"') != std::string::npos;
  char Quote = HasSingle && !HasDouble ? '"' : '\'';
  std::string Out = IsBytes ? "b" : "";
  Out += Quote;
  for (unsigned char C : S)
    appendEscaped(Out, C, Quote, IsBytes);
  Out += Quote;
  return Out;
}

bool sameDouble(double A, double B) {
  // Bitwise: keeps 0.0 and -0.0 apart and NaN equal to itself, which is what
  // constant deduplication and cache keys need.
  return std::memcmp(&A, &B, sizeof(double)) == 0;
}

} // namespace

bool ConstValue::asUInt64(uint64_t &Out) const {
  if (kind != Kind::Int)
    return false;
  if (!bigInt) {
    Out = uint64_t(i);
    return i >= 0;
  }
  if (text.empty() || text[0] == '-')
    return false;
  auto R = std::from_chars(text.data(), text.data() + text.size(), Out);
  return R.ec == std::errc() && R.ptr == text.data() + text.size();
}

bool ConstValue::fitsInt(unsigned Bits, bool Signed) const {
  if (kind != Kind::Int || Bits == 0 || Bits > 64)
    return false;
  if (Signed) {
    if (bigInt)
      return false;
    int64_t Lo = Bits == 64 ? INT64_MIN : -(int64_t(1) << (Bits - 1));
    int64_t Hi = Bits == 64 ? INT64_MAX : (int64_t(1) << (Bits - 1)) - 1;
    return i >= Lo && i <= Hi;
  }
  uint64_t U;
  return asUInt64(U) && (Bits == 64 || U < (uint64_t(1) << Bits));
}

bool ConstValue::asDouble(double &Out) const {
  if (kind != Kind::Int)
    return false;
  if (!bigInt) {
    Out = double(i); // one rounding, to nearest even
    return true;
  }
  errno = 0;
  Out = std::strtod(text.c_str(), nullptr); // correctly rounded (glibc)
  return !(errno == ERANGE && std::isinf(Out));
}

std::string ConstValue::repr() const {
  switch (kind) {
  case Kind::None:
    return "None";
  case Kind::Bool:
    return b ? "True" : "False";
  case Kind::Int:
    return bigInt ? text : std::to_string(i);
  case Kind::Float:
    return floatRepr(f);
  case Kind::Complex: {
    std::string Im = floatRepr(imag, /*ForComplex=*/true) + "j";
    if (f == 0 && !std::signbit(f))
      return Im;
    std::string Re = floatRepr(f, true);
    if (Im[0] != '-')
      Im = "+" + Im;
    return "(" + Re + Im + ")";
  }
  case Kind::Str:
    return quoted(text, false);
  case Kind::Bytes:
    return quoted(text, true);
  case Kind::Tuple: {
    std::string Out = "(";
    for (size_t I = 0; I < elems.size(); ++I) {
      if (I)
        Out += ", ";
      Out += elems[I].repr();
    }
    if (elems.size() == 1)
      Out += ",";
    return Out + ")";
  }
  case Kind::Ellipsis:
    return "Ellipsis";
  case Kind::Code:
    return "<code object " + text + ">";
  case Kind::Other:
    return text;
  }
  return "?";
}

bool ConstValue::operator==(const ConstValue &O) const {
  if (kind != O.kind)
    return false;
  switch (kind) {
  case Kind::None:
  case Kind::Ellipsis:
    return true;
  case Kind::Bool:
    return b == O.b;
  case Kind::Int:
    return bigInt == O.bigInt && (bigInt ? text == O.text : i == O.i);
  case Kind::Float:
    return sameDouble(f, O.f);
  case Kind::Complex:
    return sameDouble(f, O.f) && sameDouble(imag, O.imag);
  case Kind::Str:
  case Kind::Bytes:
  case Kind::Code:
  case Kind::Other:
    return text == O.text;
  case Kind::Tuple:
    return elems == O.elems;
  }
  return false;
}

} // namespace pcj::bc
