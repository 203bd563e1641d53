// The constructors of every experiment kind, one file each in this folder.
#pragma once

#include "experiments/experiment.hpp"

namespace attnlab::experiments {

Experiment bottleneck_experiment();        // bottleneck.cpp, course script 01
Experiment sqrt_d_experiment();            // sqrt_d.cpp, course script 04
Experiment heads_experiment();             // heads.cpp, course scripts 06-07
Experiment positions_experiment();         // positions.cpp, course script 13
Experiment block_experiment();             // block.cpp, course script 17
Experiment rnn_vs_attention_experiment();  // rnn_vs_attention.cpp, course script 18
Experiment translation_experiment();        // translation.cpp, issue 13 (Bahdanau et al. 2015)
Experiment attention_map_experiment();     // attention_map.cpp, course script 19
Experiment torch_mha_experiment();         // torch_mha.cpp, seed page 003 (after the course scripts)
Experiment attention_page_experiment();    // attention_page.cpp, seed page 000 (after torch_mha)

}  // namespace attnlab::experiments
