// literal_unroll loops: one copy of the body per tuple element (see
// LiteralUnroll.h for the before/after).
#include "unroll/LiteralUnroll.h"

#include "support/Diagnostics.h"

#include <string>

namespace pcj::unroll {

using bc::Op;

namespace {

constexpr size_t kMaxUnrolledInstrs = 1u << 20;
const char *const kKey = "literal_unroll";

// Stack effect (pops, pushes) of the instructions an argument expression is
// made of; false for anything else (the expression is then not recognized).
bool stackEffect(const bc::Instr &I, int &Pops, int &Pushes) {
  Pops = 0;
  Pushes = 1;
  switch (I.op) {
  case Op::PUSH_NULL:
  case Op::LOAD_CONST:
  case Op::LOAD_FAST:
  case Op::LOAD_DEREF:
  case Op::LOAD_GLOBAL:
    return true;
  case Op::LOAD_ATTR:
  case Op::UNARY_NEGATIVE:
  case Op::UNARY_POSITIVE:
  case Op::UNARY_NOT:
  case Op::UNARY_INVERT:
  case Op::TO_BOOL:
    Pops = 1;
    return true;
  case Op::LOAD_METHOD:
    Pops = 1;
    Pushes = 2;
    return true;
  case Op::BINARY_OP:
  case Op::COMPARE_OP:
  case Op::IS_OP:
  case Op::CONTAINS_OP:
  case Op::BINARY_SUBSCR:
    Pops = 2;
    return true;
  case Op::BUILD_TUPLE:
  case Op::BUILD_SLICE:
    Pops = I.arg;
    return true;
  case Op::CALL:
    Pops = I.arg + ((I.flags & bc::flag::CallPair) ? 2 : 1);
    return true;
  default:
    return false;
  }
}

// Index of the first instruction of the expression that ends at `End`
// (inclusive), or -1.
int expressionStart(const bc::DecodedCode &Code, int End) {
  int Depth = 0;
  for (int J = End; J >= 0; --J) {
    int Pops, Pushes;
    if (!stackEffect(Code.instrs[J], Pops, Pushes))
      return -1;
    Depth += Pushes - Pops;
    if (Depth >= 1)
      return Depth == 1 ? J : -1;
  }
  return -1;
}

bool isLiteralUnroll(const ir::CTValue &V) {
  return V.kind == ir::CTValue::Kind::Intrinsic && V.name == kKey;
}

class Unroller {
public:
  Unroller(bc::DecodedCode &Code, const std::vector<types::TypeRef> &Args,
           ir::Resolver &R)
      : Code(Code), Args(Args), R(R) {}

  // Unrolls the first literal_unroll loop; false if there is none.
  bool unrollOne() {
    for (int G = 2; G < (int)Code.instrs.size(); ++G) {
      const bc::Instr &I = Code.instrs[G];
      const bc::Instr &Call = Code.instrs[G - 1];
      if (I.op != Op::GET_ITER || Call.op != Op::CALL || Call.arg != 1 ||
          Call.aux >= 0 || !callsLiteralUnroll(G - 1))
        continue;
      if (G + 1 >= (int)Code.instrs.size() ||
          Code.instrs[G + 1].op != Op::FOR_ITER)
        fail(I, "literal_unroll() is only supported as the iterable of a "
                "for loop");
      unroll(G, tupleLength(G - 2, I));
      return true;
    }
    return false;
  }

private:
  bc::DecodedCode &Code;
  const std::vector<types::TypeRef> &Args;
  ir::Resolver &R;

  [[noreturn]] void fail(const bc::Instr &At, const std::string &Msg) const {
    throw CompileError(
        ErrorKind::Typing, Code.loc(At), Msg,
        "literal_unroll needs a tuple whose length is known when the kernel "
        "compiles: a tuple argument, a global tuple, or a tuple built in the "
        "kernel (literal_unroll((a, b, c)))");
  }

  // Whether the CALL at `CallIdx` (one argument) calls literal_unroll.
  bool callsLiteralUnroll(int CallIdx) {
    int ArgStart = expressionStart(Code, CallIdx - 1);
    int C = ArgStart - 1;
    if (C >= 0 && Code.instrs[C].op == Op::PUSH_NULL)
      --C;
    if (C < 0)
      return false;
    const bc::Instr &Callee = Code.instrs[C];
    switch (Callee.op) {
    case Op::LOAD_GLOBAL:
      return isLiteralUnroll(R.global(Code.names[Callee.arg]));
    case Op::LOAD_DEREF:
      return isLiteralUnroll(R.deref(Code.derefNames[Callee.arg]));
    case Op::LOAD_ATTR:
    case Op::LOAD_METHOD: {
      if (Code.names[Callee.arg] != kKey || C == 0 ||
          Code.instrs[C - 1].op != Op::LOAD_GLOBAL)
        return false;
      ir::CTValue M = R.global(Code.names[Code.instrs[C - 1].arg]);
      return M.kind == ir::CTValue::Kind::Module &&
             isLiteralUnroll(R.attribute(M, kKey));
    }
    default:
      return false;
    }
  }

  static int constTupleLength(const bc::ConstValue &V) {
    return V.kind == bc::ConstValue::Kind::Tuple ? (int)V.elems.size() : -1;
  }

  // The length of the tuple the instruction at `End` pushes.
  int tupleLength(int End, const bc::Instr &Loop) {
    const bc::Instr &I = Code.instrs[End];
    switch (I.op) {
    case Op::BUILD_TUPLE:
      return I.arg;
    case Op::LOAD_CONST:
      if (int N = constTupleLength(Code.consts[I.arg]); N >= 0)
        return N;
      fail(Loop, "literal_unroll() takes a tuple, not a constant " +
                     Code.consts[I.arg].repr());
    case Op::LOAD_GLOBAL:
    case Op::LOAD_DEREF: {
      const std::string &Name =
          I.op == Op::LOAD_GLOBAL ? Code.names[I.arg] : Code.derefNames[I.arg];
      ir::CTValue V = I.op == Op::LOAD_GLOBAL ? R.global(Name) : R.deref(Name);
      if (V.kind == ir::CTValue::Kind::Const)
        if (int N = constTupleLength(V.value); N >= 0)
          return N;
      if (V.kind == ir::CTValue::Kind::Tuple) // holding arrays
        return (int)V.items.size();
      fail(Loop, "literal_unroll() takes a tuple, but '" + Name + "' is " +
                     (V.kind == ir::CTValue::Kind::Unsupported
                          ? V.name + ", which kernels cannot use"
                          : V.repr()));
    }
    case Op::LOAD_FAST:
      return localTupleLength(I.arg, Loop);
    default:
      fail(Loop, "literal_unroll() cannot tell the length of this tuple "
                 "before typing");
    }
  }

  int localTupleLength(int Var, const bc::Instr &Loop) {
    int Store = -1, Stores = 0;
    for (int J = 0; J < (int)Code.instrs.size(); ++J) {
      const bc::Instr &S = Code.instrs[J];
      if ((S.op == Op::STORE_FAST || S.op == Op::DELETE_FAST) && S.arg == Var) {
        Store = J;
        ++Stores;
      }
    }
    const std::string &Name = Code.varnames[Var];
    // An argument assigned anywhere (even after the loop) may hold either
    // tuple at the loop: its length is not known before typing.
    if (Stores > 0 && Var < (int)Args.size())
      fail(Loop, "literal_unroll() cannot tell the length of '" + Name +
                     "' before typing (an argument that is also assigned "
                     "in the function)");
    if (Stores == 0 && Var < (int)Args.size()) {
      types::TypeRef T = Args[Var];
      if (T && T->isTuple())
        return (int)T->elems().size();
      fail(Loop, "literal_unroll() takes a tuple, but the argument '" + Name +
                     "' is " + (T ? T->str() : std::string("untyped")));
    }
    // A local assigned once: whenever it is bound, it holds that tuple.
    if (Stores == 1 && Store > 0 && Code.instrs[Store].op == Op::STORE_FAST) {
      const bc::Instr &V = Code.instrs[Store - 1];
      if (V.op == Op::BUILD_TUPLE)
        return V.arg;
      if (V.op == Op::LOAD_CONST && constTupleLength(Code.consts[V.arg]) >= 0)
        return constTupleLength(Code.consts[V.arg]);
    }
    fail(Loop, "literal_unroll() cannot tell the length of '" + Name +
                   "' before typing (it is not a tuple argument, or is "
                   "assigned more than once)");
  }

  int32_t intConst(int64_t K) {
    for (size_t I = 0; I < Code.consts.size(); ++I) {
      const bc::ConstValue &C = Code.consts[I];
      if (C.kind == bc::ConstValue::Kind::Int && C.isSmallInt() && C.i == K)
        return (int32_t)I;
    }
    Code.consts.push_back(bc::ConstValue::ofInt(K));
    return (int32_t)Code.consts.size() - 1;
  }

  // Replaces GET_ITER at G and the loop of the FOR_ITER after it by N
  // copies of the body.
  void unroll(int G, int N) {
    const int F = G + 1;
    const bc::Instr Loop = Code.instrs[F];
    const int Exit = Loop.target;
    int Last = -1; // the last back edge to the FOR_ITER
    for (int J = F + 1; J < (int)Code.instrs.size(); ++J)
      if (Code.instrs[J].target == F)
        Last = J;
    if (Last < 0)
      fail(Loop, "this literal_unroll loop never repeats; write its body "
                 "without a loop");
    for (int J = 0; J < (int)Code.instrs.size(); ++J) {
      int T = Code.instrs[J].target;
      bool Inside = J > F && J <= Last;
      if (T > F && T <= Last && !Inside)
        fail(Loop, "a jump into the body of a literal_unroll loop");
    }
    const int Body = Last - F;    // instructions F+1 .. Last
    const int CopyLen = 3 + Body; // element fetch + body
    const int EndStart = G + N * CopyLen;
    if ((size_t)EndStart + Code.instrs.size() > kMaxUnrolledInstrs)
      fail(Loop, "literal_unroll() of " + std::to_string(N) +
                     " elements makes this kernel too large");
    auto Outside = [&](int T) {
      if (T < G)
        return T;
      return EndStart + 2 + (T - Last - 1);
    };
    auto InCopy = [&](int C, int T) {
      if (T == F)
        return C + 1 < N ? G + (C + 1) * CopyLen : EndStart;
      if (T > F && T <= Last)
        return G + C * CopyLen + 3 + (T - F - 1);
      return Outside(T);
    };

    std::vector<bc::Instr> Out(Code.instrs.begin(), Code.instrs.begin() + G);
    for (bc::Instr &X : Out)
      if (X.target >= 0)
        X.target = Outside(X.target);
    auto Fetch = [&](Op O, int32_t Arg) {
      bc::Instr X = Loop;
      X.op = O;
      X.arg = Arg;
      X.target = -1;
      X.aux = -1;
      X.flags = 0;
      Out.push_back(X);
    };
    for (int C = 0; C < N; ++C) {
      Fetch(Op::COPY, 1);
      Fetch(Op::LOAD_CONST, intConst(C));
      Fetch(Op::BINARY_SUBSCR, 0);
      for (int J = F + 1; J <= Last; ++J) {
        bc::Instr X = Code.instrs[J];
        if (X.target >= 0)
          X.target = InCopy(C, X.target);
        Out.push_back(X);
      }
    }
    Fetch(Op::POP_TOP, 0); // exhausted: the tuple goes, as FOR_ITER's iterator
    Fetch(Op::JUMP, 0);
    Out.back().target = Outside(Exit);
    for (int J = Last + 1; J < (int)Code.instrs.size(); ++J) {
      bc::Instr X = Code.instrs[J];
      if (X.target >= 0)
        X.target = Outside(X.target);
      Out.push_back(X);
    }
    Code.instrs = std::move(Out);
  }
};

} // namespace

bool unrollLiteralLoops(bc::DecodedCode &Code,
                        const std::vector<types::TypeRef> &Args,
                        ir::Resolver &R) {
  Unroller U(Code, Args, R);
  bool Changed = false;
  while (U.unrollOne())
    Changed = true;
  return Changed;
}

} // namespace pcj::unroll
