#include "training/lr_schedule.hpp"

#include <cmath>
#include <numbers>
#include <stdexcept>

namespace attnlab::training {

LrSchedule lr_schedule_from_name(const std::string& name) {
  if (name == "constant") return LrSchedule::constant;
  if (name == "cosine") return LrSchedule::cosine;
  throw std::invalid_argument("unknown lr_schedule \"" + name + "\" (valid: constant, cosine)");
}

const char* lr_schedule_name(LrSchedule s) { return s == LrSchedule::cosine ? "cosine" : "constant"; }

double lr_at(double lr, LrSchedule schedule, long step, long total) {
  if (schedule == LrSchedule::constant || total <= 0) return lr;
  // Python's order: math.pi * t / total, then 0.5 * (1 + cos), then base_lr * that
  const double factor = 0.5 * (1.0 + std::cos(std::numbers::pi * static_cast<double>(step) / static_cast<double>(total)));
  return lr * factor;
}

}  // namespace attnlab::training
