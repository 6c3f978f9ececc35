// IR construction helpers, CFG maintenance, printer and verifier.
#include "ir/IR.h"

#include "support/Diagnostics.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <map>
#include <set>
#include <sstream>

namespace pcj::ir {

const char *opName(Op O) {
  switch (O) {
#define PCJ_IR_OP(Name, Text, Term)                                            \
  case Op::Name:                                                               \
    return Text;
#include "ir/Opcodes.def"
#undef PCJ_IR_OP
  }
  return "?";
}

bool isTerminator(Op O) {
  switch (O) {
#define PCJ_IR_OP(Name, Text, Term)                                            \
  case Op::Name:                                                               \
    return Term;
#include "ir/Opcodes.def"
#undef PCJ_IR_OP
  }
  return false;
}

const bc::ConstValue *pythonIntValue(const Instr *I) {
  const bc::ConstValue *V = nullptr;
  if (I->op == Op::Const)
    V = &I->cval;
  else if ((I->op == Op::Global || I->op == Op::Deref ||
            I->op == Op::GetAttr) &&
           I->ct.kind == CTValue::Kind::Const &&
           !I->ct.type) // numpy scalars and Enum members are typed
    V = &I->ct.value;
  return V && V->kind == bc::ConstValue::Kind::Int ? V : nullptr;
}

int recordFieldOf(types::TypeRef Rec, const bc::ConstValue &C) {
  if (C.kind == bc::ConstValue::Kind::Str)
    return Rec->fieldIndex(C.text);
  int64_t N = int64_t(Rec->fields().size());
  if (!C.isSmallInt() || C.i < -N || C.i >= N)
    return -1;
  return int(C.i < 0 ? C.i + N : C.i);
}

bool pythonIntFits(const bc::ConstValue &V, types::TypeRef T) {
  if (T->isBool())
    return true;
  return T->isInt() && V.fitsInt(T->bits(), T->isSigned());
}

const char *unarySymbol(UnaryKind K) {
  switch (K) {
  case UnaryKind::Neg:
    return "-";
  case UnaryKind::Pos:
    return "+";
  case UnaryKind::Not:
    return "not";
  case UnaryKind::Invert:
    return "~";
  }
  return "?";
}

// " as Point(x, y)" for a namedtuple instance, else "".
std::string CTValue::namedTupleSuffix() const {
  if (fields.empty())
    return "";
  std::string S = " as " + name + "(";
  for (size_t K = 0; K < fields.size(); ++K)
    S += (K ? ", " : "") + fields[K];
  return S + ")";
}

std::string CTValue::repr() const {
  switch (kind) {
  case Kind::Invalid:
    return "invalid";
  case Kind::Const: {
    std::string S = "const " + value.repr() + (type ? " " + type->str() : "");
    S += namedTupleSuffix();
    return S;
  }
  case Kind::Module:
    return "module " + name;
  case Kind::Intrinsic:
    return "intrinsic " + name;
  case Kind::DType:
    return "dtype " + type->str();
  case Kind::Function: {
    std::string S = "function " + name;
    if (!items.empty()) { // a nested function passed on: its captures
      S += " capturing (";
      for (size_t K = 0; K < items.size(); ++K)
        S += (K ? ", " : "") + items[K].repr();
      S += ")";
    }
    if (value.kind == bc::ConstValue::Kind::Tuple) // ... and its defaults
      S += " defaults " + value.repr();
    return S;
  }
  case Kind::ConstArray: {
    uint64_t H = 1469598103934665603ull; // FNV-1a of the contents
    for (char C : bytes) {
      H ^= (unsigned char)C;
      H *= 1099511628211ull;
    }
    std::string S = "const array " + type->str() + "[";
    for (size_t K = 0; K < shape.size(); ++K)
      S += (K ? ", " : "") + std::to_string(shape[K]);
    char Hex[17];
    snprintf(Hex, sizeof Hex, "%016llx", (unsigned long long)H);
    return S + "] " + Hex;
  }
  case Kind::DeviceArray: {
    std::string S = "device array " + type->str() + "[";
    for (size_t K = 0; K < shape.size(); ++K)
      S += (K ? ", " : "") + std::to_string(shape[K]);
    S += "] strides (";
    for (size_t K = 0; K < strides.size(); ++K)
      S += (K ? ", " : "") + std::to_string(strides[K]);
    char Hex[19];
    snprintf(Hex, sizeof Hex, "0x%llx", (unsigned long long)address);
    return S + ") at " + Hex;
  }
  case Kind::TupleClass: {
    std::string S = "namedtuple class " + name + "(";
    for (size_t K = 0; K < fields.size(); ++K)
      S += (K ? ", " : "") + fields[K];
    return S + ")";
  }
  case Kind::ExceptionClass:
    return "exception class " + name;
  case Kind::Tuple: {
    std::string S = "tuple (";
    for (size_t K = 0; K < items.size(); ++K)
      S += (K ? ", " : "") + items[K].repr();
    S += ")";
    S += namedTupleSuffix();
    return S;
  }
  case Kind::Unsupported:
    return "unsupported " + name;
  }
  return "?";
}

const std::vector<Block *> &Block::succs() const {
  static const std::vector<Block *> None;
  Instr *T = terminator();
  return T ? T->succs : None;
}

Block *Function::newBlock() {
  OwnedBlocks.push_back(std::make_unique<Block>());
  Block *B = OwnedBlocks.back().get();
  B->id = NextBlockId++;
  B->parent = this;
  blocks.push_back(B);
  return B;
}

Instr *Function::create(Op O, SourceLoc Loc, std::vector<Instr *> Operands) {
  OwnedInstrs.push_back(std::make_unique<Instr>());
  Instr *I = OwnedInstrs.back().get();
  I->op = O;
  I->id = NextInstrId++;
  I->loc = std::move(Loc);
  I->operands = std::move(Operands);
  return I;
}

Instr *Function::insert(Block *B, Instr *Before, Op O, SourceLoc Loc,
                        std::vector<Instr *> Operands) {
  Instr *I = create(O, std::move(Loc), std::move(Operands));
  I->parent = B;
  auto &V = B->instrs;
  auto Pos = V.end();
  if (Before)
    Pos = std::find(V.begin(), V.end(), Before);
  else if (B->terminator())
    Pos = V.end() - 1;
  V.insert(Pos, I);
  return I;
}

void Function::replaceAllUses(Instr *Old, Instr *New) {
  for (Block *B : blocks)
    for (Instr *I : B->instrs)
      for (Instr *&Op : I->operands)
        if (Op == Old)
          Op = New;
  for (LocalBinding &L : bindings)
    if (L.value == Old)
      L.value = New;
}

void Function::recomputeCFG() {
  if (blocks.empty())
    return;
  // Reverse post-order from the entry (iterative DFS, successors in order).
  std::vector<Block *> Post;
  std::set<Block *> Seen;
  std::vector<std::pair<Block *, size_t>> Stack{{blocks[0], 0}};
  Seen.insert(blocks[0]);
  while (!Stack.empty()) {
    auto &[B, Next] = Stack.back();
    const auto &S = B->succs();
    if (Next < S.size()) {
      Block *Succ = S[Next++];
      if (Seen.insert(Succ).second)
        Stack.push_back({Succ, 0});
      continue;
    }
    Post.push_back(B);
    Stack.pop_back();
  }
  std::vector<Block *> RPO(Post.rbegin(), Post.rend());
  for (Block *B : RPO)
    B->preds.clear();
  for (Block *B : RPO)
    for (Block *S : B->succs())
      if (std::find(S->preds.begin(), S->preds.end(), B) == S->preds.end())
        S->preds.push_back(B);
  // Phis lose incoming edges that are gone: from blocks that became
  // unreachable, or whose branch became a jump elsewhere.
  for (Block *B : RPO)
    for (Instr *I : B->instrs) {
      if (I->op != Op::Phi)
        continue;
      for (size_t K = 0; K < I->incoming.size();) {
        if (std::find(B->preds.begin(), B->preds.end(), I->incoming[K]) ==
            B->preds.end()) {
          I->incoming.erase(I->incoming.begin() + K);
          I->operands.erase(I->operands.begin() + K);
        } else {
          ++K;
        }
      }
    }
  blocks = std::move(RPO);
}

// ---- printer
// -----------------------------------------------------------------

namespace {

struct Printer {
  const Function &F;
  bool Typed;
  std::map<const Instr *, unsigned> Num;
  std::map<const Block *, unsigned> BNum;

  Printer(const Function &F, bool Typed) : F(F), Typed(Typed) {
    unsigned N = 0, BN = 0;
    for (const Block *B : F.blocks) {
      BNum[B] = BN++;
      for (const Instr *I : B->instrs)
        Num[I] = N++;
    }
  }

  std::string val(const Instr *I) {
    auto It = Num.find(I);
    return It == Num.end() ? "%<dead>" : "%" + std::to_string(It->second);
  }
  std::string blk(const Block *B) {
    auto It = BNum.find(B);
    return It == BNum.end() ? "bb<dead>" : "bb" + std::to_string(It->second);
  }

  std::string body(const Instr *I) {
    std::string S = opName(I->op);
    auto Ops = [&](size_t From = 0) {
      std::string R;
      for (size_t K = From; K < I->operands.size(); ++K)
        R += (K > From ? ", " : "") + val(I->operands[K]);
      return R;
    };
    switch (I->op) {
    case Op::Arg:
      return S + " " + std::to_string(I->index) + " \"" + I->str + "\"";
    case Op::Const:
      return S + " " + I->cval.repr();
    case Op::Global:
    case Op::Deref:
      return S + " \"" + I->str + "\"";
    case Op::Phi: {
      std::string R = S;
      for (size_t K = 0; K < I->operands.size(); ++K)
        R += std::string(K ? ", " : " ") + "[" + blk(I->incoming[K]) + ": " +
             val(I->operands[K]) + "]";
      return R;
    }
    case Op::BinOp:
      return S + " " + bc::binOpSymbol(bc::BinOpKind(I->index)) + " " + Ops();
    case Op::Unary:
      return S + " " + unarySymbol(UnaryKind(I->index)) + " " + Ops();
    case Op::Compare:
      return S + " " + bc::cmpSymbol(bc::CmpKind(I->index)) + " " + Ops();
    case Op::Is:
      return (I->index ? "isnot " : "is ") + Ops();
    case Op::GetAttr:
      return S + " " + Ops() + ", \"" + I->str + "\"";
    case Op::SetAttr:
      return S + " " + val(I->operands[0]) + ", \"" + I->str + "\", " +
             val(I->operands[1]);
    case Op::Call: {
      std::string R = S + " " + val(I->operands[0]) + "(" + Ops(1) + ")";
      if (!I->kwnames.empty()) {
        R += " kw=[";
        for (size_t K = 0; K < I->kwnames.size(); ++K)
          R += (K ? ", " : "") + I->kwnames[K];
        R += "]";
      }
      if (I->starArgs) // the last operand is spread: f(..., *t)
        R += " star";
      return R;
    }
    case Op::TupleGet:
      return S + " " + Ops() + ", " + std::to_string(I->index);
    case Op::CheckBound:
      return S + " " + Ops() + " \"" + I->str + "\"";
    case Op::MakeFunction:
      return S + " \"" + I->str + "\"" +
             (I->operands.empty() ? "" : " " + Ops()) +
             (I->cval.kind == bc::ConstValue::Kind::Tuple
                  ? " defaults=" + I->cval.repr()
                  : "");
    case Op::Jump:
      return S + " " + blk(I->succs[0]);
    case Op::Branch:
    case Op::ForIter:
      return S + " " + Ops() + ", " + blk(I->succs[0]) + ", " +
             blk(I->succs[1]);
    case Op::Raise:
      return S + " " + I->str + " \"" + I->cval.text + "\"";
    default:
      return I->operands.empty() ? S : S + " " + Ops();
    }
  }

  std::string run() {
    std::ostringstream OS;
    OS << "func " << F.qualname << "(";
    for (size_t K = 0; K < F.params.size(); ++K) {
      OS << (K ? ", " : "") << F.params[K].name;
      if (Typed && F.params[K].type)
        OS << ": " << F.params[K].type->str();
    }
    OS << ")";
    if (Typed && F.returnType)
      OS << " -> " << F.returnType->str();
    OS << " {\n";
    for (const Block *B : F.blocks) {
      OS << blk(B) << ":";
      if (!B->preds.empty()) {
        OS << "  ; preds";
        for (const Block *P : B->preds)
          OS << " " << blk(P);
      }
      OS << "\n";
      for (const Instr *I : B->instrs) {
        std::string Line = "  ";
        bool HasValue = !I->isTerminator() || I->op == Op::ForIter;
        if (I->op == Op::SetItem || I->op == Op::SetAttr || I->op == Op::Return)
          HasValue = false;
        if (HasValue)
          Line += val(I) + " = ";
        Line += body(I);
        if (Typed && I->type) {
          if (Line.size() < 44)
            Line.resize(44, ' ');
          Line += " : " + I->type->str() + (I->weak ? " weak" : "");
        }
        if (Typed && I->intrinsic)
          Line += " [" + std::string(stdlib::intrinsicKey(*I->intrinsic)) + "]";
        if (I->heapSlot >= 0)
          Line += " heap" + std::to_string(I->heapSlot) +
                  (I->heapKeep ? " keep" : "") +
                  (F.heapSlotEscapes.at(I->heapSlot) ? " escapes" : "");
        if (I->loc.known())
          Line += "  ; L" + std::to_string(I->loc.line);
        OS << Line << "\n";
      }
    }
    OS << "}\n";
    return OS.str();
  }
};

} // namespace

std::string Function::print(bool WithTypes) const {
  return Printer(*this, WithTypes).run();
}

void verify(const Function &F, bool Typed) {
  std::set<const Instr *> Defined;
  std::set<const Block *> Blocks(F.blocks.begin(), F.blocks.end());
  for (const Block *B : F.blocks)
    for (const Instr *I : B->instrs)
      Defined.insert(I);
  for (const Block *B : F.blocks) {
    PCJ_ASSERT(B->terminator(), "block bb" + std::to_string(B->id) +
                                    " has no terminator in " + F.qualname);
    bool SeenNonPhi = false;
    for (const Instr *I : B->instrs) {
      PCJ_ASSERT(I->parent == B, "instruction parent mismatch");
      PCJ_ASSERT(!I->isTerminator() || I == B->instrs.back(),
                 "terminator in the middle of a block");
      if (I->op == Op::Phi) {
        PCJ_ASSERT(!SeenNonPhi, "phi after a non-phi");
        PCJ_ASSERT(I->incoming.size() == I->operands.size(), "phi arity");
        PCJ_ASSERT(I->incoming.size() == B->preds.size(),
                   "phi has " + std::to_string(I->incoming.size()) +
                       " incoming values, block has " +
                       std::to_string(B->preds.size()) + " preds");
      } else {
        SeenNonPhi = true;
      }
      for (const Instr *Op : I->operands)
        PCJ_ASSERT(Op && Defined.count(Op),
                   std::string("operand of '") + opName(I->op) +
                       "' is not defined in the function");
      for (const Block *S : I->succs)
        PCJ_ASSERT(Blocks.count(S), "successor block not in function");
      if (Typed && I->op != Op::Jump && I->op != Op::Branch &&
          I->op != Op::Return && I->op != Op::SetItem && I->op != Op::Raise &&
          I->op != Op::SetAttr && I->op != Op::Undef)
        PCJ_ASSERT(I->type,
                   std::string("untyped value after type inference: ") +
                       opName(I->op));
    }
  }
}

} // namespace pcj::ir
