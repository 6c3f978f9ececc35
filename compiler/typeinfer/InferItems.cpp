// Type inference of subscripts and record fields: a[i], a[i] = v, r.x,
// r['x'], r[0] (the Inferrer's getitem/setitem rules; see Inferrer.h).
#include "typeinfer/Inferrer.h"

#include "types/Promotion.h"

namespace pcj::typeinfer::detail {

// The result of indexing array Arr with Idx (an int, a slice, or a tuple of
// them): the element when every dimension gets an int, else a view.  A view
// of a C array stays C when it is ints, then at most one slice without a
// step, then only full slices (`:`).
TypeRef Inferrer::arrayIndexResult(const Instr *I, TypeRef Arr, TypeRef Idx) {
  unsigned N = Arr->ndim();
  std::vector<TypeRef> Parts =
      Idx->isTuple() ? Idx->elems() : std::vector<TypeRef>{Idx};
  std::vector<IndexStep> Steps;
  std::string Err;
  if (!expandArrayIndex(Parts, N, Steps, Err))
    fail(I, Err);
  unsigned Ints = 0, NewAxes = 0;
  bool Contig = Arr->layout() == Layout::C;
  int Stage = 0; // 0: ints, 1: after the first slice
  for (const IndexStep &S : Steps) {
    if (S.newAxis) { // extent 1: does not change contiguity
      ++NewAxes;
      continue;
    }
    TypeRef P = S.part >= 0 ? Parts[S.part] : sliceTy();
    if (P->isInt()) {
      ++Ints;
      if (Stage != 0)
        Contig = false;
      continue;
    }
    bool Full = P->bits() == 0;
    if (Stage == 1 && !Full)
      Contig = false;
    if (P->bits() & 4)
      Contig = false; // a step (even 1) may skip elements
    Stage = 1;
  }
  if (Ints == N && NewAxes == 0) {
    if (Parts.size() != N) // an ellipsis standing for no dimension
      fail(I, "an index with '...' that selects a single element",
           "index with one integer per dimension");
    return Arr->dtype();
  }
  return arrayTy(Arr->dtype(), N - Ints + NewAxes,
                 Contig ? Layout::C : Layout::A, Arr->addrSpace());
}

// The value of field F of a record (or of a tuple): a nested-array field
// reads as an array view, which must be aligned for its elements.
TypeRef Inferrer::fieldValue(const Instr *I, TypeRef T, int F) {
  TypeRef FT = T->elems()[F];
  if (FT->kind() != Kind::NestedArray)
    return FT;
  if (fieldAddressAlign(T, F) < scalarAlign(FT->dtype()))
    fail(I,
         "array field '" + T->fields()[F] + "' at byte " +
             std::to_string(T->offsets()[F]) + " is not aligned for its " +
             FT->dtype()->str() + " elements in kernels",
         "build the dtype with align=True");
  return nestedArrayView(FT);
}

// a.x of an array of records (NumPy's recarray attribute): a view of field
// F of every record (same shape and strides, layout A).  Scalar fields
// only, and aligned for their type at every record.
TypeRef Inferrer::recordArrayField(const Instr *I, TypeRef Arr, int F) {
  TypeRef Rec = Arr->dtype(), FT = Rec->elems()[F];
  const std::string &Name = Rec->fields()[F];
  if (!FT->isNumeric())
    fail(I,
         "field '" + Name + "' of type " + FT->str() +
             " of a record array cannot be a view in kernels",
         "index the records instead: a[i]." + Name);
  if (fieldAddressAlign(Rec, F) < scalarAlign(FT))
    fail(I,
         "field '" + Name + "' at byte " + std::to_string(Rec->offsets()[F]) +
             " of a record array is not aligned for its " + FT->str() +
             " values in kernels",
         "build the dtype with align=True, or index the records: a[i]." + Name);
  return arrayTy(FT, Arr->ndim(), Layout::A, Arr->addrSpace());
}

// The field a record index names: a constant string (r['x']) or a constant
// int (r[0], the fields in order, negative from the end like NumPy).
int Inferrer::recordFieldIndex(const Instr *I, TypeRef Rec, const Instr *Idx) {
  bc::ConstValue C;
  if (!stdlib::ArgInfo{Idx->type, Idx->weak, Idx}.constant(C) ||
      (C.kind != bc::ConstValue::Kind::Str &&
       C.kind != bc::ConstValue::Kind::Int))
    fail(I, "record fields are indexed with a constant string or int, e.g. "
            "r['x'] or r[0]");
  int F = ir::recordFieldOf(Rec, C);
  if (F < 0 && C.kind == bc::ConstValue::Kind::Int)
    fail(I,
         "record index " + C.repr() + " is out of range for the " +
             std::to_string(Rec->fields().size()) + " fields of " + Rec->str(),
         "", ErrorKind::Index);
  if (F < 0)
    fail(I, "'" + Rec->str() + "' has no field '" + C.text + "'", "",
         ErrorKind::Name);
  return F;
}

// A store into record field F: a number of a convertible kind; into a
// nested record, a record of its type; into a nested-array field, an array
// of its dimensions (copied element by element) or a number (stored into
// every element).  Sets I's argTypes entry K: what the stored value is cast
// to (none for an array or a record).
void Inferrer::recordStore(Instr *I, TypeRef Rec, int F, const Instr *Val,
                           size_t K) {
  TypeRef FT = Rec->elems()[F];
  TypeRef VT = Val->type;
  I->argTypes.assign(I->operands.size(), nullptr);
  std::string Where =
      "record field '" + Rec->fields()[F] + "' of type " + FT->str();
  if (FT->kind() == Kind::Record) { // a nested record: copied whole
    if (VT != FT)
      fail(I, "cannot store " + origin(Val) + " into " + Where);
    return;
  }
  if (FT->kind() == Kind::NestedArray) {
    fieldValue(I, Rec, F); // alignment
    TypeRef Elem = FT->dtype();
    if (VT->isArray()) {
      if (VT->ndim() != FT->ndim() || !VT->dtype()->isNumeric() ||
          (VT->dtype()->isComplex() && !Elem->isComplex()))
        fail(I, "cannot store " + origin(Val) + " into " + Where,
             "store an array of " + std::to_string(FT->ndim()) +
                 " dimension(s) with the field's shape, or a number");
      return;
    }
    if (!VT->isNumeric() || (VT->isComplex() && !Elem->isComplex()))
      fail(I, "cannot store " + origin(Val) + " into " + Where);
    I->argTypes[K] = Elem;
    return;
  }
  if (!storeOpaque(I, FT, Val, Where) &&
      (!VT->isNumeric() || !FT->isNumeric() ||
       (VT->isComplex() && !FT->isComplex())))
    fail(I, "cannot store " + origin(Val) + " into " + Where);
  I->argTypes[K] = FT;
}

// An array index that is a 0-d integer array (a[i] with i = np.asarray(3))
// is its value, as in NumPy: the element is read (i[()]) before the index.
//   %r = getitem %a, %i          ; %i: array(int64, 0d)
//   -> %e = const () ; %v = getitem %i, %e ; %r = getitem %a, %v
void Inferrer::zeroDimIndex(Instr *I) {
  Instr *Idx = I->operands[1];
  TypeRef T = Idx->type;
  if (!T->isArray() || T->ndim() != 0 || !T->dtype()->isInt())
    return;
  Instr *E = F.insert(I->parent, I, Op::Const, I->loc);
  E->cval.kind = bc::ConstValue::Kind::Tuple;
  InferredType ET = typeOfConst(E, E->cval);
  E->type = ET.type;
  E->weak = ET.weak;
  Instr *V = F.insert(I->parent, I, Op::GetItem, I->loc, {Idx, E});
  V->type = T->dtype();
  V->argTypes.assign(2, nullptr);
  I->operands[1] = V;
}

// p[i] of a CPointer(T): T, with the index an integer (cast to int64).  No
// bounds are known: the address is the caller's promise.
TypeRef Inferrer::pointerElement(Instr *I, TypeRef Ptr, const Instr *Idx) {
  TypeRef Elem = Ptr->inner();
  if (Elem->kind() == Kind::Void)
    fail(I, "a voidptr cannot be indexed",
         "declare the parameter as CPointer(dtype)");
  if (!Elem->isNumeric())
    fail(I, "indexing a pointer to " + Elem->str() +
                " is not supported in kernels");
  if (!Idx->type->isInt())
    fail(I, "pointer indices must be integers, not " + Idx->type->str());
  I->argTypes.assign(I->operands.size(), nullptr);
  I->argTypes[1] = int64Ty();
  return Elem;
}

bool Inferrer::inferGetItem(Instr *I, InferredType &Out) {
  if (I->operands[0]->type->isArray())
    zeroDimIndex(I);
  Instr *Obj = I->operands[0], *Idx = I->operands[1];
  TypeRef T = Obj->type;
  I->argTypes.assign(2, nullptr);
  if (T->isArray()) {
    Out = {arrayIndexResult(I, T, Idx->type), false};
    return true;
  }
  // Color["red"] on an Enum class (a namespace of its members) is the
  // attribute Color.red.
  bc::ConstValue Name;
  if (T->kind() == Kind::Module && T->name().rfind("enum ", 0) == 0 &&
      stdlib::ArgInfo{Idx->type, Idx->weak, Idx}.constant(Name) &&
      Name.kind == bc::ConstValue::Kind::Str) {
    I->op = Op::GetAttr;
    I->str = Name.text;
    I->operands = {Obj};
    I->argTypes.clear();
    return infer(I, Out);
  }
  if (T->kind() == Kind::Record) {
    // r[()]: the record itself (a 0-d structured array argument is typed
    // as its record; NumPy's r[()] is the element).
    if (Idx->type->isTuple() && Idx->type->elems().empty()) {
      Out = {T, false};
      return true;
    }
    Out = {fieldValue(I, T, recordFieldIndex(I, T, Idx)), false};
    return true;
  }
  if (T->kind() == Kind::Pointer) {
    Out = {pointerElement(I, T, Idx), false};
    return true;
  }
  if (T->isTuple()) {
    const auto &E = T->elems();
    bc::ConstValue C;
    stdlib::ArgInfo AI{Idx->type, Idx->weak, Idx};
    if (AI.constant(C) && C.kind == bc::ConstValue::Kind::Int) {
      int64_t K = !C.isSmallInt() ? -1
                  : C.i < 0       ? C.i + int64_t(E.size())
                                  : C.i;
      if (K < 0 || K >= int64_t(E.size()))
        fail(I, "tuple index " + C.repr() + " is out of range for " + T->str(),
             "", ErrorKind::Index);
      I->index = K;
      Out = {E[K], false};
      return true;
    }
    if (!Idx->type->isIntegral())
      fail(I, "tuple indices must be integers, not " + Idx->type->str());
    if (E.empty())
      fail(I, "index into an empty tuple");
    // A run-time index: the elements' common type (all numeric, or equal).
    Operand Acc{E[0], false};
    for (TypeRef X : E) {
      if (X == Acc.type)
        continue;
      TypeRef U = X->isNumeric() && Acc.type->isNumeric()
                      ? unify(Acc, {X, false})
                      : nullptr;
      if (!U)
        fail(I,
             "a tuple of " + T->str() + " can only be indexed with a constant",
             "index with a literal, or make the elements one type");
      Acc.type = U;
    }
    I->index = -1; // dynamic
    Out = {Acc.type, false};
    return true;
  }
  fail(I, "'" + T->str() + "' is not subscriptable in kernels");
}

// A store into the array view Target (a[i:j] = x, a[:, k] = x): a number
// (converted to the element type and stored into every element) or an
// array of numbers whose shape broadcasts to the view's (NumPy's rules;
// checked when the kernel runs).
void Inferrer::sliceStore(Instr *I, TypeRef Target, const Instr *Val) {
  TypeRef VT = Val->type, Elem = Target->dtype();
  std::string Into = "an array slice of " + Elem->str();
  if (!Elem->isNumeric())
    fail(I,
         "assigning to a slice of an array of " + Elem->str() +
             " is not supported in kernels",
         "assign the elements in a loop");
  TypeRef Scalar = VT->isArray() ? VT->dtype() : VT;
  if (!Scalar->isNumeric())
    fail(I, "cannot store " + origin(Val) + " into " + Into);
  if (Scalar->isComplex() && !Elem->isComplex())
    fail(I, "cannot store a complex value into " + Into);
  if (VT->isArray() && VT->ndim() > Target->ndim())
    fail(I,
         "cannot store " + origin(Val) + " into " + Into + " of " +
             std::to_string(Target->ndim()) + " dimension(s)",
         "the source may have at most the slice's dimensions (NumPy "
         "broadcasting)");
  I->argTypes = {nullptr, nullptr, VT->isArray() ? nullptr : Elem};
}

bool Inferrer::inferSetItem(Instr *I) {
  if (I->operands[0]->type->isArray())
    zeroDimIndex(I);
  Instr *Obj = I->operands[0], *Idx = I->operands[1], *Val = I->operands[2];
  TypeRef T = Obj->type;
  if (T->kind() == Kind::Record) {
    // r[()] = v: the whole record, from a record of the same dtype.
    if (Idx->type->isTuple() && Idx->type->elems().empty()) {
      if (Val->type != T)
        fail(I, "cannot store " + origin(Val) + " into a record of " + T->str(),
             "r[()] = v stores a whole record of the same dtype");
      I->argTypes = {nullptr, nullptr, nullptr};
      return true;
    }
    recordStore(I, T, recordFieldIndex(I, T, Idx), Val, 2);
    return true;
  }
  if (T->kind() == Kind::Pointer) {
    TypeRef Elem = pointerElement(I, T, Idx);
    if (!Elem->isNumeric() || !Val->type->isNumeric() ||
        (Val->type->isComplex() && !Elem->isComplex()))
      fail(I, "cannot store " + origin(Val) + " through a pointer to " +
                  Elem->str());
    I->argTypes = {nullptr, int64Ty(), Elem};
    return true;
  }
  if (T->isArray() && T->dtype()->kind() == Kind::Record &&
      !arrayIndexResult(I, T, Idx->type)->isArray()) {
    if (Val->type != T->dtype())
      fail(I, "cannot store " + origin(Val) + " into an array of " +
                  T->dtype()->str());
    I->argTypes = {nullptr, nullptr, nullptr};
    return true;
  }
  if (!T->isArray())
    fail(I, "'" + T->str() + "' does not support item assignment in kernels",
         T->isTuple() ? "tuples are immutable" : "");
  if (T->addrSpace() == AddrSpace::Const)
    fail(I,
         "arrays in constant memory (global NumPy arrays and "
         "cuda.const.array_like) are read-only",
         "copy the values into a cuda.local.array to modify them");
  TypeRef Target = arrayIndexResult(I, T, Idx->type);
  if (Target->isArray()) { // a[i:j] = x: lower/SliceStore.cpp
    sliceStore(I, Target, Val);
    return true;
  }
  if (storeOpaque(I, T->dtype(), Val, "an array of " + T->dtype()->str())) {
    I->argTypes = {nullptr, nullptr, T->dtype()};
    return true;
  }
  if (!Val->type->isNumeric())
    fail(I, "cannot store " + origin(Val) + " into an array of " +
                T->dtype()->str());
  if (Val->type->isComplex() && !T->dtype()->isComplex())
    fail(I,
         "cannot store a complex value into an array of " + T->dtype()->str());
  I->argTypes = {nullptr, nullptr, T->dtype()};
  return true;
}

} // namespace pcj::typeinfer::detail
