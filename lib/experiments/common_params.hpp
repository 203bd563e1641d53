// The spec keys several kinds share, declared once so that one quantity has
// one name, one type and one range everywhere: `seed`, and PyTorch's
// `d_model` and `n_heads` (nn.Transformer's names) for every kind whose model
// has a width and a head count. torch_mha alone keeps nn.MultiheadAttention's
// own `embed_dim` / `num_heads`; the `heads` kind's list of head counts keeps
// its plural. The training keys (epochs, lr, ...) are training_params.hpp's.
#pragma once

#include <string>

#include "spec/param.hpp"

namespace attnlab::experiments {

/// "seed": torch.manual_seed's argument, an integer in [0, 2^32 - 1].
spec::Param seed_param(long long default_seed = 0);

/// "d_model": the model's width C, an integer in [min, max]; `doc` says what
/// it sizes in this kind (one line for `attnlab list`).
spec::Param d_model_param(int default_value, std::string doc, int min = 1, int max = 1024);

/// "n_heads": attention heads H, an integer in [1, max]; the kind's check
/// calls require_heads_divide_width (spec_rules.hpp), as PyTorch asserts
/// embed_dim % num_heads == 0.
spec::Param n_heads_param(int default_value, std::string doc = "attention heads; must divide d_model", int max = 64);

}  // namespace attnlab::experiments
