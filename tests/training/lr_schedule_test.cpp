// The learning-rate schedule's values at the points where the cosine is
// exact, and its names. That the steps use it as PyTorch's LambdaLR does is
// shown by the first hundred losses of tests/training/translation_parity_test.cpp
// ("losses_cosine" in data/models/translation_*.json, from PyTorch).
#include <gtest/gtest.h>

#include <stdexcept>

#include "training/lr_schedule.hpp"

namespace attnlab::training {
namespace {

TEST(LrSchedule, ConstantIsTheLearningRateAtEveryStep) {
  for (long step : {0L, 1L, 50L, 99L}) EXPECT_EQ(lr_at(3e-3, LrSchedule::constant, step, 100), 3e-3);
}

TEST(LrSchedule, CosineStartsAtTheRateHalvesAtMidRunAndEndsAtZero) {
  EXPECT_EQ(lr_at(3e-3, LrSchedule::cosine, 0, 100), 3e-3);
  EXPECT_NEAR(lr_at(3e-3, LrSchedule::cosine, 50, 100), 1.5e-3, 1e-18);
  EXPECT_NEAR(lr_at(3e-3, LrSchedule::cosine, 25, 100), 3e-3 * (0.5 + 0.25 * 1.4142135623730951), 1e-18);
  EXPECT_EQ(lr_at(3e-3, LrSchedule::cosine, 100, 100), 0.0);
  // the last step a run takes (99 of 100) still moves the weights
  EXPECT_GT(lr_at(3e-3, LrSchedule::cosine, 99, 100), 0.0);
  EXPECT_LT(lr_at(3e-3, LrSchedule::cosine, 99, 100), 1e-6);
}

TEST(LrSchedule, CosineFallsAtEveryStep) {
  for (long step = 1; step <= 100; ++step)
    EXPECT_LT(lr_at(1.0, LrSchedule::cosine, step, 100), lr_at(1.0, LrSchedule::cosine, step - 1, 100)) << step;
}

TEST(LrSchedule, NamesRoundTripAndAnUnknownNameIsRefused) {
  EXPECT_EQ(lr_schedule_from_name("cosine"), LrSchedule::cosine);
  EXPECT_EQ(lr_schedule_from_name("constant"), LrSchedule::constant);
  EXPECT_STREQ(lr_schedule_name(LrSchedule::cosine), "cosine");
  EXPECT_THROW(lr_schedule_from_name("linear"), std::invalid_argument);
}

}  // namespace
}  // namespace attnlab::training
