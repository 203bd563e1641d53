// transformer_encoder: a sequence of features to one vector of outputs, the
// attention page's builder (data/sources/attention_page.txt §6), as one Sequential:
//   0        Linear(n_in, d_model)                   the dense projection
//   1        AddPositions(max_len) | LearnedPositions(max_len, d_model)
//   2 ..     depth × TransformerBlock(d_model, n_heads, d_ff)
//   depth+2  MeanOverTime
//   depth+3  Linear(d_model, n_out)                  the head
// (T, n_in) -> (n_out); (B, T, n_in) -> (B, n_out). Train it with backward()
// and an optimiser, or with training::fit through
// training/sequential_classifier.hpp; with causal = true, init_cache / step
// stream it: step t gives the output on the first t + 1 steps.
//
//   attnlab::Generator gen(0);
//   auto m = attnlab::nn::transformer_encoder(4, 8, 2, 16, 1, 3, gen, 16);
//   m.forward(xt::ones<float>({5, 4})).shape();   // (3,)
#pragma once

#include "attnlab/nn/sequential.hpp"
#include "attnlab/options.hpp"

namespace attnlab::nn {

struct TransformerEncoderOptions {
  TransformerEncoderOptions(int n_in, int d_model, int n_heads, int d_ff, int depth, int n_out)
      : n_in_(n_in), d_model_(d_model), n_heads_(n_heads), d_ff_(d_ff), depth_(depth), n_out_(n_out) {}
  ATTNLAB_ARG(int, n_in);
  ATTNLAB_ARG(int, d_model);
  ATTNLAB_ARG(int, n_heads);
  ATTNLAB_ARG(int, d_ff);
  ATTNLAB_ARG(int, depth);
  ATTNLAB_ARG(int, n_out);
  ATTNLAB_ARG(int, max_len) = 512;                // the longest sequence (and stream)
  ATTNLAB_ARG(bool, causal) = false;              // every block causal
  ATTNLAB_ARG(bool, norm_first) = false;          // false: post-norm blocks (the page's), true: the course's
  ATTNLAB_ARG(double, dropout) = 0.0;             // in every block
  ATTNLAB_ARG(bool, learned_positions) = false;   // false: sinusoidal AddPositions
};

/// Builds the encoder from `gen` in the order above. Throws
/// std::invalid_argument for sizes below 1 (depth may be 0), or n_heads not
/// dividing d_model (naming both).
Sequential transformer_encoder(const TransformerEncoderOptions& options, Generator& gen, const Scope& scope = {});

/// The page's argument order: transformer_encoder(n_in, d_model, n_heads,
/// d_ff, depth, n_out, key, max_len) with our generator in place of the key.
Sequential transformer_encoder(int n_in, int d_model, int n_heads, int d_ff, int depth, int n_out, Generator& gen,
                               int max_len = 512, bool causal = false);

}  // namespace attnlab::nn
