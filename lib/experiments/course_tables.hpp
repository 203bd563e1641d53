// The chapter's smaller tables (course scripts 02, 03, 05, 06, 08, 09, 10,
// 11, 12, 14, 15, 16): one file each in this folder, listed here.
#pragma once

#include <vector>

#include "experiments/experiment.hpp"

namespace attnlab::experiments {

/// Every kind of this group, any order (the registry sorts by course_order).
std::vector<Experiment> course_table_experiments();

Experiment weighted_average_experiment();   // weighted_average.cpp, course script 02
Experiment attention_weights_experiment();  // attention_weights.cpp, course script 03
Experiment permutation_experiment();        // permutation.cpp, course script 05
Experiment mha_shapes_experiment();         // mha_shapes.cpp, course script 06
Experiment self_cross_experiment();         // self_cross.cpp, course script 08
Experiment causal_mask_experiment();        // causal_mask.cpp, course script 09
Experiment padding_mask_experiment();       // padding_mask.cpp, course script 10
Experiment learned_pos_experiment();        // learned_pos.cpp, course script 11
Experiment sinusoidal_experiment();         // sinusoidal.cpp, course script 12
Experiment library_mha_experiment();        // library_mha.cpp, course script 14
Experiment cost_table_experiment();         // cost_table.cpp, course script 15
Experiment timing_experiment();             // timing.cpp, course script 16

}  // namespace attnlab::experiments
