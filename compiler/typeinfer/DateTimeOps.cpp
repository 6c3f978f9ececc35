// Typing of NumPy's datetime64/timedelta64 operators and of the stores and
// comparisons of datetime and fixed-width string values (Inferrer rules;
// lowered by lower/DateTime.cpp).  NumPy's rules:
//   datetime64[D] - datetime64[D]   -> timedelta64[D]
//   datetime64[D] + timedelta64[h]  -> datetime64[h]   (the finer unit)
//   timedelta64[s] * int            -> timedelta64[s]
//   timedelta64[s] // timedelta64[s] -> int64, / -> float64, % -> timedelta
// Operands are cast to the common unit (argTypes); units NumPy cannot
// convert linearly (years or months against days) are a TypingError.
#include "typeinfer/Inferrer.h"
#include "types/CharSeq.h"
#include "types/DateTime.h"

namespace pcj::typeinfer::detail {

namespace {
// The same kind as T in unit U.
TypeRef inUnit(TypeRef T, const std::string &U) {
  return isDatetime(T) ? datetimeTy(U) : timedeltaTy(U);
}
std::string unitText(TypeRef T) {
  return T->name().empty() ? "generic" : "[" + T->name() + "]";
}
// Characters of a str (code points) or bytes constant.
uint64_t constLength(const bc::ConstValue &C) {
  if (C.kind == bc::ConstValue::Kind::Bytes)
    return C.text.size();
  uint64_t N = 0;
  for (unsigned char Ch : C.text)
    N += (Ch & 0xc0) != 0x80;
  return N;
}
} // namespace

bool Inferrer::inferDateTimeBinOp(Instr *I, InferredType &Out) {
  Instr *A = I->operands[0], *B = I->operands[1];
  TypeRef TA = A->type, TB = B->type;
  auto K = bc::BinOpKind(I->index);
  std::string Sym = bc::binOpSymbol(K);
  auto Refuse = [&](const std::string &Hint = {}) {
    fail(I,
         "unsupported operand types for " + Sym + ": " + origin(A) + " and " +
             origin(B),
         Hint.empty() ? "NumPy's datetime arithmetic: datetime - datetime, "
                        "datetime +/- timedelta, timedelta +/-/%/// "
                        "timedelta, timedelta *, //, / an integer"
                      : Hint);
  };
  // timedelta with an integer: td * n, n * td, td // n, td / n.
  TypeRef Td = isTimedelta(TA) ? TA : isTimedelta(TB) ? TB : nullptr;
  TypeRef Other = Td == TA ? TB : TA;
  if (Td && Other->isInt()) {
    bool TdFirst = Td == TA;
    if (!(K == bc::BinOpKind::Mul ||
          (TdFirst &&
           (K == bc::BinOpKind::FloorDiv || K == bc::BinOpKind::TrueDiv))))
      Refuse();
    Out = {Td, false};
    I->argTypes = TdFirst ? std::vector<TypeRef>{Td, int64Ty()}
                          : std::vector<TypeRef>{int64Ty(), Td};
    return true;
  }
  if (!isDateLike(TA) || !isDateLike(TB))
    Refuse();
  std::string U;
  if (!commonTimeUnit(TA->name(), TB->name(), U))
    fail(I,
         "cannot combine the time units " + unitText(TA) + " and " +
             unitText(TB) + " in " + origin(A) + " " + Sym + " " + origin(B),
         "NumPy has no linear conversion between years/months and days or "
         "finer units; convert the values on the host");
  bool DA = isDatetime(TA), DB = isDatetime(TB);
  TypeRef R = nullptr;
  switch (K) {
  case bc::BinOpKind::Add: // td + td, dt + td, td + dt
    if (!(DA && DB))
      R = DA || DB ? datetimeTy(U) : timedeltaTy(U);
    break;
  case bc::BinOpKind::Sub: // dt - dt, dt - td, td - td
    if (DA || !DB)
      R = DA && !DB ? datetimeTy(U) : timedeltaTy(U);
    break;
  case bc::BinOpKind::FloorDiv:
    R = !DA && !DB ? int64Ty() : nullptr;
    break;
  case bc::BinOpKind::TrueDiv:
    R = !DA && !DB ? float64Ty() : nullptr;
    break;
  case bc::BinOpKind::Mod:
    R = !DA && !DB ? timedeltaTy(U) : nullptr;
    break;
  default:
    break;
  }
  if (!R)
    Refuse();
  Out = {R, false};
  I->argTypes = {inUnit(TA, U), inUnit(TB, U)};
  return true;
}

// Datetimes with datetimes and timedeltas with timedeltas (in their common
// unit); strings of one kind with == and != (a constant of that kind too).
bool Inferrer::inferOpaqueCompare(Instr *I, InferredType &Out) {
  Instr *A = I->operands[0], *B = I->operands[1];
  TypeRef TA = A->type, TB = B->type;
  auto K = bc::CmpKind(I->index);
  auto Refuse = [&](const std::string &Hint) {
    fail(I,
         "cannot compare " + origin(A) + " and " + origin(B) + " with " +
             bc::cmpSymbol(K),
         Hint);
  };
  Out = {boolTy(), false};
  if (isDateLike(TA) || isDateLike(TB)) {
    std::string U;
    if (TA->kind() != TB->kind())
      Refuse("datetimes compare with datetimes, timedeltas with timedeltas");
    if (!commonTimeUnit(TA->name(), TB->name(), U))
      Refuse("the units " + unitText(TA) + " and " + unitText(TB) +
             " have no linear conversion");
    I->argTypes = {inUnit(TA, U), inUnit(TB, U)};
    return true;
  }
  if (K != bc::CmpKind::Eq && K != bc::CmpKind::Ne)
    Refuse("fixed-width strings compare with == and != in kernels");
  // A constant on either side becomes a CharSeq of its own length.
  auto Side = [&](Instr *X, TypeRef Want) -> TypeRef {
    if (isCharSeq(X->type))
      return X->type->bits() == Want->bits() ? X->type : nullptr;
    bc::ConstValue C;
    if (X->type->kind() != Kind::Str ||
        !stdlib::ArgInfo{X->type, X->weak, X}.constant(C) ||
        (X->type == bytesTy()) != (Want->bits() == 8))
      return nullptr;
    return charSeqTy(Want->bits(), std::max<uint64_t>(1, constLength(C)));
  };
  TypeRef Seq = isCharSeq(TA) ? TA : TB;
  TypeRef SA = Side(A, Seq), SB = Side(B, Seq);
  if (!SA || !SB)
    Refuse("a bytes ('S') value compares with bytes, a str ('U') value with "
           "str");
  I->argTypes = {SA, SB};
  return true;
}

bool Inferrer::storeOpaque(const Instr *I, TypeRef Dest, const Instr *Val,
                           const std::string &Where) {
  TypeRef VT = Val->type;
  bool DestOpaque = isDateLike(Dest) || isCharSeq(Dest);
  if (!DestOpaque && !isDateLike(VT) && !isCharSeq(VT))
    return false;
  auto Refuse = [&](const std::string &Hint) {
    fail(I, "cannot store " + origin(Val) + " into " + Where, Hint);
  };
  if (!DestOpaque)
    Refuse(isDateLike(VT) ? "a.view(np.int64) on the host gives the counts"
                          : "");
  if (isDateLike(Dest)) {
    std::string U;
    if (VT->kind() != Dest->kind() ||
        !commonTimeUnit(VT->name(), Dest->name(), U) || U != Dest->name())
      Refuse("store a " +
             std::string(isDatetime(Dest) ? "datetime64" : "timedelta64") +
             " of the same or a coarser unit");
    return true;
  }
  if (isCharSeq(VT)) {
    if (VT->bits() != Dest->bits())
      Refuse("copy 'S' into 'S' and 'U' into 'U'");
    return true;
  }
  bc::ConstValue C;
  if (VT->kind() != Kind::Str ||
      !stdlib::ArgInfo{VT, Val->weak, Val}.constant(C) ||
      (VT == bytesTy()) != (Dest->bits() == 8))
    Refuse(Dest->bits() == 8 ? "an 'S' element takes a bytes constant (b\"..\")"
                             : "a 'U' element takes a str constant");
  return true;
}

} // namespace pcj::typeinfer::detail
