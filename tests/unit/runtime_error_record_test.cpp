// The host side of the GPU error record (runtime/ErrorRecord.h) without a
// GPU: a site table as the compiler writes it (lower/NvptxErrors.cpp) is
// parsed, and a filled record becomes the error the CPU executor would
// raise for the same failure (same message shape).
#include "runtime/ErrorRecord.h"
#include "runtime/ErrorRecordAbi.h"

#include <gtest/gtest.h>

using namespace pcj::rt;

namespace {

std::string site(std::initializer_list<std::string> Fields) {
  std::string S;
  for (const std::string &F : Fields)
    S += F + kFieldEnd;
  return S;
}

ErrorRecord record(uint32_t Site, std::initializer_list<int64_t> Values = {}) {
  ErrorRecord R{};
  R.state = kRecordWritten;
  R.site = Site;
  R.module = 7;
  R.thread[0] = 44;
  R.thread[1] = 1;
  R.block[0] = 2;
  R.block[2] = 3;
  unsigned K = 0;
  for (int64_t V : Values)
    R.values[K++] = V;
  return R;
}

const std::string Table =
    site({"", "AssertionError", "negative input", "k", "/x/k.py", "12", "-1",
          "0"}) +
    site({"", "OverflowError", "", "k", "/x/k.py", "14", "-1", "0"}) +
    site({"KernelZeroDivisionError", "", "division by zero", "outer.<locals>.k",
          "/x/k.py", "20", "-1", "0"}) +
    site({"KernelIndexError", "", "", "k2", "/x/k.py", "30", "1", "2"}) +
    site({"KernelIndexError", "", "", "k5", "/x/k.py", "31", "3", "0"});

TEST(ErrorRecord, ParsesTheSiteTable) {
  std::vector<ErrorSite> Sites;
  ASSERT_TRUE(parseErrorSites(Table, Sites));
  ASSERT_EQ(Sites.size(), 5u);
  EXPECT_EQ(Sites[0].exception, "AssertionError");
  EXPECT_EQ(Sites[0].message, "negative input");
  EXPECT_EQ(Sites[0].line, 12);
  EXPECT_EQ(Sites[2].errorClass, "KernelZeroDivisionError");
  EXPECT_EQ(Sites[2].kernel, "outer.<locals>.k");
  EXPECT_EQ(Sites[3].axis, 1);
  EXPECT_EQ(Sites[3].rank, 2);
}

TEST(ErrorRecord, RefusesMalformedTables) {
  std::vector<ErrorSite> Sites;
  EXPECT_FALSE(parseErrorSites(Table.substr(0, Table.size() - 1), Sites));
  Sites.clear();
  EXPECT_FALSE(
      parseErrorSites(site({"", "E", "", "k", "f", "1", "-1"}), Sites));
  Sites.clear();
  EXPECT_FALSE(
      parseErrorSites(site({"", "E", "", "k", "f", "x", "-1", "0"}), Sites));
  Sites.clear();
  // An axis beyond the recorded rank.
  EXPECT_FALSE(parseErrorSites(
      site({"KernelIndexError", "", "", "k", "f", "1", "2", "2"}), Sites));
}

TEST(ErrorRecord, RaiseAndAssertMessages) {
  std::vector<ErrorSite> Sites;
  ASSERT_TRUE(parseErrorSites(Table, Sites));
  KernelRaised A = errorOfRecord(record(0), &Sites);
  EXPECT_STREQ(A.what(),
               "negative input in kernel 'k' (/x/k.py:12), thread (44, 1, 0) "
               "block (2, 0, 3)");
  EXPECT_EQ(A.errorClass(), "");
  EXPECT_EQ(A.exception(), "AssertionError");
  EXPECT_EQ(A.file(), "/x/k.py");
  EXPECT_EQ(A.line(), 12);
  EXPECT_EQ(A.thread()[0], 44u);
  EXPECT_EQ(A.block()[2], 3u);
  // No message: the class name, as the CPU executor words it.
  EXPECT_STREQ(errorOfRecord(record(1), &Sites).what(),
               "OverflowError in kernel 'k' (/x/k.py:14), thread (44, 1, 0) "
               "block (2, 0, 3)");
  KernelRaised Z = errorOfRecord(record(2), &Sites);
  EXPECT_EQ(Z.errorClass(), "KernelZeroDivisionError");
  EXPECT_STREQ(Z.what(),
               "division by zero in kernel 'outer.<locals>.k' (/x/k.py:20), "
               "thread (44, 1, 0) block (2, 0, 3)");
}

TEST(ErrorRecord, IndexErrorsShowTheIndexAndShape) {
  std::vector<ErrorSite> Sites;
  ASSERT_TRUE(parseErrorSites(Table, Sites));
  // Rank 2: index (3, 5) into shape (4, 5), axis 1.
  KernelRaised I = errorOfRecord(record(3, {3, 5, 0, 0, 4, 5, 0, 0}), &Sites);
  EXPECT_EQ(I.errorClass(), "KernelIndexError");
  EXPECT_STREQ(
      I.what(),
      "index 5 is out of bounds for axis 1 with size 5 (index (3, 5) "
      "into shape (4, 5)) in kernel 'k2' (/x/k.py:30), thread (44, 1, 0) "
      "block (2, 0, 3)");
  // More dimensions than the record holds: the axis' index and extent.
  KernelRaised J = errorOfRecord(record(4, {-9, 0, 0, 0, 8}), &Sites);
  EXPECT_STREQ(
      J.what(),
      "index -9 is out of bounds for axis 3 with size 8 in kernel 'k5' "
      "(/x/k.py:31), thread (44, 1, 0) block (2, 0, 3)");
}

TEST(ErrorRecord, UnknownSite) {
  std::vector<ErrorSite> Sites;
  ASSERT_TRUE(parseErrorSites(Table, Sites));
  KernelRaised U = errorOfRecord(record(99), &Sites);
  EXPECT_EQ(U.errorClass(), "KernelError");
  EXPECT_NE(std::string(U.what()).find("unknown error site"),
            std::string::npos);
  EXPECT_NE(std::string(errorOfRecord(record(0), nullptr).what())
                .find("unknown error site"),
            std::string::npos);
}

} // namespace
