// The SSA-IR interpreter for tests (see IRInterpreter.h).
//
// Reads only the IR's data structures: no calls into the compiler libraries
// (pcj_runtime_tests links this file too, without them).
#include "support/IRInterpreter.h"

#include "support/RawCodeFixture.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <unordered_map>

namespace pcj::test {

using K = Value::Kind;
using bc::BinOpKind;
using bc::CmpKind;

static_assert(std::numeric_limits<long double>::digits >= 64,
              "exact int/float comparisons need a 64-bit mantissa");

// ---- values -----------------------------------------------------------------

Value Value::ofBool(bool V) {
  Value R;
  R.kind = K::Bool;
  R.b = V;
  return R;
}
Value Value::ofInt(int64_t V) {
  Value R;
  R.kind = K::Int;
  R.i = V;
  return R;
}
Value Value::ofFloat(double V) {
  Value R;
  R.kind = K::Float;
  R.f = V;
  return R;
}
Value Value::ofStr(std::string S) {
  Value R;
  R.kind = K::Str;
  R.name = std::move(S);
  return R;
}
Value Value::tuple(std::vector<Value> Elems) {
  Value R;
  R.kind = K::Tuple;
  R.elems = std::move(Elems);
  return R;
}

namespace {

const char *kindName(K Kd) {
  switch (Kd) {
  case K::Undef:
    return "undef";
  case K::None:
    return "NoneType";
  case K::Bool:
    return "bool";
  case K::Int:
    return "int";
  case K::Float:
    return "float";
  case K::Str:
    return "str";
  case K::Tuple:
    return "tuple";
  case K::Range:
    return "range";
  case K::RangeIter:
    return "range_iterator";
  case K::Builtin:
    return "builtin_function";
  case K::Module:
    return "module";
  case K::Host:
    return "host_function";
  }
  return "?";
}

const char *irOpName(ir::Op O) {
  switch (O) {
#define PCJ_IR_OP(Name, Text, Term)                                            \
  case ir::Op::Name:                                                           \
    return Text;
#include "ir/Opcodes.def"
#undef PCJ_IR_OP
  }
  return "?";
}

const char *binSymbol(int Op) {
  static const char *const Syms[] = {"+",  "-",  "*", "/", "//", "%", "**",
                                     "<<", ">>", "&", "|", "^",  "@"};
  return Op >= 0 && Op < int(std::size(Syms)) ? Syms[Op] : "?";
}

[[noreturn]] void unsupported(const std::string &Msg) {
  throw InterpError("IR interpreter: " + Msg);
}
[[noreturn]] void raise(const char *Type, const std::string &Msg) {
  throw PyError(Type, Msg);
}

std::string floatRepr(double D) {
  if (std::isnan(D))
    return "nan";
  if (std::isinf(D))
    return D > 0 ? "inf" : "-inf";
  char Buf[64];
  auto R = std::to_chars(Buf, Buf + sizeof(Buf), D);
  std::string S(Buf, R.ptr);
  if (S.find_first_of(".en") == std::string::npos)
    S += ".0";
  return S;
}

} // namespace

std::string repr(const Value &V) {
  switch (V.kind) {
  case K::Undef:
    return "<undef>";
  case K::None:
    return "None";
  case K::Bool:
    return V.b ? "True" : "False";
  case K::Int:
    return std::to_string(V.i);
  case K::Float:
    return floatRepr(V.f);
  case K::Str:
    return "'" + V.name + "'";
  case K::Tuple: {
    std::string S = "(";
    for (size_t I = 0; I < V.elems.size(); ++I)
      S += (I ? ", " : "") + repr(V.elems[I]);
    return S + (V.elems.size() == 1 ? ",)" : ")");
  }
  case K::Range:
    return "range(" + std::to_string(V.start) + ", " + std::to_string(V.stop) +
           ", " + std::to_string(V.step) + ")";
  case K::RangeIter:
    return "<range_iterator>";
  case K::Builtin:
    return "<built-in function " + V.name + ">";
  case K::Module:
    return "<module '" + V.name + "'>";
  case K::Host:
    return "<host function " + V.name + ">";
  }
  return "?";
}

bool sameValue(const Value &A, const Value &B) {
  if (A.kind != B.kind)
    return false;
  switch (A.kind) {
  case K::Undef:
  case K::None:
    return true;
  case K::Bool:
    return A.b == B.b;
  case K::Int:
    return A.i == B.i;
  case K::Float:
    if (std::isnan(A.f) && std::isnan(B.f))
      return true;
    return std::memcmp(&A.f, &B.f, sizeof(double)) == 0;
  case K::Str:
  case K::Builtin:
  case K::Module:
  case K::Host:
    return A.name == B.name;
  case K::Tuple:
    if (A.elems.size() != B.elems.size())
      return false;
    for (size_t I = 0; I < A.elems.size(); ++I)
      if (!sameValue(A.elems[I], B.elems[I]))
        return false;
    return true;
  case K::Range:
    return A.start == B.start && A.stop == B.stop && A.step == B.step;
  case K::RangeIter:
    return A.iter == B.iter;
  }
  return false;
}

Value fromConst(const bc::ConstValue &C) {
  using CK = bc::ConstValue::Kind;
  switch (C.kind) {
  case CK::None:
    return Value::none();
  case CK::Bool:
    return Value::ofBool(C.b);
  case CK::Int:
    if (C.bigInt)
      unsupported("integer constant " + C.text + " does not fit in int64");
    return Value::ofInt(C.i);
  case CK::Float:
    return Value::ofFloat(C.f);
  case CK::Str:
    return Value::ofStr(C.text);
  case CK::Tuple: {
    std::vector<Value> E;
    for (const bc::ConstValue &X : C.elems)
      E.push_back(fromConst(X));
    return Value::tuple(std::move(E));
  }
  case CK::Complex:
    unsupported("complex constants");
  case CK::Bytes:
    unsupported("bytes constants");
  case CK::Ellipsis:
    unsupported("the Ellipsis constant");
  case CK::Code:
    unsupported("code object constants");
  case CK::Other:
    unsupported("constant " + C.text);
  }
  unsupported("unknown constant kind");
}

// ---- Python arithmetic ------------------------------------------------------

namespace {

bool isIntLike(const Value &V) { return V.kind == K::Bool || V.kind == K::Int; }
int64_t asInt(const Value &V) { return V.kind == K::Bool ? int64_t(V.b) : V.i; }
double asDouble(const Value &V) {
  return V.kind == K::Float ? V.f : double(asInt(V));
}

bool truth(const Value &V) {
  switch (V.kind) {
  case K::None:
    return false;
  case K::Bool:
    return V.b;
  case K::Int:
    return V.i != 0;
  case K::Float:
    return V.f != 0.0;
  case K::Str:
    return !V.name.empty();
  case K::Tuple:
    return !V.elems.empty();
  default:
    unsupported(std::string("truth value of a ") + kindName(V.kind));
  }
}

// Integer arithmetic: Wrap (typed mode) wraps modulo 2^64, else leaving
// int64 is an InterpError (Python ints are unbounded).
struct IntMath {
  bool wrap;

  int64_t overflow(int64_t Wrapped, const char *What) const {
    if (!wrap)
      unsupported(std::string("int64 overflow in ") + What +
                  " (Python ints are unbounded; pick smaller inputs)");
    return Wrapped;
  }
  int64_t add(int64_t A, int64_t B) const {
    int64_t R;
    return __builtin_add_overflow(A, B, &R) ? overflow(R, "+") : R;
  }
  int64_t sub(int64_t A, int64_t B) const {
    int64_t R;
    return __builtin_sub_overflow(A, B, &R) ? overflow(R, "-") : R;
  }
  int64_t mul(int64_t A, int64_t B) const {
    int64_t R;
    return __builtin_mul_overflow(A, B, &R) ? overflow(R, "*") : R;
  }
  int64_t neg(int64_t A) const {
    return A == std::numeric_limits<int64_t>::min() ? overflow(A, "unary -")
                                                    : -A;
  }
  // Python floor division and modulo (the remainder has the divisor's sign).
  void divmod(int64_t A, int64_t B, int64_t &Q, int64_t &R) const {
    if (B == 0)
      raise("ZeroDivisionError", "integer division or modulo by zero");
    if (A == std::numeric_limits<int64_t>::min() && B == -1) {
      Q = overflow(A, "//");
      R = 0;
      return;
    }
    Q = A / B;
    R = A % B;
    if (R != 0 && ((R < 0) != (B < 0))) {
      Q -= 1;
      R += B;
    }
  }
  int64_t pow(int64_t Base, int64_t Exp) const {
    int64_t Result = 1;
    while (Exp > 0) {
      if (Exp & 1)
        Result = mul(Result, Base);
      Exp >>= 1;
      if (Exp)
        Base = mul(Base, Base);
    }
    return Result;
  }
  int64_t shl(int64_t A, int64_t N) const {
    if (N < 0)
      raise("ValueError", "negative shift count");
    if (A == 0)
      return 0;
    if (N >= 64)
      return overflow(0, "<<");
    __int128 R = __int128(A) * (__int128(1) << N);
    if (R > std::numeric_limits<int64_t>::max() ||
        R < std::numeric_limits<int64_t>::min())
      return overflow(int64_t(uint64_t(A) << N), "<<");
    return int64_t(R);
  }
  int64_t shr(int64_t A, int64_t N) const {
    if (N < 0)
      raise("ValueError", "negative shift count");
    if (N >= 64)
      return A < 0 ? -1 : 0;
    return A >> N;
  }
};

// CPython's float floor division / modulo (Objects/floatobject.c).
void floatDivmod(double Vx, double Wx, double &FloorDiv, double &Mod) {
  if (Wx == 0.0)
    raise("ZeroDivisionError", "float divmod()");
  Mod = std::fmod(Vx, Wx);
  double Div = (Vx - Mod) / Wx;
  if (Mod != 0.0) {
    if ((Wx < 0) != (Mod < 0)) {
      Mod += Wx;
      Div -= 1.0;
    }
  } else {
    Mod = std::copysign(0.0, Wx);
  }
  if (Div != 0.0) {
    FloorDiv = std::floor(Div);
    if (Div - FloorDiv > 0.5)
      FloorDiv += 1.0;
  } else {
    FloorDiv = std::copysign(0.0, Vx / Wx);
  }
}

bool isOddInteger(double D) { return std::fmod(std::fabs(D), 2.0) == 1.0; }

// CPython's float_pow, minus the complex results (an InterpError).
double floatPow(double Iv, double Iw) {
  if (Iw == 0.0)
    return 1.0;
  if (std::isnan(Iv))
    return Iv;
  if (std::isnan(Iw))
    return Iv == 1.0 ? 1.0 : Iw;
  if (std::isinf(Iw)) {
    Iv = std::fabs(Iv);
    if (Iv == 1.0)
      return 1.0;
    if ((Iw > 0.0) == (Iv > 1.0))
      return std::fabs(Iw);
    return 0.0;
  }
  if (std::isinf(Iv)) {
    bool Odd = isOddInteger(Iw);
    if (Iw > 0.0)
      return Odd ? Iv : std::fabs(Iv);
    return Odd ? std::copysign(0.0, Iv) : 0.0;
  }
  if (Iv == 0.0) {
    if (Iw < 0.0)
      raise("ZeroDivisionError", "0.0 cannot be raised to a negative power");
    return isOddInteger(Iw) ? Iv : 0.0;
  }
  bool Negate = false;
  if (Iv < 0.0) {
    if (Iw != std::floor(Iw))
      unsupported("a negative float to a fractional power (a complex)");
    Iv = -Iv;
    Negate = isOddInteger(Iw);
  }
  if (Iv == 1.0)
    return Negate ? -1.0 : 1.0;
  double R = std::pow(Iv, Iw);
  if (std::isinf(R))
    raise("OverflowError", "(34, 'Numerical result out of range')");
  return Negate ? -R : R;
}

// Exact numeric comparison (Python compares int and float exactly).
// Returns false for every ordering involving NaN, like Python.
bool compareNumbers(CmpKind C, const Value &A, const Value &B) {
  if (isIntLike(A) && isIntLike(B)) {
    int64_t X = asInt(A), Y = asInt(B);
    switch (C) {
    case CmpKind::Lt:
      return X < Y;
    case CmpKind::Le:
      return X <= Y;
    case CmpKind::Eq:
      return X == Y;
    case CmpKind::Ne:
      return X != Y;
    case CmpKind::Gt:
      return X > Y;
    case CmpKind::Ge:
      return X >= Y;
    }
  }
  long double X = A.kind == K::Float ? (long double)A.f : (long double)asInt(A);
  long double Y = B.kind == K::Float ? (long double)B.f : (long double)asInt(B);
  switch (C) {
  case CmpKind::Lt:
    return X < Y;
  case CmpKind::Le:
    return X <= Y;
  case CmpKind::Eq:
    return X == Y;
  case CmpKind::Ne:
    return X != Y;
  case CmpKind::Gt:
    return X > Y;
  case CmpKind::Ge:
    return X >= Y;
  }
  unsupported("unknown comparison");
}

bool pyCompare(CmpKind C, const Value &A, const Value &B) {
  if (A.isNumeric() && B.isNumeric())
    return compareNumbers(C, A, B);
  bool Equality = C == CmpKind::Eq || C == CmpKind::Ne;
  if (Equality) {
    bool Eq;
    if (A.kind == K::None || B.kind == K::None)
      Eq = A.kind == B.kind;
    else if (A.kind == K::Str && B.kind == K::Str)
      Eq = A.name == B.name;
    else if (A.kind == K::Tuple && B.kind == K::Tuple) {
      Eq = A.elems.size() == B.elems.size();
      for (size_t I = 0; Eq && I < A.elems.size(); ++I)
        Eq = pyCompare(CmpKind::Eq, A.elems[I], B.elems[I]);
    } else if ((A.kind == K::Str || A.kind == K::Tuple || A.isNumeric()) &&
               (B.kind == K::Str || B.kind == K::Tuple || B.isNumeric()))
      Eq = false; // different Python types
    else
      unsupported(std::string("comparing ") + kindName(A.kind) + " and " +
                  kindName(B.kind));
    return C == CmpKind::Eq ? Eq : !Eq;
  }
  if (A.kind == K::None || B.kind == K::None)
    raise("TypeError", std::string("'<' not supported between instances of '") +
                           kindName(A.kind) + "' and '" + kindName(B.kind) +
                           "'");
  unsupported(std::string("ordering ") + kindName(A.kind) + " and " +
              kindName(B.kind));
}

[[noreturn]] void badOperands(int Op, const Value &A, const Value &B) {
  raise("TypeError", std::string("unsupported operand type(s) for ") +
                         binSymbol(Op) + ": '" + kindName(A.kind) + "' and '" +
                         kindName(B.kind) + "'");
}

Value binop(int Op, const Value &A, const Value &B, bool Wrap) {
  auto Kd = BinOpKind(Op);
  if (!A.isNumeric() || !B.isNumeric()) {
    if (Kd == BinOpKind::Add && A.kind == K::Tuple && B.kind == K::Tuple) {
      std::vector<Value> E = A.elems;
      E.insert(E.end(), B.elems.begin(), B.elems.end());
      return Value::tuple(std::move(E));
    }
    if (Kd == BinOpKind::Add && A.kind == K::Str && B.kind == K::Str)
      return Value::ofStr(A.name + B.name);
    if (A.kind == K::None || B.kind == K::None)
      badOperands(Op, A, B);
    unsupported(std::string("binop ") + binSymbol(Op) + " on " +
                kindName(A.kind) + " and " + kindName(B.kind));
  }
  IntMath M{Wrap};
  bool AnyFloat = A.kind == K::Float || B.kind == K::Float;
  switch (Kd) {
  case BinOpKind::And:
  case BinOpKind::Or:
  case BinOpKind::Xor: {
    if (AnyFloat)
      badOperands(Op, A, B);
    int64_t X = asInt(A), Y = asInt(B);
    int64_t R = Kd == BinOpKind::And  ? (X & Y)
                : Kd == BinOpKind::Or ? (X | Y)
                                      : (X ^ Y);
    if (A.kind == K::Bool && B.kind == K::Bool)
      return Value::ofBool(R != 0);
    return Value::ofInt(R);
  }
  case BinOpKind::LShift:
  case BinOpKind::RShift:
    if (AnyFloat)
      badOperands(Op, A, B);
    return Value::ofInt(Kd == BinOpKind::LShift ? M.shl(asInt(A), asInt(B))
                                                : M.shr(asInt(A), asInt(B)));
  case BinOpKind::MatMul:
    badOperands(Op, A, B);
  default:
    break;
  }
  if (Kd == BinOpKind::TrueDiv && !AnyFloat) {
    // int / int is correctly rounded in Python; so is double / double when
    // both are exact.
    int64_t X = asInt(A), Y = asInt(B);
    const int64_t Exact = int64_t(1) << 53;
    if (X > Exact || X < -Exact || Y > Exact || Y < -Exact)
      unsupported("int / int with operands beyond 2**53");
    if (Y == 0)
      raise("ZeroDivisionError", "division by zero");
    return Value::ofFloat(double(X) / double(Y));
  }
  if (Kd == BinOpKind::Pow && !AnyFloat && asInt(B) < 0) {
    if (Wrap)
      unsupported("integer to a negative integer power in typed code");
    if (asInt(A) == 0)
      raise("ZeroDivisionError", "0.0 cannot be raised to a negative power");
    return Value::ofFloat(floatPow(asDouble(A), asDouble(B)));
  }
  if (AnyFloat) {
    double X = asDouble(A), Y = asDouble(B), Q = 0, R = 0;
    switch (Kd) {
    case BinOpKind::Add:
      return Value::ofFloat(X + Y);
    case BinOpKind::Sub:
      return Value::ofFloat(X - Y);
    case BinOpKind::Mul:
      return Value::ofFloat(X * Y);
    case BinOpKind::TrueDiv:
      if (Y == 0.0)
        raise("ZeroDivisionError", "float division by zero");
      return Value::ofFloat(X / Y);
    case BinOpKind::FloorDiv:
      floatDivmod(X, Y, Q, R);
      return Value::ofFloat(Q);
    case BinOpKind::Mod:
      if (Y == 0.0)
        raise("ZeroDivisionError", "float modulo");
      floatDivmod(X, Y, Q, R);
      return Value::ofFloat(R);
    case BinOpKind::Pow:
      return Value::ofFloat(floatPow(X, Y));
    default:
      break;
    }
    unsupported(std::string("float binop ") + binSymbol(Op));
  }
  int64_t X = asInt(A), Y = asInt(B), Q = 0, R = 0;
  switch (Kd) {
  case BinOpKind::Add:
    return Value::ofInt(M.add(X, Y));
  case BinOpKind::Sub:
    return Value::ofInt(M.sub(X, Y));
  case BinOpKind::Mul:
    return Value::ofInt(M.mul(X, Y));
  case BinOpKind::FloorDiv:
    M.divmod(X, Y, Q, R);
    return Value::ofInt(Q);
  case BinOpKind::Mod:
    M.divmod(X, Y, Q, R);
    return Value::ofInt(R);
  case BinOpKind::Pow:
    return Value::ofInt(M.pow(X, Y));
  default:
    break;
  }
  unsupported(std::string("int binop ") + binSymbol(Op));
}

Value unary(ir::UnaryKind U, const Value &A, bool Wrap) {
  if (U == ir::UnaryKind::Not)
    return Value::ofBool(!truth(A));
  if (!A.isNumeric()) {
    if (A.kind == K::None || A.kind == K::Tuple || A.kind == K::Str)
      raise("TypeError", std::string("bad operand type for unary op: '") +
                             kindName(A.kind) + "'");
    unsupported(std::string("unary op on ") + kindName(A.kind));
  }
  if (A.kind == K::Float) {
    switch (U) {
    case ir::UnaryKind::Neg:
      return Value::ofFloat(-A.f);
    case ir::UnaryKind::Pos:
      return A;
    default:
      raise("TypeError", "bad operand type for unary ~: 'float'");
    }
  }
  IntMath M{Wrap};
  int64_t X = asInt(A);
  switch (U) {
  case ir::UnaryKind::Neg:
    return Value::ofInt(M.neg(X));
  case ir::UnaryKind::Pos:
    return Value::ofInt(X);
  case ir::UnaryKind::Invert:
    return Value::ofInt(~X);
  default:
    break;
  }
  unsupported("unknown unary op");
}

int64_t rangeLength(const Value &R) {
  __int128 Lo = R.start, Hi = R.stop, St = R.step;
  if (St > 0 && Lo < Hi)
    return int64_t((Hi - Lo - 1) / St + 1);
  if (St < 0 && Lo > Hi)
    return int64_t((Lo - Hi - 1) / (-St) + 1);
  return 0;
}

int64_t floatToInt(double D, const char *What) {
  if (std::isnan(D))
    raise("ValueError", std::string("cannot convert float NaN to ") + What);
  if (std::isinf(D))
    raise("OverflowError",
          std::string("cannot convert float infinity to ") + What);
  if (D >= 9223372036854775808.0 || D < -9223372036854775808.0)
    unsupported("float to int beyond int64");
  return int64_t(D);
}

Value callBuiltin(const std::string &Name, const std::vector<Value> &Args,
                  const std::vector<std::string> &Kw, bool Wrap) {
  if (!Kw.empty())
    unsupported("keyword arguments to builtin " + Name);
  auto Want = [&](size_t Lo, size_t Hi) {
    if (Args.size() < Lo || Args.size() > Hi)
      raise("TypeError",
            Name + "() got " + std::to_string(Args.size()) + " arguments");
  };
  auto Number = [&](const Value &V) {
    if (!V.isNumeric())
      raise("TypeError", Name + "() argument must be a number, not '" +
                             std::string(kindName(V.kind)) + "'");
  };
  if (Name == "range") {
    Want(1, 3);
    for (const Value &A : Args)
      if (!isIntLike(A))
        raise("TypeError", std::string("'") + kindName(A.kind) +
                               "' object cannot be interpreted as an integer");
    Value R;
    R.kind = K::Range;
    if (Args.size() == 1) {
      R.stop = asInt(Args[0]);
    } else {
      R.start = asInt(Args[0]);
      R.stop = asInt(Args[1]);
      if (Args.size() == 3)
        R.step = asInt(Args[2]);
    }
    if (R.step == 0)
      raise("ValueError", "range() arg 3 must not be zero");
    return R;
  }
  if (Name == "abs") {
    Want(1, 1);
    Number(Args[0]);
    if (Args[0].kind == K::Float)
      return Value::ofFloat(std::fabs(Args[0].f));
    int64_t X = asInt(Args[0]);
    return Value::ofInt(X < 0 ? IntMath{Wrap}.neg(X) : X);
  }
  if (Name == "min" || Name == "max") {
    std::vector<Value> Items = Args;
    if (Args.size() == 1 && Args[0].kind == K::Tuple)
      Items = Args[0].elems;
    else if (Args.size() < 2)
      unsupported(Name + "() of one non-tuple argument");
    if (Items.empty())
      raise("ValueError", Name + "() arg is an empty sequence");
    Value Best = Items[0];
    CmpKind C = Name == "min" ? CmpKind::Lt : CmpKind::Gt;
    for (size_t I = 1; I < Items.size(); ++I)
      if (pyCompare(C, Items[I], Best))
        Best = Items[I];
    return Best;
  }
  if (Name == "len") {
    Want(1, 1);
    const Value &A = Args[0];
    if (A.kind == K::Tuple)
      return Value::ofInt(int64_t(A.elems.size()));
    if (A.kind == K::Str)
      return Value::ofInt(int64_t(A.name.size()));
    if (A.kind == K::Range)
      return Value::ofInt(rangeLength(A));
    raise("TypeError", std::string("object of type '") + kindName(A.kind) +
                           "' has no len()");
  }
  if (Name == "int") {
    Want(0, 1);
    if (Args.empty())
      return Value::ofInt(0);
    const Value &A = Args[0];
    if (isIntLike(A))
      return Value::ofInt(asInt(A));
    if (A.kind == K::Float)
      return Value::ofInt(floatToInt(A.f, "integer"));
    unsupported(std::string("int() of ") + kindName(A.kind));
  }
  if (Name == "float") {
    Want(0, 1);
    if (Args.empty())
      return Value::ofFloat(0.0);
    if (!Args[0].isNumeric())
      unsupported(std::string("float() of ") + kindName(Args[0].kind));
    return Value::ofFloat(asDouble(Args[0]));
  }
  if (Name == "bool") {
    Want(0, 1);
    return Value::ofBool(!Args.empty() && truth(Args[0]));
  }
  if (Name == "math.sqrt") {
    Want(1, 1);
    Number(Args[0]);
    double X = asDouble(Args[0]);
    if (X < 0)
      raise("ValueError", "math domain error");
    return Value::ofFloat(std::sqrt(X));
  }
  if (Name == "math.floor") {
    Want(1, 1);
    Number(Args[0]);
    if (isIntLike(Args[0]))
      return Value::ofInt(asInt(Args[0]));
    return Value::ofInt(floatToInt(std::floor(Args[0].f), "integer"));
  }
  unsupported("builtin " + Name);
}

bool isBuiltinName(const std::string &N) {
  for (const char *B :
       {"range", "abs", "min", "max", "len", "int", "float", "bool"})
    if (N == B)
      return true;
  return false;
}

// ---- the interpreter --------------------------------------------------------

class Interp {
public:
  Interp(const ir::Function &F, const InterpEnv &Env, const InterpOptions &O,
         InterpStats &S)
      : F(F), Env(Env), O(O), S(S) {}

  Value run(const std::vector<Value> &Args);

private:
  const ir::Function &F;
  const InterpEnv &Env;
  const InterpOptions &O;
  InterpStats &S;
  std::unordered_map<const ir::Instr *, Value> Vals;
  const ir::Instr *Cur = nullptr; // for messages

  [[noreturn]] void fail(const std::string &Msg) const {
    std::string Where;
    if (Cur)
      Where = std::string(" at '") + irOpName(Cur->op) + "' (%" +
              std::to_string(Cur->id) + ", line " +
              std::to_string(Cur->loc.line) + ")";
    unsupported(Msg + Where);
  }

  int64_t wrapInt(int64_t X, unsigned Bits, bool Signed);
  Value convert(const Value &V, types::TypeRef T);
  Value get(const ir::Instr *V) const;
  Value operand(const ir::Instr *I, size_t K);
  void set(const ir::Instr *I, Value V);
  Value global(const std::string &Name) const;
  Value getAttr(const Value &Obj, const std::string &Attr) const;
  Value call(const ir::Instr *I);
};

int64_t Interp::wrapInt(int64_t X, unsigned Bits, bool Signed) {
  int64_t Y;
  if (Bits >= 64) {
    if (!Signed && X < 0)
      fail("uint64 values beyond int64 are not modelled");
    return X;
  }
  uint64_t Mask = (uint64_t(1) << Bits) - 1;
  uint64_t U = uint64_t(X) & Mask;
  if (Signed && (U >> (Bits - 1)))
    Y = int64_t(U | ~Mask);
  else
    Y = int64_t(U);
  if (Y != X)
    ++S.intWraps;
  return Y;
}

// Typed mode: `V` as a value of type `T` (NumPy casting: ints wrap, floats
// truncate toward zero when cast to ints, float32 rounds to nearest).
Value Interp::convert(const Value &V, types::TypeRef T) {
  if (!T || V.kind == K::Undef)
    return V;
  using TK = types::Kind;
  switch (T->kind()) {
  case TK::Bool:
    if (!V.isNumeric())
      fail("a " + std::string(kindName(V.kind)) + " typed as bool");
    return Value::ofBool(truth(V));
  case TK::Int: {
    int64_t X;
    if (isIntLike(V))
      X = asInt(V);
    else if (V.kind == K::Float)
      X = floatToInt(std::trunc(V.f), "integer");
    else
      fail("a " + std::string(kindName(V.kind)) + " typed as an integer");
    return Value::ofInt(wrapInt(X, T->bits(), T->isSigned()));
  }
  case TK::Float: {
    if (!V.isNumeric())
      fail("a " + std::string(kindName(V.kind)) + " typed as a float");
    double D = asDouble(V);
    if (T->bits() == 32)
      return Value::ofFloat(double(float(D)));
    if (T->bits() != 64)
      fail("float" + std::to_string(T->bits()) + " is not modelled");
    return Value::ofFloat(D);
  }
  case TK::Tuple: {
    if (V.kind != K::Tuple || V.elems.size() != T->elems().size())
      fail("a " + std::string(kindName(V.kind)) + " typed as a tuple of " +
           std::to_string(T->elems().size()));
    std::vector<Value> E;
    for (size_t I = 0; I < V.elems.size(); ++I)
      E.push_back(convert(V.elems[I], T->elems()[I]));
    return Value::tuple(std::move(E));
  }
  case TK::None:
    if (V.kind != K::None)
      fail("a " + std::string(kindName(V.kind)) + " typed as None");
    return V;
  case TK::Complex:
    fail("complex values are not modelled");
  case TK::Array:
    fail("arrays are not modelled");
  default:
    return V; // compile-time-only types: ranges, modules, intrinsics, ...
  }
}

Value Interp::get(const ir::Instr *V) const {
  auto It = Vals.find(V);
  if (It == Vals.end())
    fail("operand %" + std::to_string(V->id) + " (" + irOpName(V->op) +
         ") has no value on this path");
  return It->second;
}

Value Interp::operand(const ir::Instr *I, size_t K) {
  if (K >= I->operands.size())
    fail("missing operand " + std::to_string(K));
  Value V = get(I->operands[K]);
  if (V.kind == K::Undef)
    raise("UnboundLocalError", "local variable '" + I->operands[K]->str +
                                   "' referenced before assignment");
  if (O.typed && K < I->argTypes.size())
    V = convert(V, I->argTypes[K]);
  return V;
}

void Interp::set(const ir::Instr *I, Value V) {
  if (O.typed)
    V = convert(V, I->type);
  Vals[I] = std::move(V);
}

Value Interp::global(const std::string &Name) const {
  auto G = Env.globals.find(Name);
  if (G != Env.globals.end())
    return G->second;
  Value V;
  V.name = Name;
  if (Env.functions.count(Name)) {
    V.kind = K::Host;
    return V;
  }
  if (isBuiltinName(Name)) {
    V.kind = K::Builtin;
    return V;
  }
  if (Name == "math") {
    V.kind = K::Module;
    return V;
  }
  fail("unknown global '" + Name + "'");
}

Value Interp::getAttr(const Value &Obj, const std::string &Attr) const {
  if (Obj.kind == K::Module && Obj.name == "math" &&
      (Attr == "sqrt" || Attr == "floor")) {
    Value V;
    V.kind = K::Builtin;
    V.name = "math." + Attr;
    return V;
  }
  fail("attribute '" + Attr + "' of " + repr(Obj));
}

Value Interp::call(const ir::Instr *I) {
  Value Callee = operand(I, 0);
  std::vector<Value> Args;
  for (size_t K = 1; K < I->operands.size(); ++K)
    Args.push_back(operand(I, K));
  if (I->kwnames.size() > Args.size())
    fail("more keyword names than arguments");
  if (Callee.kind == K::Builtin)
    return callBuiltin(Callee.name, Args, I->kwnames, O.typed);
  if (Callee.kind == K::Host)
    return Env.functions.at(Callee.name)(Args, I->kwnames);
  fail("calling a " + std::string(kindName(Callee.kind)));
}

Value Interp::run(const std::vector<Value> &Args) {
  if (Args.size() != F.params.size())
    fail(F.qualname + " takes " + std::to_string(F.params.size()) +
         " arguments, got " + std::to_string(Args.size()));
  if (F.blocks.empty())
    fail("function without blocks");
  const ir::Block *B = F.blocks[0], *Pred = nullptr;
  while (true) {
    // Phis read their operands on the edge Pred -> B, all at once.
    size_t K = 0;
    std::vector<std::pair<const ir::Instr *, Value>> PhiVals;
    for (; K < B->instrs.size() && B->instrs[K]->op == ir::Op::Phi; ++K) {
      const ir::Instr *P = B->instrs[K];
      Cur = P;
      size_t Edge = P->incoming.size();
      for (size_t E = 0; E < P->incoming.size(); ++E)
        if (P->incoming[E] == Pred)
          Edge = E;
      if (Edge == P->incoming.size() || Edge >= P->operands.size())
        fail("phi has no value for the edge taken");
      Value V = get(P->operands[Edge]);
      if (O.typed && Edge < P->argTypes.size())
        V = convert(V, P->argTypes[Edge]);
      PhiVals.push_back({P, std::move(V)});
    }
    for (auto &[P, V] : PhiVals)
      set(P, std::move(V));
    const ir::Block *Next = nullptr;
    for (; K < B->instrs.size() && !Next; ++K) {
      const ir::Instr *I = B->instrs[K];
      Cur = I;
      if (++S.steps > O.maxSteps)
        fail("step limit reached");
      switch (I->op) {
      case ir::Op::Arg:
        if (I->index < 0 || size_t(I->index) >= Args.size())
          fail("argument index out of range");
        set(I, Args[I->index]);
        break;
      case ir::Op::Const:
        set(I, fromConst(I->cval));
        break;
      case ir::Op::Global:
        set(I, global(I->str));
        break;
      case ir::Op::Deref: {
        auto D = Env.derefs.find(I->str);
        if (D == Env.derefs.end())
          fail("unknown closure variable '" + I->str + "'");
        set(I, D->second);
        break;
      }
      case ir::Op::Undef: {
        Value U;
        U.kind = K::Undef;
        Vals[I] = U;
        break;
      }
      case ir::Op::Phi:
        fail("phi after a non-phi");
      case ir::Op::CheckBound: // Python's check on reading a local
        set(I, operand(I, 0)); // raises UnboundLocalError for an undef
        break;
      case ir::Op::BinOp:
        set(I, binop(int(I->index), operand(I, 0), operand(I, 1), O.typed));
        break;
      case ir::Op::Unary:
        set(I, unary(ir::UnaryKind(I->index), operand(I, 0), O.typed));
        break;
      case ir::Op::Compare:
        set(I, Value::ofBool(
                   pyCompare(CmpKind(I->index), operand(I, 0), operand(I, 1))));
        break;
      case ir::Op::Is: {
        Value A = operand(I, 0), Bv = operand(I, 1);
        if (A.kind != K::None && Bv.kind != K::None)
          fail("'is' between two non-None values (identity is not modelled)");
        bool Same = A.kind == Bv.kind;
        set(I, Value::ofBool(I->index ? !Same : Same));
        break;
      }
      case ir::Op::Truth:
        set(I, Value::ofBool(truth(operand(I, 0))));
        break;
      case ir::Op::Cast:
        if (!O.typed)
          fail("cast in untyped code");
        set(I, convert(operand(I, 0), I->type));
        break;
      case ir::Op::GetAttr:
        set(I, getAttr(operand(I, 0), I->str));
        break;
      case ir::Op::Call:
        set(I, call(I));
        break;
      case ir::Op::GetItem: {
        Value Obj = operand(I, 0), Idx = operand(I, 1);
        if (Obj.kind != K::Tuple)
          fail("subscript of a " + std::string(kindName(Obj.kind)));
        if (!isIntLike(Idx))
          raise("TypeError", "tuple indices must be integers");
        int64_t N = int64_t(Obj.elems.size()), X = asInt(Idx);
        if (X < 0)
          X += N;
        if (X < 0 || X >= N)
          raise("IndexError", "tuple index out of range");
        set(I, Obj.elems[X]);
        break;
      }
      case ir::Op::BuildTuple: {
        std::vector<Value> E;
        for (size_t J = 0; J < I->operands.size(); ++J)
          E.push_back(operand(I, J));
        set(I, Value::tuple(std::move(E)));
        break;
      }
      case ir::Op::TupleGet: {
        Value T = operand(I, 0);
        if (T.kind != K::Tuple)
          fail("unpacking a " + std::string(kindName(T.kind)));
        if (I->unpackCount && T.elems.size() != I->unpackCount)
          raise("ValueError", "unpacking " + std::to_string(T.elems.size()) +
                                  " values into " +
                                  std::to_string(I->unpackCount));
        if (I->index < 0 || size_t(I->index) >= T.elems.size())
          fail("tupleget index out of range");
        set(I, T.elems[I->index]);
        break;
      }
      case ir::Op::GetIter: {
        Value R = operand(I, 0);
        if (R.kind != K::Range)
          fail("iterating over a " + std::string(kindName(R.kind)));
        Value It;
        It.kind = K::RangeIter;
        It.iter = std::make_shared<RangeIterState>(
            RangeIterState{R.start, R.stop, R.step});
        set(I, It);
        break;
      }
      case ir::Op::ForIter: {
        Value It = operand(I, 0);
        if (It.kind != K::RangeIter || !It.iter)
          fail("foriter over a " + std::string(kindName(It.kind)));
        if (I->succs.size() != 2)
          fail("foriter without two successors");
        RangeIterState &St = *It.iter;
        bool More = St.step > 0 ? St.cur < St.stop : St.cur > St.stop;
        if (More) {
          int64_t V = St.cur;
          St.cur = IntMath{true}.add(St.cur, St.step);
          if ((St.step > 0 && St.cur < V) || (St.step < 0 && St.cur > V))
            St.cur = St.stop; // wrapped: the range is exhausted
          set(I, Value::ofInt(V));
          Next = I->succs[0];
        } else {
          Next = I->succs[1];
        }
        break;
      }
      case ir::Op::Jump:
        if (I->succs.size() != 1)
          fail("jump without one successor");
        Next = I->succs[0];
        break;
      case ir::Op::Branch: {
        Value C = operand(I, 0);
        if (C.kind != K::Bool)
          fail("branch on a " + std::string(kindName(C.kind)) +
               " (expected a bool from truth/compare/is)");
        if (I->succs.size() != 2)
          fail("branch without two successors");
        Next = C.b ? I->succs[0] : I->succs[1];
        break;
      }
      case ir::Op::Return: {
        Value V = operand(I, 0);
        if (O.typed && F.returnType)
          V = convert(V, F.returnType);
        return V;
      }
      case ir::Op::SetItem:
      case ir::Op::BuildSlice:
      case ir::Op::Raise:
      default:
        fail("not modelled");
      }
    }
    if (!Next)
      fail("block bb" + std::to_string(B->id) + " ends without a terminator");
    Pred = B;
    B = Next;
  }
}

} // namespace

Value pyBinOp(int Op, const Value &A, const Value &B) {
  return binop(Op, A, B, /*Wrap=*/false);
}

bool pyCompare(int Cmp, const Value &A, const Value &B) {
  return pyCompare(CmpKind(Cmp), A, B);
}

InterpEnv sampleEnv(const BytecodeFixture &F,
                    std::vector<std::string> *Printed) {
  InterpEnv Env;
  for (const auto &[Name, C] : F.globals)
    Env.globals[Name] = fromConst(C);
  for (const auto &[Name, C] : F.derefs)
    Env.derefs[Name] = fromConst(C);
  // def helper(a, b=1, c=2): return a + b + c
  Env.functions["helper"] = [](const std::vector<Value> &Args,
                               const std::vector<std::string> &Kw) {
    const char *const Names[] = {"a", "b", "c"};
    std::vector<Value> P = {Value(), Value::ofInt(1), Value::ofInt(2)};
    std::vector<bool> Set = {false, false, false};
    size_t NPos = Args.size() - Kw.size();
    if (NPos > 3)
      raise("TypeError", "helper() takes from 1 to 3 positional arguments");
    for (size_t I = 0; I < NPos; ++I) {
      P[I] = Args[I];
      Set[I] = true;
    }
    for (size_t I = 0; I < Kw.size(); ++I) {
      size_t Slot = 3;
      for (size_t J = 0; J < 3; ++J)
        if (Kw[I] == Names[J])
          Slot = J;
      if (Slot == 3 || Set[Slot])
        raise("TypeError", "helper() got a bad keyword argument " + Kw[I]);
      P[Slot] = Args[NPos + I];
      Set[Slot] = true;
    }
    if (!Set[0])
      raise("TypeError", "helper() missing argument 'a'");
    return pyBinOp(int(BinOpKind::Add),
                   pyBinOp(int(BinOpKind::Add), P[0], P[1]), P[2]);
  };
  Env.functions["print"] = [Printed](const std::vector<Value> &Args,
                                     const std::vector<std::string> &Kw) {
    if (!Kw.empty())
      unsupported("print() with keyword arguments");
    std::string Line;
    for (size_t I = 0; I < Args.size(); ++I)
      Line += (I ? " " : "") +
              (Args[I].kind == K::Str ? Args[I].name : repr(Args[I]));
    if (Printed)
      Printed->push_back(Line);
    return Value::none();
  };
  return Env;
}

Value interpret(const ir::Function &F, const std::vector<Value> &Args,
                const InterpEnv &Env, const InterpOptions &O,
                InterpStats *Stats) {
  InterpStats Local;
  Interp I(F, Env, O, Stats ? *Stats : Local);
  return I.run(Args);
}

} // namespace pcj::test
