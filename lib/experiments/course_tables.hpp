// The chapter's smaller tables (course scripts 02, 03, 05, 06, 08, 09, 10,
// 11, 12, 14, 15, 16): one file each in this folder, listed here.
#pragma once

#include <vector>

#include "experiments/experiment.hpp"

namespace attnlab::experiments {

/// Every kind of this group, any order (the registry sorts by course_order).
std::vector<Experiment> course_table_experiments();

}  // namespace attnlab::experiments
