// Position tables added to a sequence (Vaswani et al. 2017, §3.5; data/sources/attention_page.txt §5).
#pragma once

#include "random/generator.hpp"

namespace attnlab::kernels {

/// The sinusoidal table (L, C), float32 step by step as the course computes it
/// (data/course/12_sinusoidal.py, which is PyTorch tensor code):
///   rate[k] = exp(-ln(10000) · 2k / C)       k = 0 .. ceil(C/2) - 1
///   pe[p, 2k]     = sin(p · rate[k])          every even column (ceil(C/2) of them)
///   pe[p, 2k + 1] = cos(p · rate[k])          every odd column (floor(C/2)): the first floor(C/2) rates
/// so an odd width keeps every column in place and adds one last sin column.
/// Row 1 of (4, 4) is [sin 1, cos 1, sin 0.01, cos 0.01] = [0.8415, 0.5403, 0.01, 0.9999].
/// Throws std::invalid_argument unless L >= 0 and C >= 1.
void sinusoidal_positions_fill(float* out, int L, int C);

/// The learned table's initialisation: nn.init.normal_(weight, mean=0, std=0.02)
/// over (L, C), drawn from `gen` as PyTorch draws it (docs/torch_rng.md §4). The
/// std is the attention page's choice (the paper gives none).
void learned_positions_init(random::Generator& gen, float* weight, int L, int C);

/// The std of learned_positions_init.
inline constexpr double kLearnedPositionsStd = 0.02;

}  // namespace attnlab::kernels
