// The learning rate of each optimiser step: constant, or cosine-decayed to 0
// over the run, so that a run ends at a converged point rather than wherever
// its last full-size step left it.
#pragma once

#include <string>

namespace attnlab::training {

enum class LrSchedule { constant, cosine };

/// "constant" or "cosine"; throws std::invalid_argument for anything else.
LrSchedule lr_schedule_from_name(const std::string& name);
const char* lr_schedule_name(LrSchedule s);

/// The learning rate of step `step` (0-based, counted over the whole run)
/// of `total` steps: `lr` for constant; for cosine
/// lr · ½(1 + cos(π·step/total)), SGDR's curve without restarts and with a
/// floor of 0 (Loshchilov & Hutter 2017, "SGDR", eq. 5), evaluated as PyTorch
/// 1.13 does for torch.optim.lr_scheduler.LambdaLR(opt, lambda t:
/// 0.5 * (1 + math.cos(math.pi * t / total))) stepped after every
/// optimiser step: base_lr * lambda(t), in double, bit for bit. (Its
/// CosineAnnealingLR draws the same curve by a recursive update whose
/// rounding differs, which is why scripts/translation_models.py uses LambdaLR.)
double lr_at(double lr, LrSchedule schedule, long step, long total);

}  // namespace attnlab::training
