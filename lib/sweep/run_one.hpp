// The one command every launcher runs for a run: `attnlab run-one RUN_DIR`.
// It runs `attnlab run RUN_DIR/spec.json --format json -o ... --jobs 1` as a
// child (so the run gets exactly its spec, one thread, and the same code as
// a user's `attnlab run`), sends the run's stderr to RUN_DIR/stderr.log, and
// writes RUN_DIR/result.json whole or not at all:
//   {"attnlab": VERSION, "run": HASH, "experiment", "status": "ok" | "failed" | "diverged",
//    "error" (not ok), "diverged" (diverged), "exit_code", "spec", "data", "table", "text",
//    "start", "end" (UTC, ISO 8601), "seconds", "host"}
// Stopped by SIGINT or SIGTERM, it stops the run and records nothing, so the
// next sweep runs it again. Exit codes: 0 ok (or already done: a finished run
// is never overwritten), 1 failed or diverged (recorded), 2 no runnable
// folder, 128+N stopped by signal N (nothing recorded).
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>

#include "process/child_process.hpp"

namespace attnlab::sweep {

/// What `attnlab run --format json` left behind.
struct RunOutput {
  process::ExitStatus exit;
  nlohmann::json document;  // the parsed -o file, or null when it wrote none
  std::string stderr_text;  // everything the run printed on stderr
};

/// When and where the run happened.
struct RunTiming {
  std::string start, end;  // UTC, ISO 8601
  double seconds = 0;
  std::string host;
};

/// result.json's content. The run's own "status" decides when present
/// ("ok", "failed", "diverged" with its "diverged" list); without one, exit
/// code 0 means ok and any other exit means failed, with the last line of
/// the run's stderr as the error.
nlohmann::json compose_result(const std::string& hash, const nlohmann::json& spec, const RunOutput& out,
                              const RunTiming& timing);

/// `attnlab run-one RUN_DIR`, using the attnlab binary at `attnlab`.
int run_one(const std::filesystem::path& run_dir, const std::string& attnlab);

}  // namespace attnlab::sweep
