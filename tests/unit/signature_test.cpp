// Tests for the signature parser (compiler/types/Signature.cpp): every type
// a signature can name reads back from the spelling Type::str() or numba's
// shorthand gives, and malformed text is a Signature error at a position.
#include "support/Diagnostics.h"
#include "types/CharSeq.h"
#include "types/DateTime.h"
#include "types/Signature.h"

#include <gtest/gtest.h>

namespace pcj::types {
namespace {

TypeRef sampleRecord() {
  return recordTy({"x", "n", "z"}, {float64Ty(), intTy(8), complexTy(64)},
                  {0, 8, 12}, 24, 4);
}

TEST(Signature, ArraysAndLayouts) {
  EXPECT_EQ(parseType("float32[:]"), arrayTy(float32Ty(), 1, Layout::A));
  EXPECT_EQ(parseType("float32[::1]"), arrayTy(float32Ty(), 1, Layout::C));
  EXPECT_EQ(parseType("int8[:, ::1]"), arrayTy(intTy(8), 2, Layout::C));
  EXPECT_EQ(parseType("int8[::1, :, :]"), arrayTy(intTy(8), 3, Layout::F));
  EXPECT_EQ(parseType("(int32, float64[:])"),
            tupleTy({int32Ty(), arrayTy(float64Ty(), 1, Layout::A)}));
  EXPECT_EQ(parseType("(int32,)"), tupleTy({int32Ty()}));
}

TEST(Signature, ArgumentListsMayEndInAComma) {
  // numba reads "void(int64,)" (a one-element tuple's spelling) as
  // "void(int64)".
  Signature S = parseSignature("void(int64,)");
  ASSERT_EQ(S.args.size(), 1u);
  EXPECT_EQ(S.args[0], intTy(64));
  EXPECT_EQ(parseSignature("(float32[:], int32 , )").args.size(), 2u);
  EXPECT_THROW(parseSignature("void(,)"), CompileError);
  EXPECT_THROW(parseSignature("void(int64,,)"), CompileError);
}

TEST(Signature, RecordsReadBackFromTheirPrintedName) {
  TypeRef R = sampleRecord();
  EXPECT_EQ(R->str(), "Record(x: float64 @0, n: int8 @8, z: complex64 @12; "
                      "24 bytes, align 4)");
  EXPECT_EQ(parseType(R->str()), R);
  TypeRef A = arrayTy(R, 2, Layout::C);
  EXPECT_EQ(parseType(R->str() + "[:, ::1]"), A);
  Signature S = parseSignature("void(" + R->str() + "[:], int32)");
  ASSERT_EQ(S.args.size(), 2u);
  EXPECT_EQ(S.args[0], arrayTy(R, 1, Layout::A));
  EXPECT_EQ(S.ret, voidTy());
}

TEST(Signature, NestedArraysAndRecordsInRecords) {
  TypeRef V = nestedArrayTy(float32Ty(), {3, 2});
  EXPECT_EQ(V->str(), "nestedarray(float32, (3, 2))");
  EXPECT_EQ(V->byteSize(), 24u);
  EXPECT_EQ(nestedArrayTy(intTy(8), {5})->str(), "nestedarray(int8, (5,))");
  TypeRef Inner = sampleRecord();
  TypeRef R =
      recordTy({"n", "v", "in"}, {int32Ty(), V, Inner}, {0, 4, 32}, 56, 8);
  EXPECT_EQ(parseType(R->str()), R);
  EXPECT_EQ(parseType(R->str() + "[::1]"), arrayTy(R, 1, Layout::C));
  EXPECT_EQ(nestedArrayView(V),
            arrayTy(float32Ty(), 2, Layout::C, AddrSpace::Generic));
  EXPECT_EQ(nestedArrayView(V)->str(), "array(float32, 2d, C, generic)");
  EXPECT_EQ(fieldAddressAlign(R, 1), 4u);
  EXPECT_EQ(fieldAddressAlign(R, 2), 8u);
}

void expectError(const std::string &Text, const std::string &Part) {
  try {
    parseType(Text);
    ADD_FAILURE() << Text << " parsed";
  } catch (const CompileError &E) {
    EXPECT_EQ(E.kind(), ErrorKind::Signature);
    EXPECT_NE(std::string(E.what()).find(Part), std::string::npos) << E.what();
  }
}

TEST(Signature, MalformedRecordsAreErrors) {
  expectError("Record(x: float64 @0; 8 bytes, align 3)", "power of two");
  expectError("Record(x: float64 @4; 8 bytes, align 8)", "does not fit");
  expectError("Record(x: float64[:] @0; 8 bytes, align 8)",
              "record fields must be numbers, bools, datetimes, strings");
  expectError("Record(x: nestedarray(float64, ()) @0; 8 bytes, align 8)",
              "1 to 8 dimensions");
  expectError("Record(x: nestedarray(float64, (2,)) @0; 8 bytes, align 8)",
              "does not fit");
  expectError("Record(x: float64 @0; 8 bites, align 8)", "expected 'bytes'");
  expectError("Record(x float64 @0; 8 bytes, align 8)", "expected ':'");
  expectError("Record(: float64 @0; 8 bytes, align 8)",
              "expected a field name");
  expectError("Record(x: float64 @; 8 bytes, align 8)", "expected a number");
}

TEST(Signature, DatetimesAndStrings) {
  TypeRef D = datetimeTy("D"), Ms = timedeltaTy("ms");
  EXPECT_EQ(parseType("datetime64[D]"), D);
  EXPECT_EQ(parseType("timedelta64[ms][::1]"), arrayTy(Ms, 1, Layout::C));
  EXPECT_EQ(parseType("timedelta64"), timedeltaTy(""));
  EXPECT_EQ(parseType("CharSeq(12)[:]"),
            arrayTy(charSeqTy(8, 12), 1, Layout::A));
  EXPECT_EQ(parseType("UnicodeCharSeq(5)"), charSeqTy(32, 5));
  EXPECT_EQ(D->str(), "datetime64[D]");
  EXPECT_EQ(charSeqTy(32, 5)->str(), "[unichr x 5]");
  EXPECT_EQ(charSeqTy(32, 5)->byteSize(), 20u);
  EXPECT_EQ(scalarAlign(charSeqTy(8, 7)), 1u);
  EXPECT_EQ(scalarFromTypestr("<M8[D]"), D);
  EXPECT_EQ(scalarFromTypestr("|S7"), charSeqTy(8, 7));
  EXPECT_EQ(typestrOf(Ms), "<m8[ms]");
  EXPECT_EQ(typestrOf(charSeqTy(32, 5)), "<U5");
  EXPECT_EQ(scalarFromTypestr("<M8[fortnight]"), nullptr);
  TypeRef R = parseType("Record(t: datetime64[s] @0, n: UnicodeCharSeq(3) @8; "
                        "24 bytes, align 8)");
  ASSERT_EQ(R->kind(), Kind::Record);
  EXPECT_EQ(R->elems()[0], datetimeTy("s"));
  EXPECT_EQ(R->elems()[1], charSeqTy(32, 3));
  expectError("CharSeq(0)", "no characters");
}

TEST(Signature, TimeUnits) {
  std::string U;
  EXPECT_TRUE(commonTimeUnit("s", "ms", U) && U == "ms");
  EXPECT_TRUE(commonTimeUnit("D", "h", U) && U == "h");
  EXPECT_TRUE(commonTimeUnit("Y", "M", U) && U == "M");
  EXPECT_TRUE(commonTimeUnit("", "W", U) && U == "W");
  EXPECT_FALSE(commonTimeUnit("M", "D", U));
  EXPECT_EQ(timeUnitFactor("D", "h"), 24);
  EXPECT_EQ(timeUnitFactor("W", "s"), 7 * 86400);
  EXPECT_EQ(timeUnitFactor("Y", "M"), 12);
  EXPECT_EQ(timeUnitFactor("s", "ns"), 1000000000);
}

TEST(Signature, PointersForForeignFunctions) {
  Signature S = parseSignature(
      "int32(CPointer(float32), voidptr, CPointer(CPointer(int8)))");
  ASSERT_EQ(S.args.size(), 3u);
  EXPECT_EQ(S.args[0], pointerTy(float32Ty()));
  EXPECT_EQ(S.args[0]->str(), "float32*");
  EXPECT_EQ(S.args[1], pointerTy(voidTy()));
  EXPECT_EQ(S.args[1]->str(), "void*");
  EXPECT_EQ(S.args[2]->inner(), pointerTy(intTy(8)));
  EXPECT_EQ(S.args[2]->str(), "int8**");
  EXPECT_TRUE(S.args[0]->isRuntime());
  EXPECT_EQ(S.args[0]->byteSize(), 8u);
  expectError("CPointer(float32[:])", "only scalars and pointers");
  expectError("CPointer(float32", "expected ')'");
}

} // namespace
} // namespace pcj::types
