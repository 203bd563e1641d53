// Every experiment kind attnlab runs: one file each in this folder, one
// constructor each, all listed here and nowhere else (experiments/registry.cpp
// turns this list into the registry, ordered by each kind's course_order).
// docs/adding-a-kind.md walks through adding one.
#pragma once

#include <vector>

#include "experiments/experiment.hpp"

namespace attnlab::experiments {

Experiment bottleneck_experiment();         // course script 01: LSTM last state by hidden size
Experiment weighted_average_experiment();   // course script 02
Experiment attention_weights_experiment();  // course script 03
Experiment sqrt_d_experiment();             // course script 04
Experiment permutation_experiment();        // course script 05
Experiment mha_shapes_experiment();         // course script 06
Experiment heads_experiment();              // course scripts 06-07
Experiment self_cross_experiment();         // course script 08
Experiment causal_mask_experiment();        // course script 09
Experiment padding_mask_experiment();       // course script 10
Experiment learned_pos_experiment();        // course script 11
Experiment sinusoidal_experiment();         // course script 12
Experiment positions_experiment();          // course script 13
Experiment library_mha_experiment();        // course script 14
Experiment cost_table_experiment();         // course script 15
Experiment timing_experiment();             // course script 16
Experiment block_experiment();              // course script 17
Experiment rnn_vs_attention_experiment();   // course script 18
Experiment attention_map_experiment();      // course script 19
Experiment torch_mha_experiment();          // nn.MultiheadAttention as PyTorch's page explains it
Experiment attention_page_experiment();     // the attention page's examples through the library
Experiment translation_experiment();        // Bahdanau et al. 2015's comparison on a toy translation task

/// Every kind above, constructed once each, in the order listed.
std::vector<Experiment> all_kinds();

}  // namespace attnlab::experiments
