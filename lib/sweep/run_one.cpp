#include "sweep/run_one.hpp"

#include <signal.h>
#include <unistd.h>

#include <fmt/format.h>

#include <chrono>
#include <ctime>
#include <fstream>
#include <iostream>
#include <iterator>

#include "experiments/registry.hpp"
#include "report/atomic_file.hpp"
#include "spec/spec_error.hpp"
#include "spec/validate.hpp"
#include "process/interrupt.hpp"
#include "sweep/run_dir.hpp"

namespace attnlab::sweep {

using nlohmann::json;

namespace {

// The file's bytes; "" when it is absent or not a regular file (a folder
// where the run's output should be must not stop the run from being recorded).
std::string slurp(const fs::path& p) {
  std::error_code ec;
  if (!fs::is_regular_file(p, ec)) return "";
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string last_line(const std::string& text) {
  std::size_t end = text.size();
  while (end > 0) {
    while (end > 0 && (text[end - 1] == '\n' || text[end - 1] == '\r' || text[end - 1] == ' ')) --end;
    const std::size_t begin = text.rfind('\n', end ? end - 1 : 0);
    const std::size_t from = begin == std::string::npos ? 0 : begin + 1;
    if (end > from) return text.substr(from, end - from);
    if (begin == std::string::npos) break;
    end = begin;
  }
  return "";
}

// "attnlab: failed: spec.json: ..." reads better in a table of errors without the program's name.
std::string error_line(const std::string& stderr_text, const process::ExitStatus& exit) {
  std::string line = last_line(stderr_text);
  for (const char* prefix : {"attnlab: failed: ", "attnlab: error: ", "attnlab: "})
    if (line.rfind(prefix, 0) == 0) {
      line = line.substr(std::string(prefix).size());
      break;
    }
  if (line.empty()) return "attnlab run ended with " + exit.describe() + " and printed nothing";
  return exit.signal ? line + " (" + exit.describe() + ")" : line;
}

std::string describe_divergence(const json& diverged) {
  if (!diverged.is_array() || diverged.empty() || !diverged[0].is_object()) return "diverged";
  const json& d = diverged[0];
  auto field = [&](const char* k) { return d.contains(k) ? (d[k].is_string() ? d[k].get<std::string>() : d[k].dump()) : "?"; };
  std::string s = fmt::format("diverged: row {}, epoch {}, step {}, loss {}", field("row"), field("epoch"),
                              field("step"), field("loss"));
  if (diverged.size() > 1) s += fmt::format(" (and {} more row{})", diverged.size() - 1, diverged.size() > 2 ? "s" : "");
  return s;
}

std::string utc_now() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t t = std::chrono::system_clock::to_time_t(now);
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  return fmt::format("{}.{:03d}Z", buf, static_cast<int>(ms));
}

std::string host_name() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0) return "";
  return buf;
}

}  // namespace

json compose_result(const std::string& hash, const json& spec, const RunOutput& out, const RunTiming& timing) {
  json r = {{"attnlab", ATTNLAB_VERSION}, {"run", hash}, {"experiment", spec.value("experiment", "")}};
  const json* entry = nullptr;
  if (out.document.is_object() && out.document.contains("results") && out.document["results"].is_array() &&
      !out.document["results"].empty() && out.document["results"][0].is_object())
    entry = &out.document["results"][0];

  std::string status = entry && entry->contains("status") && (*entry)["status"].is_string()
                           ? (*entry)["status"].get<std::string>()
                           : (out.exit.success() && entry ? "ok" : "failed");
  if (status != "ok" && status != "failed" && status != "diverged") status = "failed";
  if (status == "ok" && !out.exit.success()) status = "failed";  // a run that says ok yet exits non-zero
  r["status"] = status;
  if (status == "diverged") {
    r["diverged"] = entry->value("diverged", json::array());
    r["error"] = entry->contains("error") && (*entry)["error"].is_string() ? (*entry)["error"].get<std::string>()
                                                                          : describe_divergence(r["diverged"]);
  } else if (status == "failed") {
    r["error"] = entry && entry->contains("error") && (*entry)["error"].is_string()
                     ? (*entry)["error"].get<std::string>()
                     : error_line(out.stderr_text, out.exit);
  }
  if (out.exit.signal) r["signal"] = out.exit.signal;
  else r["exit_code"] = out.exit.code;
  r["spec"] = spec;
  if (entry) {
    for (const char* k : {"data", "table", "text"})
      if (entry->contains(k)) r[k] = (*entry)[k];
  }
  r["start"] = timing.start;
  r["end"] = timing.end;
  r["seconds"] = timing.seconds;
  r["host"] = timing.host;
  return r;
}

int run_one(const fs::path& given, const std::string& attnlab) {
  process::catch_interrupts();
  std::error_code ec;
  const fs::path dir = fs::absolute(given, ec);
  const fs::path spec_path = dir / kSpecFile, result_path = dir / kResultFile;
  if (!fs::is_regular_file(spec_path, ec)) {
    std::cerr << "attnlab: error: " << given.string() << " is not a run folder (no " << kSpecFile
              << "); `attnlab sweep` creates run folders\n";
    return 2;
  }
  RunLock lock(dir);  // another process running this run: wait for it, then find it done
  if (!lock.acquired()) return 128 + process::interrupted();
  {
    const json existing = json::parse(slurp(result_path), nullptr, false);
    if (existing.is_object() && existing.value("status", "") == "ok") return 0;  // never overwrite a finished run
  }
  const std::string hash = dir.filename().string();
  const RunTiming started{utc_now(), "", 0, host_name()};
  const auto t0 = std::chrono::steady_clock::now();
  auto finish = [&](const json& spec, const RunOutput& out) {
    RunTiming t = started;
    t.end = utc_now();
    t.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const json result = compose_result(hash, spec, out, t);
    report::write_file_atomically(result_path.string(), result.dump(2) + "\n");
    return result["status"] == "ok" ? 0 : 1;
  };

  json spec;
  try {  // checked again: the folder may come from another attnlab version, or a hand's edit
    spec = spec::read_spec_file(spec_path.string());
    experiments::check_spec(spec, spec_path.string());
  } catch (const spec::SpecError& e) {
    report::write_file_atomically((dir / kStderrFile).string(), std::string("attnlab: error: ") + e.what() + "\n");
    return finish(spec.is_object() ? spec : json::object(), {{2, 0}, nullptr, std::string("attnlab: error: ") + e.what()});
  }

  const fs::path output = dir / ".output.json";  // attnlab run's -o file, folded into result.json
  fs::remove(output, ec);
  report::remove_leftover_temporaries(output.string());  // of a child killed mid-write before (kill -9, a crash)
  const std::vector<std::string> argv = {attnlab, "run", spec_path.string(), "--format", "json",
                                         "-o",    output.string(), "--jobs", "1"};
  pid_t pid;
  try {
    pid = process::spawn(argv, {.stdout_path = "/dev/null",
                       .stderr_path = (dir / kStderrFile).string(),
                       .die_with_parent = true});
  } catch (const std::exception& e) {  // the run could not start: that is its result
    return finish(spec, {{127, 0}, nullptr, std::string("attnlab: failed: ") + e.what()});
  }
  process::forward_interrupts_to(pid);
  const process::ExitStatus exit = process::wait_exit(pid);
  process::forward_interrupts_to(0);
  const bool stopped = process::interrupted() || exit.signal == SIGINT || exit.signal == SIGTERM;
  if (stopped) {  // not a result: the next sweep runs it again
    fs::remove(output, ec);
    // A child stopped while writing -o leaves its temporary; the folder is
    // this run's (locked), so nothing else can be writing one.
    report::remove_leftover_temporaries(output.string());
    return 128 + (process::interrupted() ? process::interrupted() : exit.signal);
  }
  RunOutput out{exit, json::parse(slurp(output), nullptr, false), slurp(dir / kStderrFile)};
  if (out.document.is_discarded()) out.document = nullptr;
  const int code = finish(spec, out);
  fs::remove(output, ec);
  return code;
}

}  // namespace attnlab::sweep
