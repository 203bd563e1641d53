// What every attnlab subcommand shares: exit codes, the --set parser, and
// writing to stdout so that a failed write is a failure.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "experiments/registry.hpp"

namespace attnlab::cli {

constexpr int kOk = 0, kFailure = 1, kUsage = 2;

/// "--set key=value": the value is JSON when it parses as JSON, else a
/// string, so `--set hidden_sizes=[2,4]` and `--set cell=lstm` both read
/// naturally. Throws CLI::ValidationError naming --set for text that is not
/// KEY=VALUE, and spec::SpecError naming "--set KEY" for a value nested
/// deeper than spec::kMaxDepth or a number out of double's range.
nlohmann::json parse_overrides(const std::vector<std::string>& sets);

/// Checks every file before any work and reports every refusal on stderr,
/// not just the first; returns the loaded specs only when all are good.
std::optional<std::vector<experiments::LoadedSpec>> load_all(const std::vector<std::string>& files,
                                                             const nlohmann::json& overrides);

/// Checks before any work that `path` may receive a result file (see
/// report::check_output_path: its folder exists and is writable; it is absent
/// or a writable regular file, never a link, device, FIFO or folder; and it is
/// none of `inputs`, the files the run reads), so a result is not lost after
/// hours of training and nothing else is ever replaced. Throws
/// CLI::ValidationError naming --output.
void check_output_path(const std::string& path, const std::vector<std::string>& inputs = {});

/// Writes to stdout and throws std::runtime_error on a failed write (a full
/// disk, a closed pipe): a table that did not arrive whole is a failure.
void write_stdout(const std::string& text);

}  // namespace attnlab::cli
