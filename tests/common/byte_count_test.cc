#include "common/byte_count.h"

#include <gtest/gtest.h>

namespace common {
namespace {

TEST(ByteCount, PlainBytesAndEveryUnit) {
  EXPECT_EQ(ParseByteCount("0"), 0.0L);
  EXPECT_EQ(ParseByteCount("00012"), 12.0L);
  EXPECT_EQ(ParseByteCount("9223372036854775807"), 9223372036854775807.0L);
  EXPECT_EQ(ParseByteCount("12B"), 12.0L);
  EXPECT_EQ(ParseByteCount("3KB"), 3e3L);
  EXPECT_EQ(ParseByteCount("3MB"), 3e6L);
  EXPECT_EQ(ParseByteCount("3GB"), 3e9L);
  EXPECT_EQ(ParseByteCount("3TB"), 3e12L);
  EXPECT_EQ(ParseByteCount("3KiB"), 3.0L * 1024);
  EXPECT_EQ(ParseByteCount("3MiB"), 3.0L * 1024 * 1024);
  EXPECT_EQ(ParseByteCount("3GiB"), 3.0L * 1024 * 1024 * 1024);
  EXPECT_EQ(ParseByteCount("3TiB"), 3.0L * 1024 * 1024 * 1024 * 1024);
  EXPECT_EQ(ParseByteCount("512mib"), ParseByteCount("512MiB"));
  EXPECT_EQ(ParseByteCount("80gb"), ParseByteCount("80GB"));
}

TEST(ByteCount, FractionsNeedAUnitAndRoundDownExactly) {
  EXPECT_EQ(ParseByteCount("1.5GiB"), 1610612736.0L);
  EXPECT_EQ(ParseByteCount(".5MiB"), 524288.0L);
  EXPECT_EQ(ParseByteCount("0.3GB"), 3e8L);  // 0.3 has no binary fraction: a float product would give 299999999
  EXPECT_EQ(ParseByteCount("0.7GB"), 7e8L);
  EXPECT_EQ(ParseByteCount("1.1TiB"), 1209462790553.0L);  // 1209462790553.6
  EXPECT_EQ(ParseByteCount("0.999999999B"), 0.0L);
  EXPECT_EQ(ParseByteCount("1.5"), std::nullopt);
  EXPECT_EQ(ParseByteCount("1."), std::nullopt);
}

TEST(ByteCount, AnythingElseIsRefused) {
  for (const char* text : {"", "B", ".", ".MiB", "-1", "+1", "1e9", "inf", "nan", "1 MiB", "1MiB ", "80XB", "80M",
                           "80mbit", "1..5MiB", "1.5.MiB", "0x10", "150MB5"}) {
    EXPECT_EQ(ParseByteCount(text), std::nullopt) << text;
  }
}

TEST(ByteCount, HugeCountsStayHugeForTheRangeCheck) {
  EXPECT_GE(*ParseByteCount("9223372036854775808"), 0x1p63L);
  EXPECT_GE(*ParseByteCount("9999999999TB"), 0x1p63L);
  EXPECT_GE(*ParseByteCount("99999999999999999999999999999999999999999999999999"), 0x1p63L);
}

}  // namespace
}  // namespace common
