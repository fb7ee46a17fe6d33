#include "common/csv.h"

#include <gtest/gtest.h>

#include "common/error.h"

namespace common {
namespace {

TEST(Csv, ParsesHeaderRowsAndLineNumbers) {
  CsvTable t = CsvTable::Parse("f.csv", "id, lower ,upper\r\n\na,1,2\nb , 3,4\n");
  ASSERT_EQ(t.header().size(), 3u);
  EXPECT_EQ(t.header()[1], "lower");
  ASSERT_EQ(t.rows().size(), 2u);
  EXPECT_EQ(t.rows()[0].line, 3);
  EXPECT_EQ(t.rows()[1].line, 4);
  EXPECT_EQ(t.rows()[1].fields[0], "b");
  EXPECT_EQ(t.Integer(t.rows()[1], t.RequireColumn("upper")), 4);
}

TEST(Csv, ReportsFileAndLine) {
  try {
    CsvTable::Parse("f.csv", "a,b\n1,2\n1,2,3\n");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "f.csv:3: expected 2 fields, found 3");
  }
  CsvTable t = CsvTable::Parse("f.csv", "a,b\n1,x\n");
  try {
    t.Integer(t.rows()[0], 1);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "f.csv:2: b is not an integer: 'x'");
  }
  EXPECT_THROW(t.RequireColumn("c"), InputError);
  EXPECT_THROW(CsvTable::Parse("f.csv", "\n \n"), InputError);
  EXPECT_THROW(CsvTable::Read("/nonexistent/file.csv"), InputError);
}

TEST(Csv, ParseInt64) {
  EXPECT_EQ(ParseInt64("42"), 42);
  EXPECT_EQ(ParseInt64("-7"), -7);
  EXPECT_EQ(ParseInt64("+7"), 7);
  EXPECT_EQ(ParseInt64("9223372036854775807"), INT64_MAX);
  EXPECT_FALSE(ParseInt64("9223372036854775808"));
  EXPECT_FALSE(ParseInt64("1.5"));
  EXPECT_FALSE(ParseInt64("1e3"));
  EXPECT_FALSE(ParseInt64(""));
  EXPECT_FALSE(ParseInt64("12a"));
}

}  // namespace
}  // namespace common
