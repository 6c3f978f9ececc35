// SHA-256 against the FIPS 180-4 / NIST test vectors.
#include "support/Sha256.h"

#include <gtest/gtest.h>

using pcj::Sha256;

TEST(Sha256, NistVectors) {
  EXPECT_EQ(Sha256().hexDigest(),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(Sha256().update("abc").hexDigest(),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(
      Sha256()
          .update("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")
          .hexDigest(),
      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  Sha256 Million;
  std::string A(1000, 'a');
  for (int I = 0; I < 1000; ++I)
    Million.update(A);
  EXPECT_EQ(Million.hexDigest(),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256, SplitUpdatesEqualOneUpdate) {
  std::string S;
  for (int I = 0; I < 300; ++I)
    S += char(I * 7);
  for (size_t Cut = 0; Cut <= S.size(); Cut += 13)
    EXPECT_EQ(
        Sha256().update(S.substr(0, Cut)).update(S.substr(Cut)).hexDigest(),
        Sha256().update(S).hexDigest());
}

TEST(Sha256, FieldsAreUnambiguous) {
  EXPECT_NE(Sha256().field("ab").field("c").hexDigest(),
            Sha256().field("a").field("bc").hexDigest());
}
