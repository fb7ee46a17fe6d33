#include "common/annealing.h"

#include <gtest/gtest.h>

#include <cmath>
#include <csignal>

namespace common {
namespace {

// Minimises (x - 37)^2 over the integers by +-1 steps: a problem whose optimum is known.
struct Parabola {
  int x = 0;
  int best_x = 0;
  int target = 37;
  bool stop_at_target = true;
  double Objective() const { return double(x - target) * (x - target); }
  void Move(double temperature, Rng& rng) {
    const int step = rng.Below(2) ? 1 : -1;
    const double delta = double(x + step - target) * (x + step - target) - Objective();
    if (Metropolis(delta, temperature, rng)) x += step;
  }
  void KeepBest() { best_x = x; }
  bool TargetReached(double best) const { return stop_at_target && best == 0; }
  std::string Describe(double best) const { return std::to_string(best); }
};

TEST(Annealing, ReachesTargetAndStops) {
  Parabola p;
  Rng rng(1);
  Progress progress(false);
  AnnealingResult r = Anneal(p, {.start_temperature = 10, .end_temperature = 0.01, .max_moves = 100000}, rng,
                             progress, "test");
  EXPECT_EQ(r.reason, StopReason::kTarget);
  EXPECT_EQ(p.best_x, 37);
  EXPECT_EQ(r.best, 0);
  EXPECT_LT(r.moves, 100000u);
}

TEST(Annealing, MoveBudgetIsDeterministic) {
  auto run = [] {
    Parabola p;
    p.stop_at_target = false;
    Rng rng(7);
    Progress progress(false);
    AnnealingResult r = Anneal(p, {.start_temperature = 5, .end_temperature = 0.1, .max_moves = 5000,
                                   .time_limit_s = 0}, rng, progress, "test");
    EXPECT_EQ(r.reason, StopReason::kMoveLimit);
    EXPECT_EQ(r.moves, 5000u);
    return p.x;
  };
  EXPECT_EQ(run(), run());
}

TEST(Annealing, InterruptStopsTheRun) {
  Parabola p;
  p.stop_at_target = false;
  Rng rng(3);
  Progress progress(false);
  InstallInterruptHandler();
  std::raise(SIGINT);
  AnnealingResult r = Anneal(p, {.start_temperature = 5, .end_temperature = 0.1, .max_moves = 1000000}, rng,
                             progress, "test");
  ResetInterrupt();
  EXPECT_EQ(r.reason, StopReason::kInterrupted);
  EXPECT_LT(r.moves, 1000000u);
}

TEST(Metropolis, AcceptsImprovementsAlwaysAndWorseningSometimes) {
  Rng rng(5);
  int accepted = 0;
  for (int i = 0; i < 10000; ++i) {
    EXPECT_TRUE(Metropolis(-1, 1, rng));
    accepted += Metropolis(1, 1, rng);
  }
  EXPECT_NEAR(accepted / 10000.0, std::exp(-1.0), 0.03);
  EXPECT_FALSE(Metropolis(1, 0, rng));
}

}  // namespace
}  // namespace common
