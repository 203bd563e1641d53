#include "experiments/course_tables.hpp"

namespace attnlab::experiments {

std::vector<Experiment> course_table_experiments() { return {}; }

}  // namespace attnlab::experiments
