#include "sweep/commands_launcher.hpp"

#include "process/child_process.hpp"

namespace attnlab::sweep {

std::string run_command_line(const std::string& attnlab, const fs::path& run_dir) {
  return process::shell_quote(attnlab) + " run-one " + process::shell_quote(fs::absolute(run_dir).lexically_normal().string());
}

std::string command_lines(const std::vector<Job>& jobs, const std::string& attnlab) {
  std::string out;
  for (const auto& j : jobs) out += run_command_line(attnlab, j.dir) + "\n";
  return out;
}

}  // namespace attnlab::sweep
