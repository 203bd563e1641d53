#include "experiments/kinds/kinds.hpp"

namespace attnlab::experiments {

std::vector<Experiment> all_kinds() {
  std::vector<Experiment> v;
  for (auto make : {bottleneck_experiment,      weighted_average_experiment, attention_weights_experiment,
                    sqrt_d_experiment,          permutation_experiment,      mha_shapes_experiment,
                    heads_experiment,           self_cross_experiment,       causal_mask_experiment,
                    padding_mask_experiment,    learned_pos_experiment,      sinusoidal_experiment,
                    positions_experiment,       library_mha_experiment,      cost_table_experiment,
                    timing_experiment,          block_experiment,            rnn_vs_attention_experiment,
                    attention_map_experiment,   torch_mha_experiment,        attention_page_experiment,
                    translation_experiment})
    v.push_back(make());
  return v;
}

}  // namespace attnlab::experiments
