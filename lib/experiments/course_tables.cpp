#include "experiments/course_tables.hpp"

namespace attnlab::experiments {

std::vector<Experiment> course_table_experiments() {
  return {weighted_average_experiment(), attention_weights_experiment(), permutation_experiment(),
          mha_shapes_experiment(),       self_cross_experiment(),        causal_mask_experiment(),
          padding_mask_experiment(),     learned_pos_experiment(),       sinusoidal_experiment(),
          library_mha_experiment(),      cost_table_experiment(),        timing_experiment()};
}

}  // namespace attnlab::experiments
