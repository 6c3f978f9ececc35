// Symbolic stack simulation and phi placement (see SSABuilder.h).
#include "ssa/SSABuilder.h"

#include "ssa/NestedFunctions.h"
#include "ssa/SimplifyPhis.h"

#include "support/Diagnostics.h"

#include <algorithm>
#include <array>
#include <map>
#include <memory>
#include <set>

namespace pcj::ssa {

using bc::Op;
using ir::Instr;

namespace {

// Marker for the NULL the call protocol pushes; never an operand.
Instr *const kNull = reinterpret_cast<Instr *>(uintptr_t(1));

// The locals of a state, in copy-on-write chunks: every CFG edge keeps a
// state, so copying one and comparing two at a join cost O(locals / kChunk)
// plus the chunks written since -- not O(locals) (a generated kernel of
// thousands of statements has thousands of locals and blocks).
class Locals {
public:
  static constexpr size_t kChunk = 64;
  using Chunk = std::array<Instr *, kChunk>;

  void resize(size_t N) {
    Size = N;
    Chunks.resize((N + kChunk - 1) / kChunk);
    for (auto &C : Chunks)
      if (!C)
        C = std::make_shared<Chunk>();
  }
  size_t size() const { return Size; }
  Instr *at(size_t K) const {
    PCJ_ASSERT(K < Size, "local index out of range");
    return (*Chunks[K / kChunk])[K % kChunk];
  }
  void set(size_t K, Instr *V) {
    PCJ_ASSERT(K < Size, "local index out of range");
    std::shared_ptr<Chunk> &C = Chunks[K / kChunk];
    if (C.use_count() > 1)
      C = std::make_shared<Chunk>(*C);
    (*C)[K % kChunk] = V;
  }
  size_t numChunks() const { return Chunks.size(); }
  const std::shared_ptr<Chunk> &chunk(size_t C) const { return Chunks[C]; }
  void setChunk(size_t C, std::shared_ptr<Chunk> P) {
    Chunks[C] = std::move(P);
  }
  bool operator==(const Locals &O) const {
    if (Size != O.Size)
      return false;
    for (size_t C = 0; C < Chunks.size(); ++C)
      if (Chunks[C] != O.Chunks[C] && *Chunks[C] != *O.Chunks[C])
        return false;
    return true;
  }

private:
  std::vector<std::shared_ptr<Chunk>> Chunks;
  size_t Size = 0;
};

struct State {
  Locals locals; // Undef: never assigned on this path
  std::vector<Instr *> stack;
};

class Builder {
public:
  Builder(const bc::DecodedCode &Code, const cfg::CFG &G) : Code(Code), G(G) {}

  std::unique_ptr<ir::Function> run();

private:
  const bc::DecodedCode &Code;
  const cfg::CFG &G;
  std::unique_ptr<ir::Function> F;
  std::vector<ir::Block *> IRBlock; // cfg block -> IR block (null: dead)
  std::vector<bool> Done;
  std::map<std::pair<int, int>, State> EdgeState; // (pred, succ) -> state
  struct Pending {
    int block;
    Instr *phi;
    bool isStack;
    size_t slot;
  };
  std::vector<Pending> PendingPhis;
  std::vector<Instr *> UndefOfLocal; // one Undef per local, in the entry block
  std::map<Instr *, size_t> LocalOfPhi; // phis of locals -> the local's slot
  ir::Block *Entry = nullptr;

  SourceLoc loc(const bc::Instr &I) const { return Code.loc(I); }
  [[noreturn]] void unsupported(const bc::Instr &I, const std::string &Msg,
                                const std::string &Hint = {}) const {
    throw CompileError(ErrorKind::Unsupported, loc(I), Msg, Hint);
  }

  Instr *emit(ir::Block *B, ir::Op O, const bc::Instr &At,
              std::vector<Instr *> Ops = {}) {
    for (Instr *V : Ops)
      if (V == kNull)
        throw CompileError(ErrorKind::Bytecode, loc(At),
                           "internal stack marker used as a value");
    return F->insert(B, nullptr, O, loc(At), std::move(Ops));
  }

  static bool isRejected(bc::Op O);
  [[noreturn]] void reject(const bc::Instr &I) const;
  void rejectFirstUnsupported(const std::vector<int> &Blocks) const;
  State entryState(int BI);
  void emitRaise(ir::Block *B, const bc::Instr &I, State &S);
  void translateBlock(int BI);
  void completePendingPhis();
  void checkUndefUses();
};

std::unique_ptr<ir::Function> Builder::run() {
  F = std::make_unique<ir::Function>();
  F->name = Code.name;
  F->qualname = Code.qualname;
  F->file = Code.file;
  F->firstLine = Code.firstLineNo;
  for (int K = 0; K < Code.argCount; ++K)
    F->params.push_back({Code.varnames[K], nullptr});

  // Reachability over the CFG, then reverse post-order.
  size_t NB = G.blocks.size();
  std::vector<int> Post;
  std::vector<bool> Seen(NB, false);
  std::vector<std::pair<int, int>> Stack{{0, 0}};
  Seen[0] = true;
  while (!Stack.empty()) {
    auto &[B, Next] = Stack.back();
    int Succ[2] = {G.blocks[B].fallthrough, G.blocks[B].jump};
    if (Next < 2) {
      int S = Succ[Next++];
      if (S >= 0 && !Seen[S]) {
        Seen[S] = true;
        Stack.push_back({S, 0});
      }
      continue;
    }
    Post.push_back(B);
    Stack.pop_back();
  }
  std::vector<int> RPO(Post.rbegin(), Post.rend());

  Entry = F->newBlock();
  IRBlock.assign(NB, nullptr);
  for (int B : RPO)
    IRBlock[B] = F->newBlock();
  Done.assign(NB, false);

  // Entry block: parameters and one "unassigned" marker per local.
  bc::Instr First = Code.instrs.front();
  First.line = Code.firstLineNo;
  State Init;
  Init.locals.resize(Code.varnames.size());
  for (size_t K = 0; K < Code.varnames.size(); ++K) {
    Instr *U = emit(Entry, ir::Op::Undef, First);
    U->str = Code.varnames[K];
    UndefOfLocal.push_back(U);
    Init.locals.set(K, U);
  }
  for (int K = 0; K < Code.argCount; ++K) {
    Instr *A = emit(Entry, ir::Op::Arg, First);
    A->index = K;
    A->str = Code.varnames[K];
    Init.locals.set(K, A);
  }
  EdgeState[{-1, 0}] = Init;
  Instr *J = emit(Entry, ir::Op::Jump, First);
  J->succs = {IRBlock[0]};

  rejectFirstUnsupported(RPO);
  for (int B : RPO)
    translateBlock(B);
  completePendingPhis();
  F->recomputeCFG();
  simplifyPhis(*F, LocalOfPhi, UndefOfLocal);
  checkUndefUses();
  ir::verify(*F, /*Typed=*/false);
  return std::move(F);
}

// Instructions outside the language wherever they appear.
bool Builder::isRejected(bc::Op O) {
  return O == Op::DELETE_FAST || O == Op::UNSUPPORTED;
}

[[noreturn]] void Builder::reject(const bc::Instr &I) const {
  switch (I.op) {
  case Op::DELETE_FAST:
    unsupported(I, bc::unsupportedMessage(bc::UnsupportedKind::Delete));
  default: {
    PCJ_ASSERT(I.op == Op::UNSUPPORTED, "not a rejected instruction");
    auto UK = bc::UnsupportedKind(I.arg);
    std::string Msg = bc::unsupportedMessage(UK);
    if (UK == bc::UnsupportedKind::Other && I.aux >= 0)
      Msg += " (bytecode " + Code.opnames.at(I.aux) + ")";
    unsupported(I, Msg, bc::unsupportedHint(UK));
  }
  }
}

// The first rejected construct in the source (by line, then column) among
// the reachable blocks, whatever order the blocks are translated in: with
// `if c: v = 3 else: v = 4` assigning a closure variable, the error names
// `v = 3`.
void Builder::rejectFirstUnsupported(const std::vector<int> &Blocks) const {
  const bc::Instr *First = nullptr;
  for (int B : Blocks)
    for (int K = G.blocks[B].begin; K < G.blocks[B].end; ++K) {
      const bc::Instr &I = Code.instrs[K];
      if (isRejected(I.op) &&
          (!First || std::make_pair(I.line, I.col) <
                         std::make_pair(First->line, First->col)))
        First = &I;
    }
  if (First)
    reject(*First);
}

// Predecessor edges of a block that are reachable: (pred, state-or-null).
State Builder::entryState(int BI) {
  const cfg::BasicBlock &BB = G.blocks[BI];
  std::vector<int> Preds;
  if (BI == 0)
    Preds.push_back(-1);
  for (int P : BB.preds)
    if (IRBlock[P])
      Preds.push_back(P);
  std::vector<const State *> Known;
  bool AllKnown = true;
  for (int P : Preds) {
    auto It = EdgeState.find({P, BI});
    if (It == EdgeState.end())
      AllKnown = false;
    else
      Known.push_back(&It->second);
  }
  PCJ_ASSERT(!Known.empty(), "block reached before any predecessor");
  const State &Ref = *Known[0];
  for (const State *S : Known)
    if (S->stack.size() != Ref.stack.size())
      throw CompileError(ErrorKind::Bytecode, loc(Code.instrs[BB.begin]),
                         "inconsistent stack depth at a join (" +
                             std::to_string(S->stack.size()) + " vs " +
                             std::to_string(Ref.stack.size()) + ")");
  ir::Block *IB = IRBlock[BI];
  const bc::Instr &At = Code.instrs[BB.begin];
  auto Merge = [&](bool IsStack, size_t Slot) -> Instr * {
    auto Get = [&](const State *S) {
      return IsStack ? S->stack[Slot] : S->locals.at(Slot);
    };
    Instr *V0 = Get(Known[0]);
    if (V0 == kNull) {
      for (const State *S : Known)
        if (Get(S) != kNull)
          throw CompileError(ErrorKind::Bytecode, loc(At),
                             "call marker mismatch at a join");
      return kNull;
    }
    bool Same = AllKnown;
    for (const State *S : Known)
      Same = Same && Get(S) == V0;
    if (Same)
      return V0;
    Instr *Phi = F->insert(IB, nullptr, ir::Op::Phi, loc(At));
    if (!IsStack) {
      Phi->str = Code.varnames[Slot];
      LocalOfPhi[Phi] = Slot;
    }
    // Phis go first: move it before any non-phi (the block is empty now).
    if (AllKnown) {
      size_t K = 0;
      for (int P : Preds) {
        Phi->operands.push_back(Get(Known[K++]));
        Phi->incoming.push_back(P < 0 ? Entry : IRBlock[P]);
      }
    } else {
      PendingPhis.push_back({BI, Phi, IsStack, Slot});
    }
    return Phi;
  };
  // Every edge known and carrying the same state (a block with one
  // predecessor, most joins of locals): no phis, and no per-slot work.
  bool Same = AllKnown;
  for (const State *St : Known)
    Same = Same && St->locals == Ref.locals && St->stack == Ref.stack;
  if (Same)
    return Ref;
  State S;
  S.locals.resize(Ref.locals.size());
  for (size_t C = 0; C < Ref.locals.numChunks(); ++C) {
    bool Shared = AllKnown;
    for (const State *St : Known)
      Shared = Shared && St->locals.chunk(C) == Ref.locals.chunk(C);
    if (Shared) { // no local of this chunk differs: no phi
      S.locals.setChunk(C, Ref.locals.chunk(C));
      continue;
    }
    size_t End = std::min(Ref.locals.size(), (C + 1) * Locals::kChunk);
    for (size_t K = C * Locals::kChunk; K < End; ++K)
      S.locals.set(K, Merge(false, K));
  }
  for (size_t K = 0; K < Ref.stack.size(); ++K)
    S.stack.push_back(Merge(true, K));
  return S;
}

void Builder::completePendingPhis() {
  for (const Pending &P : PendingPhis) {
    const cfg::BasicBlock &BB = G.blocks[P.block];
    std::vector<int> Preds;
    if (P.block == 0)
      Preds.push_back(-1);
    for (int Pr : BB.preds)
      if (IRBlock[Pr])
        Preds.push_back(Pr);
    for (int Pr : Preds) {
      auto It = EdgeState.find({Pr, P.block});
      PCJ_ASSERT(It != EdgeState.end(), "missing state on a loop edge");
      const State &S = It->second;
      Instr *V = P.isStack ? S.stack.at(P.slot) : S.locals.at(P.slot);
      if (V == kNull)
        throw CompileError(ErrorKind::Bytecode, P.phi->loc,
                           "call marker mismatch on a loop edge");
      P.phi->operands.push_back(V);
      P.phi->incoming.push_back(Pr < 0 ? Entry : IRBlock[Pr]);
    }
  }
}

void Builder::translateBlock(int BI) {
  const cfg::BasicBlock &BB = G.blocks[BI];
  ir::Block *B = IRBlock[BI];
  State S = entryState(BI);
  auto &St = S.stack;
  auto Pop = [&](const bc::Instr &I) {
    if (St.empty())
      throw CompileError(ErrorKind::Bytecode, loc(I),
                         "operand stack underflow");
    Instr *V = St.back();
    St.pop_back();
    return V;
  };
  auto Peek = [&](const bc::Instr &I, size_t Depth) {
    if (Depth == 0 || Depth > St.size())
      throw CompileError(ErrorKind::Bytecode, loc(I),
                         "operand stack underflow");
    return St[St.size() - Depth];
  };
  auto Leave = [&](int Succ, const State &Out) {
    if (Succ >= 0)
      EdgeState[{BI, Succ}] = Out;
  };
  auto Branch = [&](const bc::Instr &I, Instr *Cond, int TrueSucc,
                    const State &TrueState, int FalseSucc,
                    const State &FalseState) {
    Leave(TrueSucc, TrueState);
    Leave(FalseSucc, FalseState);
    if (TrueSucc == FalseSucc) {
      Instr *J = emit(B, ir::Op::Jump, I);
      J->succs = {IRBlock[TrueSucc]};
      return;
    }
    Instr *Br = emit(B, ir::Op::Branch, I, {Cond});
    Br->succs = {IRBlock[TrueSucc], IRBlock[FalseSucc]};
  };

  for (int K = BB.begin; K < BB.end; ++K) {
    const bc::Instr &I = Code.instrs[K];
    switch (I.op) {
    case Op::POP_TOP:
      Pop(I);
      break;
    case Op::COPY:
      St.push_back(Peek(I, I.arg));
      break;
    case Op::SWAP: {
      Peek(I, I.arg);
      std::swap(St[St.size() - 1], St[St.size() - I.arg]);
      break;
    }
    case Op::PUSH_NULL:
      St.push_back(kNull);
      break;
    case Op::LOAD_CONST: {
      Instr *C = emit(B, ir::Op::Const, I);
      C->cval = Code.consts.at(I.arg);
      St.push_back(C);
      break;
    }
    case Op::LOAD_FAST: {
      Instr *V = S.locals.at(I.arg);
      if (V->op == ir::Op::Undef)
        throw CompileError(ErrorKind::Name, loc(I),
                           "local variable '" + Code.varnames[I.arg] +
                               "' is used before it is assigned");
      if (V->op == ir::Op::Phi) {
        // The phi may merge "unassigned" on some path (known only once
        // loops are closed): check the read; once it passed, the local
        // holds a bound value on this path.
        V = emit(B, ir::Op::CheckBound, I, {V});
        V->str = Code.varnames[I.arg];
        S.locals.set(I.arg, V);
      }
      St.push_back(V);
      break;
    }
    case Op::STORE_FAST: {
      Instr *V = Pop(I);
      S.locals.set(I.arg, V);
      F->bindings.push_back({Code.varnames[I.arg], V, B,
                             B->instrs.empty() ? nullptr : B->instrs.back(),
                             loc(I)});
      break;
    }
    case Op::DELETE_FAST:
      reject(I);
    case Op::LOAD_DEREF: {
      Instr *D = emit(B, ir::Op::Deref, I);
      D->str = Code.derefNames.at(I.arg);
      St.push_back(D);
      break;
    }
    case Op::MAKE_FUNCTION: {
      Instr *Fn = emit(B, ir::Op::MakeFunction, I);
      makeFunction(Fn, Pop(I), Code.consts.at(I.arg), I.arg);
      St.push_back(Fn);
      break;
    }
    case Op::SET_FUNCTION_ATTRIBUTE: {
      Instr *Fn = Pop(I);
      setFunctionAttribute(Fn, Pop(I), I.arg, loc(I));
      St.push_back(Fn);
      break;
    }
    case Op::LOAD_GLOBAL: {
      Instr *Gl = emit(B, ir::Op::Global, I);
      Gl->str = Code.names.at(I.arg);
      St.push_back(Gl);
      break;
    }
    case Op::LOAD_ATTR: {
      Instr *A = emit(B, ir::Op::GetAttr, I, {Pop(I)});
      A->str = Code.names.at(I.arg);
      St.push_back(A);
      break;
    }
    case Op::LOAD_METHOD: {
      Instr *A = emit(B, ir::Op::GetAttr, I, {Pop(I)});
      A->str = Code.names.at(I.arg);
      St.push_back(A);
      St.push_back(kNull);
      break;
    }
    case Op::STORE_ATTR: { // [.. v o] -> o.name = v (record fields)
      Instr *Obj = Pop(I), *Val = Pop(I);
      Instr *S = emit(B, ir::Op::SetAttr, I, {Obj, Val});
      S->str = Code.names.at(I.arg);
      break;
    }
    case Op::BINARY_OP: {
      Instr *Rhs = Pop(I), *Lhs = Pop(I);
      Instr *V = emit(B, ir::Op::BinOp, I, {Lhs, Rhs});
      V->index = I.arg;
      St.push_back(V);
      break;
    }
    case Op::UNARY_NEGATIVE:
    case Op::UNARY_POSITIVE:
    case Op::UNARY_NOT:
    case Op::UNARY_INVERT: {
      ir::UnaryKind UK = I.op == Op::UNARY_NEGATIVE   ? ir::UnaryKind::Neg
                         : I.op == Op::UNARY_POSITIVE ? ir::UnaryKind::Pos
                         : I.op == Op::UNARY_NOT      ? ir::UnaryKind::Not
                                                      : ir::UnaryKind::Invert;
      Instr *V = emit(B, ir::Op::Unary, I, {Pop(I)});
      V->index = int(UK);
      St.push_back(V);
      break;
    }
    case Op::TO_BOOL:
      St.push_back(emit(B, ir::Op::Truth, I, {Pop(I)}));
      break;
    case Op::COMPARE_OP: {
      Instr *Rhs = Pop(I), *Lhs = Pop(I);
      Instr *V = emit(B, ir::Op::Compare, I, {Lhs, Rhs});
      V->index = I.arg;
      St.push_back(V);
      break;
    }
    case Op::IS_OP: {
      Instr *Rhs = Pop(I), *Lhs = Pop(I);
      Instr *V = emit(B, ir::Op::Is, I, {Lhs, Rhs});
      V->index = I.arg;
      St.push_back(V);
      break;
    }
    case Op::CONTAINS_OP: {
      // `v in c` is the call operator.contains(c, v) (a registry row);
      // `v not in c` its negation.
      Instr *Container = Pop(I), *Value = Pop(I);
      Instr *Fn = emit(B, ir::Op::Global, I);
      Fn->str = "operator.contains";
      Fn->ct = ir::CTValue::intrinsic("operator.contains");
      Instr *V = emit(B, ir::Op::Call, I, {Fn, Container, Value});
      if (I.arg) {
        V = emit(B, ir::Op::Unary, I, {V});
        V->index = int64_t(ir::UnaryKind::Not);
      }
      St.push_back(V);
      break;
    }
    case Op::BUILD_TUPLE: {
      std::vector<Instr *> Elems(I.arg);
      for (int E = I.arg - 1; E >= 0; --E)
        Elems[E] = Pop(I);
      St.push_back(emit(B, ir::Op::BuildTuple, I, Elems));
      break;
    }
    case Op::BUILD_SLICE: {
      std::vector<Instr *> Parts(I.arg);
      for (int E = I.arg - 1; E >= 0; --E)
        Parts[E] = Pop(I);
      St.push_back(emit(B, ir::Op::BuildSlice, I, Parts));
      break;
    }
    case Op::BINARY_SUBSCR: {
      Instr *Key = Pop(I), *Obj = Pop(I);
      St.push_back(emit(B, ir::Op::GetItem, I, {Obj, Key}));
      break;
    }
    case Op::STORE_SUBSCR: {
      Instr *Key = Pop(I), *Obj = Pop(I), *Val = Pop(I);
      emit(B, ir::Op::SetItem, I, {Obj, Key, Val});
      break;
    }
    case Op::UNPACK_SEQUENCE: {
      Instr *Seq = Pop(I);
      for (int E = I.arg - 1; E >= 0; --E) {
        Instr *V = emit(B, ir::Op::TupleGet, I, {Seq});
        V->index = E;
        V->unpackCount = unsigned(I.arg); // checked in typing
        St.push_back(V);
      }
      break;
    }
    case Op::CALL_EX: // f(*t): type inference spreads t's elements
    case Op::CALL: {
      int NArgs = I.op == Op::CALL_EX ? 1 : I.arg; // CALL_EX: the tuple
      std::vector<Instr *> Args(NArgs);
      for (int E = NArgs - 1; E >= 0; --E)
        Args[E] = Pop(I);
      Instr *Callee;
      if (I.flags & bc::flag::CallPair) {
        Instr *Upper = Pop(I), *Lower = Pop(I);
        if (Lower == kNull) {
          Callee = Upper;
        } else if (Upper == kNull) {
          Callee = Lower;
        } else {
          Callee = Lower;
          Args.insert(Args.begin(), Upper);
        }
      } else {
        Callee = Pop(I);
      }
      std::vector<Instr *> Ops{Callee};
      Ops.insert(Ops.end(), Args.begin(), Args.end());
      Instr *C = emit(B, ir::Op::Call, I, Ops);
      C->starArgs = I.op == Op::CALL_EX;
      if (I.op == Op::CALL && I.aux >= 0)
        C->kwnames = Code.kwnames.at(I.aux);
      St.push_back(C);
      break;
    }
    case Op::JUMP: {
      Leave(BB.jump, S);
      Instr *J = emit(B, ir::Op::Jump, I);
      J->succs = {IRBlock[BB.jump]};
      return;
    }
    case Op::POP_JUMP_IF_FALSE:
    case Op::POP_JUMP_IF_TRUE:
    case Op::POP_JUMP_IF_NONE:
    case Op::POP_JUMP_IF_NOT_NONE: {
      Instr *V = Pop(I);
      Instr *Cond;
      bool JumpOnTrue;
      if (I.op == Op::POP_JUMP_IF_NONE || I.op == Op::POP_JUMP_IF_NOT_NONE) {
        Instr *None = emit(B, ir::Op::Const, I);
        Cond = emit(B, ir::Op::Is, I, {V, None});
        JumpOnTrue = I.op == Op::POP_JUMP_IF_NONE;
      } else {
        Cond = emit(B, ir::Op::Truth, I, {V});
        JumpOnTrue = I.op == Op::POP_JUMP_IF_TRUE;
      }
      if (JumpOnTrue)
        Branch(I, Cond, BB.jump, S, BB.fallthrough, S);
      else
        Branch(I, Cond, BB.fallthrough, S, BB.jump, S);
      return;
    }
    case Op::JUMP_IF_FALSE_OR_POP:
    case Op::JUMP_IF_TRUE_OR_POP: {
      Instr *V = Peek(I, 1);
      Instr *Cond = emit(B, ir::Op::Truth, I, {V});
      State Popped = S;
      Popped.stack.pop_back();
      if (I.op == Op::JUMP_IF_TRUE_OR_POP)
        Branch(I, Cond, BB.jump, S, BB.fallthrough, Popped);
      else
        Branch(I, Cond, BB.fallthrough, Popped, BB.jump, S);
      return;
    }
    case Op::GET_ITER:
      St.push_back(emit(B, ir::Op::GetIter, I, {Pop(I)}));
      break;
    case Op::FOR_ITER: {
      Instr *It = Peek(I, 1);
      Instr *FI = emit(B, ir::Op::ForIter, I, {It});
      FI->succs = {IRBlock[BB.fallthrough], IRBlock[BB.jump]};
      State Body = S, Exhausted = S;
      Body.stack.push_back(FI);
      Exhausted.stack.pop_back();
      Leave(BB.fallthrough, Body);
      Leave(BB.jump, Exhausted);
      return;
    }
    case Op::RETURN_VALUE:
      emit(B, ir::Op::Return, I, {Pop(I)});
      return;
    case Op::RAISE:
      emitRaise(B, I, S);
      return;
    case Op::LOAD_ASSERTION_ERROR: {
      Instr *Gl = emit(B, ir::Op::Global, I);
      Gl->str = "AssertionError";
      St.push_back(Gl);
      break;
    }
    case Op::UNSUPPORTED:
      reject(I);
    }
  }
  // Fell off the end of the block into the next one.
  const bc::Instr &Last = Code.instrs[BB.end - 1];
  PCJ_ASSERT(BB.fallthrough >= 0, "block without terminator at end of code");
  Leave(BB.fallthrough, S);
  Instr *J = emit(B, ir::Op::Jump, Last);
  J->succs = {IRBlock[BB.fallthrough]};
}

// `raise E`, `raise E(arg)` and `assert c[, msg]` (which raises
// AssertionError(msg)): the exception is resolved here, from the
// instructions that built it, into one Raise terminator naming the class
// (str: a builtin exception, or a module global typing resolves) with the
// message (cval); those instructions are dropped, so nothing types an exception
// object.  The argument must be a constant: the message is fixed when the
// kernel compiles.
void Builder::emitRaise(ir::Block *B, const bc::Instr &I, State &S) {
  if (I.arg == 0)
    unsupported(
        I, "a bare `raise` (re-raise) is not supported in kernels",
        "raise an exception class or instance, e.g. raise ValueError(\"...\")");
  if (I.arg == 2)
    unsupported(I, "`raise ... from ...` is not supported in kernels",
                "raise the exception without `from`");
  PCJ_ASSERT(!S.stack.empty(), "raise with an empty stack");
  Instr *E = S.stack.back();
  S.stack.pop_back();
  // An exception kept in a variable (`e = ValueError(); raise e`) may be
  // used elsewhere: only one built in the raise statement is resolved.
  bool InLocal = false;
  for (size_t K = 0; K < S.locals.size() && !InLocal; ++K)
    InLocal = S.locals.at(K) == E;
  if (InLocal)
    unsupported(I, "raise the exception where it is made in kernels "
                   "(raise ValueError(\"...\")), not from a variable");
  std::vector<Instr *> Built{E};
  Instr *Cls = E;
  bc::ConstValue Msg = bc::ConstValue::ofStr("");
  if (E != kNull && E->op == ir::Op::Call) {
    Cls = E->operands[0];
    if (!E->kwnames.empty() || E->operands.size() > 2)
      unsupported(I,
                  "an exception raised in a kernel takes at most one argument, "
                  "without keywords",
                  "put the whole message in one constant string");
    if (E->operands.size() == 2) {
      const Instr *A = E->operands[1];
      bc::ConstValue::Kind K =
          A->op == ir::Op::Const ? A->cval.kind : bc::ConstValue::Kind::Other;
      if (K == bc::ConstValue::Kind::Str)
        Msg = bc::ConstValue::ofStr(A->cval.text);
      else if (A->cval.isSmallInt() && K == bc::ConstValue::Kind::Int)
        Msg = bc::ConstValue::ofStr(std::to_string(A->cval.i));
      else
        unsupported(I,
                    "the argument of an exception raised in a kernel must be "
                    "a constant string or integer",
                    "the message is fixed when the kernel compiles; write "
                    "values you need to see into an array");
      Built.push_back(E->operands[1]);
    }
    Built.push_back(Cls);
  }
  if (Cls == kNull || Cls->op != ir::Op::Global)
    unsupported(I,
                "only builtin exception classes (AssertionError, ValueError, "
                "...) and module-level classes deriving from Exception can "
                "be raised in kernels");
  Instr *R = emit(B, ir::Op::Raise, I);
  R->str = Cls->str;
  R->cval = Msg;
  // The class, its argument and the call are used by nothing else (each
  // LOAD_* makes a new instruction): drop them.
  auto &V = B->instrs;
  for (Instr *X : Built)
    V.erase(std::remove(V.begin(), V.end(), X), V.end());
}

// Only phis and checks may see an "unassigned" marker; unused markers go.
void Builder::checkUndefUses() {
  std::set<Instr *> Used;
  for (ir::Block *B : F->blocks)
    for (Instr *I : B->instrs)
      for (Instr *O : I->operands) {
        PCJ_ASSERT(O->op != ir::Op::Undef || I->op == ir::Op::Phi,
                   "an unassigned local used without a check");
        Used.insert(O);
      }
  std::erase_if(Entry->instrs, [&](Instr *I) {
    return I->op == ir::Op::Undef && !Used.count(I);
  });
}

} // namespace

std::unique_ptr<ir::Function> buildSSA(const bc::DecodedCode &Code,
                                       const cfg::CFG &G) {
  return Builder(Code, G).run();
}

} // namespace pcj::ssa
