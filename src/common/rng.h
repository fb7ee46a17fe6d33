// A small, fast, seedable random number generator (xoshiro256**) whose output is the same on every
// platform and standard library, so that the same input and seed give the same plan everywhere.
#pragma once

#include <cstdint>

namespace common {

// Deterministic pseudo-random numbers for the planners.
class Rng {
 public:
  explicit Rng(uint64_t seed) {
    // SplitMix64 spreads the seed over the four words of state (never all zero).
    for (uint64_t& word : state_) {
      seed += 0x9E3779B97F4A7C15ull;
      uint64_t z = seed;
      z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
      z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
      word = z ^ (z >> 31);
    }
  }

  // 64 random bits.
  uint64_t Next() {
    const uint64_t result = Rotl(state_[1] * 5, 7) * 9;
    const uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = Rotl(state_[3], 45);
    return result;
  }

  // Uniform integer in [0, n); n > 0. Lemire's multiply-shift (bias below 2^-64 * n, irrelevant here).
  uint64_t Below(uint64_t n) { return static_cast<uint64_t>((static_cast<Wide>(Next()) * n) >> 64); }

  // Uniform double in [0, 1).
  double Uniform() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }

 private:
  __extension__ using Wide = unsigned __int128;
  static uint64_t Rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t state_[4];
};

}  // namespace common
