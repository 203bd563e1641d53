// Rules that tie two parameters of a spec together, shared by several kinds.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace attnlab::experiments {

/// Multi-head attention splits the width into equal heads (PyTorch: "embed_dim
/// must be divisible by num_heads"). Throws spec::SpecError at /heads_key
/// naming both numbers, e.g. "n_heads 3 does not divide d_model 32; d_model
/// must be a multiple of n_heads".
void require_heads_divide_width(const nlohmann::json& spec, const std::string& file,
                                const std::string& width_key = "d_model", const std::string& heads_key = "n_heads");

}  // namespace attnlab::experiments
