// Direct tests of the passes in compiler/transforms: each builds a small
// typed IR function by hand, runs one pass and checks what it marked,
// inserted, folded or rejected.
//   RegistryColumns.*  walks every registry row (stdlib/Registry.def): what
//                      NonNegative and ArrayEffects conclude about a use of
//                      the row follows from its property column alone, so a
//                      new intrinsic is one row;
//   NonNegative.*, ArrayEffects.*, InsertCasts.*, ConstantRanges.*,
//   HeapOwnership.*:   the pass's own rules.
#include "ir/IR.h"
#include "stdlib/Registry.h"
#include "support/Diagnostics.h"
#include "transforms/ArrayEffects.h"
#include "transforms/ConstantRanges.h"
#include "transforms/HeapOwnership.h"
#include "transforms/InsertCasts.h"
#include "transforms/NonNegative.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace pcj::transforms {
namespace {

using ir::Instr;
using ir::Op;
using stdlib::IntrinsicId;
using types::TypeRef;

// A one-function IR under construction; instructions go to `at` (the
// entry block unless changed), typed as given.
class Builder {
public:
  ir::Function fn;
  ir::Block *at;

  Builder() {
    fn.name = fn.qualname = "k";
    fn.file = std::make_shared<const std::string>("k.py");
    fn.firstLine = 1;
    at = fn.newBlock();
  }
  SourceLoc loc() const { return SourceLoc{fn.file, 7, 4, 9}; }
  Instr *add(Op O, TypeRef T, std::vector<Instr *> Operands = {}) {
    Instr *I = fn.insert(at, nullptr, O, loc(), std::move(Operands));
    I->type = T;
    return I;
  }
  Instr *param(TypeRef T) {
    size_t K = fn.params.size();
    fn.params.push_back({"p" + std::to_string(K), T});
    Instr *I = add(Op::Arg, T);
    I->index = int64_t(K);
    I->str = fn.params[K].name;
    return I;
  }
  Instr *constInt(int64_t V, TypeRef T = types::int64Ty(), bool Weak = true) {
    Instr *I = add(Op::Const, T);
    I->cval = bc::ConstValue::ofInt(V);
    I->weak = Weak;
    return I;
  }
  // A use of registry row Id: a Call (callee first) of Func rows, a
  // GetAttr of the object for Attr rows.
  Instr *intrinsic(IntrinsicId Id, TypeRef T, std::vector<Instr *> Args) {
    const stdlib::IntrinsicInfo &Info = stdlib::intrinsicInfo(Id);
    Instr *I;
    if (Info.kind == stdlib::IntrinsicKind::Attr) {
      I = add(Op::GetAttr, T, Args);
      std::string Key = Info.key;
      I->str = Key.substr(Key.rfind('.') + 1);
    } else {
      Instr *Callee = add(Op::Global, types::intrinsicTy(Info.key));
      Callee->str = Info.key;
      Callee->intrinsic = Id;
      Args.insert(Args.begin(), Callee);
      I = add(Op::Call, T, Args);
    }
    I->intrinsic = Id;
    return I;
  }
  void ret(Instr *V) { add(Op::Return, types::noneTy(), {V}); }
  void finish() { ir::verify(fn, true); }
};

TypeRef array1d() {
  return types::arrayTy(types::float32Ty(), 1, types::Layout::C);
}

// ---- the registry's property column drives the passes ---------------------

// Every row: a use of it on an int64 argument of unknown sign is
// non-negative exactly when its column says NonNegResult (range(n) starts
// at 0: its values are a fact of range itself); on a uint32 argument, also
// when it says NonNegIfAllArgs or NonNegIfAnyArg.
TEST(RegistryColumns, NonNegativeReadsTheColumn) {
  using namespace stdlib::props;
  size_t Marked = 0;
  for (size_t K = 0; K < size_t(IntrinsicId::Count); ++K) {
    auto Id = IntrinsicId(K);
    const stdlib::IntrinsicInfo &Info = stdlib::intrinsicInfo(Id);
    if (Info.kind == stdlib::IntrinsicKind::Namespace ||
        Info.kind == stdlib::IntrinsicKind::Operator)
      continue;
    for (bool UnsignedArg : {false, true}) {
      Builder B;
      Instr *A =
          B.param(UnsignedArg ? types::intTy(32, false) : types::int64Ty());
      Instr *Use = B.intrinsic(Id, types::int64Ty(), {A});
      B.ret(Use);
      B.finish();
      markNonNegative(B.fn);
      bool Want = stdlib::hasProp(Id, NonNegResult) ||
                  Id == IntrinsicId::builtin_range ||
                  (UnsignedArg &&
                   stdlib::hasProp(Id, NonNegIfAllArgs | NonNegIfAnyArg));
      EXPECT_EQ(Use->nonNegative, Want)
          << Info.key << (UnsignedArg ? " on uint32" : " on int64");
      Marked += Use->nonNegative;
    }
  }
  EXPECT_GT(Marked, 20u); // the special registers, shapes, len, ...
}

// min needs every argument non-negative, max one.
TEST(RegistryColumns, MinNeedsAllMaxNeedsAny) {
  for (IntrinsicId Id : {IntrinsicId::builtin_min, IntrinsicId::builtin_max}) {
    Builder B;
    Instr *Signed = B.param(types::int64Ty());
    Instr *Zero = B.constInt(0);
    Instr *Use = B.intrinsic(Id, types::int64Ty(), {Signed, Zero});
    B.ret(Use);
    B.finish();
    markNonNegative(B.fn);
    EXPECT_EQ(Use->nonNegative, Id == IntrinsicId::builtin_max)
        << stdlib::intrinsicKey(Id);
  }
}

// Every row: an array parameter passed to a use of it stays read-only
// exactly when the column says ReadsArgsOnly; a write is reported at the
// use otherwise.
TEST(RegistryColumns, ArrayEffectsReadTheColumn) {
  size_t ReadOnly = 0;
  for (size_t K = 0; K < size_t(IntrinsicId::Count); ++K) {
    auto Id = IntrinsicId(K);
    const stdlib::IntrinsicInfo &Info = stdlib::intrinsicInfo(Id);
    if (Info.kind != stdlib::IntrinsicKind::Func)
      continue;
    Builder B;
    Instr *A = B.param(array1d());
    Instr *Use = B.intrinsic(Id, types::int64Ty(), {A});
    B.ret(B.add(Op::Const, types::noneTy()));
    B.finish();
    bool Want = stdlib::hasProp(Id, stdlib::props::ReadsArgsOnly);
    EXPECT_EQ(readOnlyArrayParams(B.fn), std::vector<bool>{Want}) << Info.key;
    std::vector<const Instr *> W = paramWrites(B.fn, {});
    ASSERT_EQ(W.size(), 1u);
    EXPECT_EQ(W[0], Want ? nullptr : Use) << Info.key;
    ReadOnly += Want;
  }
  EXPECT_GE(ReadOnly, 4u); // len, enumerate, zip, print, array methods
}

// The typed dump names the row by its key.
TEST(RegistryColumns, TypedDumpShowsTheKey) {
  Builder B;
  Instr *A = B.param(array1d());
  Instr *Len = B.intrinsic(IntrinsicId::builtin_len, types::int64Ty(), {A});
  B.ret(Len);
  B.finish();
  EXPECT_NE(B.fn.print(true).find("[len]"), std::string::npos)
      << B.fn.print(true);
  EXPECT_STREQ(stdlib::intrinsicKey(IntrinsicId::builtin_len), "len");
  EXPECT_EQ(stdlib::lookupIntrinsic("len")->id, IntrinsicId::builtin_len);
}

// ---- NonNegative ----------------------------------------------------------

// i = threadIdx.x; j = i + 1 (>= 0); k = j - 1 (unknown); m = j % 3 (>= 0
// by the divisor's sign); n = k % -3 (<= 0).
TEST(NonNegative, ArithmeticRules) {
  Builder B;
  Instr *Ns = B.add(Op::Global, types::intrinsicTy("cuda.threadIdx"));
  Instr *Tid =
      B.intrinsic(IntrinsicId::cuda_threadIdx_x, types::int64Ty(), {Ns});
  auto Bin = [&](bc::BinOpKind K, Instr *X, Instr *Y) {
    Instr *I = B.add(Op::BinOp, types::int64Ty(), {X, Y});
    I->index = int64_t(K);
    return I;
  };
  Instr *J = Bin(bc::BinOpKind::Add, Tid, B.constInt(1));
  Instr *K = Bin(bc::BinOpKind::Sub, J, B.constInt(1));
  Instr *M = Bin(bc::BinOpKind::Mod, K, B.constInt(3));
  Instr *N = Bin(bc::BinOpKind::Mod, J, B.constInt(-3));
  Instr *T =
      B.add(Op::BuildTuple,
            types::tupleTy({types::int64Ty(), types::int64Ty()}), {Tid, J});
  Instr *T2 =
      B.add(Op::BuildTuple,
            types::tupleTy({types::int64Ty(), types::int64Ty()}), {Tid, K});
  B.ret(B.add(Op::BuildTuple,
              types::tupleTy({M->type, N->type, T->type, T2->type}),
              {M, N, T, T2}));
  B.finish();
  EXPECT_TRUE(markNonNegative(B.fn));
  EXPECT_TRUE(Tid->nonNegative);
  EXPECT_TRUE(J->nonNegative);
  EXPECT_FALSE(K->nonNegative);
  EXPECT_TRUE(M->nonNegative);
  EXPECT_FALSE(N->nonNegative);
  EXPECT_TRUE(T->nonNegative);
  EXPECT_FALSE(T2->nonNegative);
  EXPECT_FALSE(markNonNegative(B.fn)); // nothing new the second time
}

// A loop-carried phi: v = 0; loop: v = 5 stays >= 0; v = n - 1 (n an
// int64 argument) does not.  (A phi starts as assumed >= 0, but one
// dropped in the first round, when its back-edge value was not yet
// evaluated, is never assumed again: `v = len(a)` or a `while` counter
// `i += 1` in a loop is not marked.  Noted in the W33 report.)
TEST(NonNegative, LoopPhis) {
  for (bool Constant : {true, false}) {
    Builder B;
    ir::Block *Entry = B.at, *Loop = B.fn.newBlock(), *Exit = B.fn.newBlock();
    Instr *N = B.param(types::int64Ty());
    Instr *Zero = B.constInt(0);
    Instr *J0 = B.add(Op::Jump, types::noneTy());
    J0->succs = {Loop};
    B.at = Loop;
    Instr *Phi = B.add(Op::Phi, types::int64Ty());
    Instr *Next;
    if (Constant) {
      Next = B.constInt(5);
    } else {
      Next = B.add(Op::BinOp, types::int64Ty(), {N, B.constInt(1)});
      Next->index = int64_t(bc::BinOpKind::Sub);
    }
    Phi->operands = {Zero, Next};
    Phi->incoming = {Entry, Loop};
    Instr *Cmp = B.add(Op::Compare, types::boolTy(), {Phi, N});
    Cmp->index = int64_t(bc::CmpKind::Lt);
    Instr *Br = B.add(Op::Branch, types::noneTy(), {Cmp});
    Br->succs = {Loop, Exit};
    B.at = Exit;
    B.ret(Phi);
    B.fn.recomputeCFG();
    B.finish();
    markNonNegative(B.fn);
    EXPECT_EQ(Phi->nonNegative, Constant);
    EXPECT_EQ(Next->nonNegative, Constant);
  }
}

// range(n - 1, -1, -1) counts down to 0: its values are >= 0 though the
// step is negative; range(n - 1, -2, -1) reaches -1.
TEST(NonNegative, RangeCountingDown) {
  for (int64_t Stop : {-1, -2}) {
    Builder B;
    Instr *N = B.param(types::int64Ty());
    Instr *Rg = B.intrinsic(IntrinsicId::builtin_range,
                            types::rangeTy(types::int64Ty()),
                            {N, B.constInt(Stop), B.constInt(-1)});
    B.ret(B.add(Op::Const, types::noneTy()));
    B.finish();
    markNonNegative(B.fn);
    EXPECT_EQ(Rg->nonNegative, Stop == -1);
  }
}

// ---- ArrayEffects ---------------------------------------------------------

// out[0] = a[0]: `a` is read-only, `out` is first written by the store; a
// row view of `b` (b[0] of a 2-d array) written through makes `b` written.
TEST(ArrayEffects, StoresThroughViews) {
  Builder B;
  TypeRef A1 = array1d();
  TypeRef A2 = types::arrayTy(types::float32Ty(), 2, types::Layout::C);
  Instr *A = B.param(A1), *Out = B.param(A1), *M = B.param(A2);
  Instr *Zero = B.constInt(0);
  Instr *Load = B.add(Op::GetItem, types::float32Ty(), {A, Zero});
  Instr *Store = B.add(Op::SetItem, types::noneTy(), {Out, Zero, Load});
  Instr *Row = B.add(Op::GetItem, A1, {M, Zero});
  Instr *Store2 = B.add(Op::SetItem, types::noneTy(), {Row, Zero, Load});
  B.ret(B.add(Op::Const, types::noneTy()));
  B.finish();
  EXPECT_EQ(readOnlyArrayParams(B.fn), (std::vector<bool>{true, false, false}));
  std::vector<const Instr *> W = paramWrites(B.fn, {});
  EXPECT_EQ(W, (std::vector<const Instr *>{nullptr, Store, Store2}));
}

// A device function that only reads its parameter leaves the caller's
// array read-only in paramWrites (readOnlyArrayParams, which does not look
// into callees, assumes a write).
TEST(ArrayEffects, DeviceFunctionsAreLookedThrough) {
  Builder Callee;
  Instr *P = Callee.param(array1d());
  Instr *L =
      Callee.add(Op::GetItem, types::float32Ty(), {P, Callee.constInt(0)});
  Callee.ret(L);
  Callee.finish();

  Builder B;
  Instr *A = B.param(array1d());
  Instr *Fn = B.add(Op::Global, types::functionTy("f@1"));
  Instr *Call = B.add(Op::Call, types::float32Ty(), {Fn, A});
  Call->calleeSymbol = "f_sym";
  B.ret(Call);
  B.finish();
  EXPECT_EQ(readOnlyArrayParams(B.fn), std::vector<bool>{false});
  EXPECT_EQ(paramWrites(B.fn, {{"f_sym", &Callee.fn}}),
            std::vector<const Instr *>{nullptr});
  EXPECT_EQ(paramWrites(B.fn, {}), std::vector<const Instr *>{Call});
}

// ---- InsertCasts ----------------------------------------------------------

// float32 * int64 (argTypes float32 for both): one cast, of the int64, just
// before the multiply; the float32 operand is left as is.
TEST(InsertCasts, ConvertsOperandsThatDiffer) {
  Builder B;
  Instr *X = B.param(types::float32Ty());
  Instr *Two = B.constInt(2);
  Instr *Mul = B.add(Op::BinOp, types::float32Ty(), {X, Two});
  Mul->index = int64_t(bc::BinOpKind::Mul);
  Mul->argTypes = {types::float32Ty(), types::float32Ty()};
  B.ret(Mul);
  EXPECT_TRUE(insertCasts(B.fn));
  B.finish();
  EXPECT_EQ(Mul->operands[0], X);
  Instr *C = Mul->operands[1];
  ASSERT_EQ(C->op, Op::Cast);
  EXPECT_EQ(C->type, types::float32Ty());
  EXPECT_EQ(C->operands[0], Two);
  EXPECT_TRUE(C->weak); // a cast literal stays a literal
  auto &Is = B.at->instrs;
  EXPECT_EQ(std::find(Is.begin(), Is.end(), C) + 1,
            std::find(Is.begin(), Is.end(), Mul));
  EXPECT_FALSE(insertCasts(B.fn)); // nothing left to convert
}

// A phi operand converts at the end of its incoming block.
TEST(InsertCasts, PhiOperandsConvertInTheirBlock) {
  Builder B;
  ir::Block *Entry = B.at, *Other = B.fn.newBlock(), *Join = B.fn.newBlock();
  Instr *C = B.param(types::boolTy());
  Instr *I32 = B.param(types::int32Ty());
  Instr *Br = B.add(Op::Branch, types::noneTy(), {C});
  Br->succs = {Other, Join};
  B.at = Other;
  Instr *F = B.add(Op::Const, types::float64Ty());
  F->cval = bc::ConstValue::ofFloat(0.5);
  Instr *J = B.add(Op::Jump, types::noneTy());
  J->succs = {Join};
  B.at = Join;
  Instr *Phi = B.add(Op::Phi, types::float64Ty());
  Phi->operands = {I32, F};
  Phi->incoming = {Entry, Other};
  Phi->argTypes = {types::float64Ty(), types::float64Ty()};
  B.ret(Phi);
  B.fn.recomputeCFG();
  EXPECT_TRUE(insertCasts(B.fn));
  B.finish();
  Instr *Cast = Phi->operands[0];
  ASSERT_EQ(Cast->op, Op::Cast);
  EXPECT_EQ(Cast->parent, Entry);
  EXPECT_EQ(Entry->instrs.end()[-2], Cast); // before the branch
  EXPECT_EQ(Phi->operands[1], F);
}

// ---- ConstantRanges -------------------------------------------------------

// x < 5000000000 with x: int32 folds to True (NumPy 2 compares values), the
// cast made for the constant goes with it.
TEST(ConstantRanges, FoldsComparisonsBeyondTheType) {
  Builder B;
  Instr *X = B.param(types::int32Ty());
  Instr *Big = B.constInt(5000000000);
  Instr *Cast = B.add(Op::Cast, types::int32Ty(), {Big});
  Instr *Cmp = B.add(Op::Compare, types::boolTy(), {X, Cast});
  Cmp->index = int64_t(bc::CmpKind::Lt);
  B.ret(Cmp);
  EXPECT_TRUE(checkConstantRanges(B.fn));
  EXPECT_EQ(Cmp->op, Op::Const);
  EXPECT_EQ(Cmp->cval.kind, bc::ConstValue::Kind::Bool);
  EXPECT_TRUE(Cmp->cval.b);
  EXPECT_EQ(std::count(B.at->instrs.begin(), B.at->instrs.end(), Cast), 0);
}

// x + 5000000000 with x: int32 is a TypingError at the constant's line.
TEST(ConstantRanges, RejectsConversionsThatLoseTheValue) {
  Builder B;
  Instr *X = B.param(types::int32Ty());
  Instr *Big = B.constInt(5000000000);
  Instr *Cast = B.add(Op::Cast, types::int32Ty(), {Big});
  Instr *Add = B.add(Op::BinOp, types::int32Ty(), {X, Cast});
  Add->index = int64_t(bc::BinOpKind::Add);
  B.ret(Add);
  try {
    checkConstantRanges(B.fn);
    FAIL() << "no error";
  } catch (const CompileError &E) {
    EXPECT_EQ(E.kind(), ErrorKind::Typing);
    EXPECT_EQ(E.loc().line, 7);
    EXPECT_NE(std::string(E.what()).find("out of bounds for int32"),
              std::string::npos)
        << E.what();
  }
  // 7 fits: nothing to fold or reject.
  Builder Ok;
  Instr *Y = Ok.param(types::int32Ty());
  Instr *Seven = Ok.add(Op::Cast, types::int32Ty(), {Ok.constInt(7)});
  Instr *Add2 = Ok.add(Op::BinOp, types::int32Ty(), {Y, Seven});
  Add2->index = int64_t(bc::BinOpKind::Add);
  Ok.ret(Add2);
  EXPECT_FALSE(checkConstantRanges(Ok.fn));
}

// ---- HeapOwnership ----------------------------------------------------------

TypeRef heapArray() {
  return types::arrayTy(types::float64Ty(), 1, types::Layout::C,
                        types::AddrSpace::Global);
}

// a = np.empty(n); v = a[1:]; x = v[0]: a's block is freed at the return
// (a scalar read from it does not carry it); returning the view hands the
// block to the caller.
TEST(HeapOwnership, ReturnedViewsEscapeScalarsDoNot) {
  for (bool ReturnView : {false, true}) {
    Builder B;
    Instr *N = B.param(types::int64Ty());
    Instr *A = B.intrinsic(IntrinsicId::np_empty, heapArray(), {N});
    Instr *Sl = B.add(Op::BuildSlice, types::sliceTy(), {B.constInt(1)});
    Instr *V = B.add(Op::GetItem,
                     types::arrayTy(types::float64Ty(), 1, types::Layout::A,
                                    types::AddrSpace::Global),
                     {A, Sl});
    Instr *X = B.add(Op::GetItem, types::float64Ty(), {V, B.constInt(0)});
    B.ret(ReturnView ? V : X);
    B.finish();
    EXPECT_TRUE(assignHeapOwnership(B.fn));
    EXPECT_EQ(A->heapSlot, 0);
    EXPECT_FALSE(A->heapKeep);
    EXPECT_EQ(B.fn.heapSlotEscapes, std::vector<bool>{ReturnView});
    EXPECT_EQ(V->heapSlot, -1);
  }
}

// for ...: b = np.empty(n); a = b (a loop phi): the slot keeps every
// block until the return; an allocation whose arrays never meet a phi
// frees the previous block when it runs again.
TEST(HeapOwnership, PhisKeepBlocks) {
  for (bool ThroughPhi : {false, true}) {
    Builder B;
    ir::Block *Entry = B.at, *Loop = B.fn.newBlock(), *Exit = B.fn.newBlock();
    Instr *N = B.param(types::int64Ty());
    Instr *A0 = B.intrinsic(IntrinsicId::np_zeros, heapArray(), {N});
    B.add(Op::Jump, types::noneTy())->succs = {Loop};
    B.at = Loop;
    Instr *Phi = B.add(Op::Phi, heapArray());
    Instr *Fresh = B.intrinsic(IntrinsicId::np_empty, heapArray(), {N});
    Phi->operands = {A0, ThroughPhi ? Fresh : A0};
    Phi->incoming = {Entry, Loop};
    Instr *Br =
        B.add(Op::Branch, types::noneTy(), {B.constInt(1, types::boolTy())});
    Br->succs = {Loop, Exit};
    B.at = Exit;
    B.ret(B.add(Op::Const, types::noneTy()));
    B.fn.recomputeCFG();
    B.finish();
    EXPECT_TRUE(assignHeapOwnership(B.fn));
    EXPECT_TRUE(A0->heapKeep); // always meets the phi
    EXPECT_EQ(Fresh->heapKeep, ThroughPhi);
    EXPECT_NE(A0->heapSlot, Fresh->heapSlot);
    EXPECT_EQ(B.fn.heapSlotEscapes, (std::vector<bool>{false, false}));
  }
}

// A device-function call returning an array hands over the callee's blocks
// (a slot); one returning a number does not; a function allocating nothing
// has no slots.
TEST(HeapOwnership, DeviceFunctionResults) {
  Builder B;
  Instr *N = B.param(types::int64Ty());
  Instr *F = B.add(Op::Global, types::functionTy("make"));
  Instr *Arr = B.add(Op::Call, heapArray(), {F, N});
  Instr *Num = B.add(Op::Call, types::float64Ty(), {F, N});
  B.ret(B.add(Op::Const, types::noneTy()));
  B.finish();
  EXPECT_TRUE(assignHeapOwnership(B.fn));
  EXPECT_EQ(Arr->heapSlot, 0);
  EXPECT_EQ(Num->heapSlot, -1);
  EXPECT_TRUE(
      returnsHeapBlocks(types::tupleTy({types::int64Ty(), heapArray()})));
  EXPECT_FALSE(returnsHeapBlocks(types::float64Ty()));

  Builder None;
  None.ret(None.param(array1d()));
  None.finish();
  EXPECT_FALSE(assignHeapOwnership(None.fn));
  EXPECT_TRUE(None.fn.heapSlotEscapes.empty());
}

} // namespace
} // namespace pcj::transforms
