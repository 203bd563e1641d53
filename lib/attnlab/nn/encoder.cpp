#include "attnlab/nn/encoder.hpp"

#include <stdexcept>
#include <string>

#include "attnlab/nn/positions.hpp"
#include "attnlab/nn/transformer_block.hpp"

namespace attnlab::nn {

Sequential transformer_encoder(const TransformerEncoderOptions& o, Generator& gen, const Scope& scope) {
  if (o.n_in() < 1 || o.d_model() < 1 || o.n_heads() < 1 || o.d_ff() < 1 || o.depth() < 0 || o.n_out() < 1 ||
      o.max_len() < 1)
    throw std::invalid_argument("transformer_encoder: n_in, d_model, n_heads, d_ff, n_out and max_len must be >= 1 "
                                "and depth >= 0, got n_in=" + std::to_string(o.n_in()) + ", d_model=" +
                                std::to_string(o.d_model()) + ", n_heads=" + std::to_string(o.n_heads()) +
                                ", d_ff=" + std::to_string(o.d_ff()) + ", depth=" + std::to_string(o.depth()) +
                                ", n_out=" + std::to_string(o.n_out()) + ", max_len=" + std::to_string(o.max_len()));
  if (o.d_model() % o.n_heads() != 0)
    throw std::invalid_argument("transformer_encoder: d_model " + std::to_string(o.d_model()) +
                                " is not divisible by n_heads " + std::to_string(o.n_heads()));
  Sequential m(scope);
  m.emplace_back<Linear>(LinearOptions(o.n_in(), o.d_model()), gen);
  if (o.learned_positions())
    m.emplace_back<LearnedPositions>(o.max_len(), o.d_model(), gen);
  else
    m.emplace_back<AddPositions>(o.max_len(), gen);
  for (int i = 0; i < o.depth(); ++i)
    m.emplace_back<TransformerBlock>(TransformerBlockOptions(o.d_model(), o.n_heads(), o.d_ff())
                                         .dropout(o.dropout())
                                         .norm_first(o.norm_first())
                                         .causal(o.causal()),
                                     gen);
  m.emplace_back<MeanOverTime>(gen);
  m.emplace_back<Linear>(LinearOptions(o.d_model(), o.n_out()), gen);
  return m;
}

Sequential transformer_encoder(int n_in, int d_model, int n_heads, int d_ff, int depth, int n_out, Generator& gen,
                               int max_len, bool causal) {
  return transformer_encoder(TransformerEncoderOptions(n_in, d_model, n_heads, d_ff, depth, n_out)
                                 .max_len(max_len)
                                 .causal(causal),
                             gen);
}

}  // namespace attnlab::nn
