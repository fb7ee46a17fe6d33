// Random allocation problems in documented families (docs/generator.md), for tests and benchmarks.
// The same options and seed give the same problem on every platform: all randomness comes from
// common::Rng.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "alloc/problem.h"

namespace alloc {

// What to generate.
struct GeneratorOptions {
  std::string family = "uniform";  // one of GeneratorFamilies()
  int64_t n = 1000;                // number of buffers, >= 1
  uint64_t seed = 1;
  bool recompute = false;          // training family: checkpoint segments recomputed in the backward pass
};

// Names accepted by GeneratorOptions::family.
const std::vector<std::string>& GeneratorFamilies();

// Generates exactly options.n buffers with ids unique and lifespans [lower, upper), upper > lower >= 0.
// Throws common::InputError for an unknown family, n < 1, or --recompute outside the training family.
Problem Generate(const GeneratorOptions& options);

}  // namespace alloc
