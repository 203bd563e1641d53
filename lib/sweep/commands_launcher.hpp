// `--launcher commands`: one self-contained shell command per pending run,
// for any runner that takes a list of commands, GNU parallel first:
//   attnlab sweep S seed=0,1,2 --launcher commands | parallel -j 8 --sshloginfile hosts
// Each line is `'/abs/attnlab' run-one '/abs/runs/S/<hash>'` (absolute
// paths, so it runs from any folder on any host that shares them); running
// the sweep again afterwards collects the results.
#pragma once

#include <string>
#include <vector>

#include "sweep/local_launcher.hpp"

namespace attnlab::sweep {

/// The command that runs one prepared run folder.
std::string run_command_line(const std::string& attnlab, const fs::path& run_dir);

/// One line per job, in plan order.
std::string command_lines(const std::vector<Job>& jobs, const std::string& attnlab);

}  // namespace attnlab::sweep
