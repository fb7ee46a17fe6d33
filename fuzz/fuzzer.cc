// The libFuzzer entry point, compiled once per target with FUZZ_CHECK naming its check in fuzz/harness.h
// (fuzz/CMakeLists.txt; run one with scripts/fuzz TARGET SECONDS).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz/harness.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FUZZ_CHECK(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
