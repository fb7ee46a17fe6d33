#include "common/atomic_file.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "common/error.h"

namespace common {
namespace {

TEST(AtomicFile, WritesAndReplaces) {
  const auto dir = std::filesystem::temp_directory_path() / "memplan_atomic_test";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "out.txt").string();
  WriteFileAtomically(path, "first");
  EXPECT_EQ(ReadFile(path), "first");
  WriteFileAtomically(path, "second");
  EXPECT_EQ(ReadFile(path), "second");
  // No temporary is left behind.
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) files += entry.is_regular_file();
  EXPECT_EQ(files, 1);
  std::filesystem::remove_all(dir);
}

TEST(AtomicFile, UnwritableDirectoryIsAnInputError) {
  EXPECT_THROW(WriteFileAtomically("/nonexistent-dir/x.csv", "x"), InputError);
}

}  // namespace
}  // namespace common
