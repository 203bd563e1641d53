#include "experiments/runner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <new>
#include <stdexcept>

#include "experiments/trained_rows.hpp"
#include "resources/byte_size.hpp"

namespace attnlab::experiments {

const char* status_name(Status s) {
  switch (s) {
    case Status::ok: return "ok";
    case Status::diverged: return "diverged";
    case Status::failed: return "failed";
  }
  return "?";
}

std::vector<Result> run_all(std::vector<LoadedSpec> specs, const RunContext& ctx, const RunOptions& options) {
  std::stable_sort(specs.begin(), specs.end(), [](const LoadedSpec& a, const LoadedSpec& b) {
    return a.experiment->course_order < b.experiment->course_order;
  });
  std::vector<Result> results;
  for (auto& s : specs) {
    if (ctx.progress) ctx.progress("running " + s.experiment->name + " (" + s.file + ")");
    RunContext own = ctx;
    // "FILE: LINE", keeping a leading "warning: " in front.
    if (ctx.warn)
      own.warn = [&ctx, file = s.file](const std::string& line) {
        const std::string tag = "warning: ";
        ctx.warn(line.compare(0, tag.size(), tag) == 0 ? tag + file + ": " + line.substr(tag.size())
                                                        : file + ": " + line);
      };
    Result result{s, {}, Status::ok, ""};
    try {
      result.report = s.experiment->run(s.spec, own);
      if (!result.report.diverged.empty()) result.status = Status::diverged;
    } catch (const std::bad_alloc&) {
      result.status = Status::failed;
      // The estimate fitted every limit we could read, or the run would have been refused.
      result.error = fmt::format("out of memory, although its estimate ({}) fitted the limits; please report it",
                                 resources::format_bytes(s.experiment->memory(s.spec, ctx.jobs).bytes));
    } catch (const std::exception& e) {
      result.status = Status::failed;
      result.error = e.what();
    }
    if (result.status == Status::failed) {
      const std::string message = s.file + ": " + s.experiment->name + ": " + result.error;
      if (!options.keep_going) throw std::runtime_error(message);
      if (ctx.warn) ctx.warn("failed: " + message);
    }
    results.push_back(std::move(result));
  }
  return results;
}

bool all_ok(const std::vector<Result>& results) {
  return std::all_of(results.begin(), results.end(), [](const Result& r) { return r.status == Status::ok; });
}

std::string render_text(const std::vector<Result>& results, bool headings) {
  if (results.size() == 1 && !headings) return results[0].report.text;
  std::string out;
  bool first = true;
  for (const auto& r : results) {
    if (r.status == Status::failed) continue;
    if (!first) out += "\n";
    first = false;
    out += "== " + r.loaded.experiment->name + ": " + r.loaded.file + " ==\n";
    out += r.report.text;
  }
  return out;
}

nlohmann::json render_json(const std::vector<Result>& results, int jobs) {
  nlohmann::json doc = {{"attnlab", ATTNLAB_VERSION}, {"results", nlohmann::json::array()}};
  for (const auto& r : results) {
    nlohmann::json entry = {{"file", r.loaded.file},
                            {"experiment", r.loaded.experiment->name},
                            {"spec", r.loaded.spec},
                            {"status", status_name(r.status)},
                            {"data", r.report.data},
                            {"text", r.report.text},
                            {"memory_estimate_bytes", r.loaded.experiment->memory(r.loaded.spec, jobs).bytes}};
    if (!r.report.diverged.empty()) {
      entry["diverged"] = nlohmann::json::array();
      for (const auto& d : r.report.diverged)
        entry["diverged"].push_back(
            {{"row", d.row}, {"epoch", d.at.epoch}, {"step", d.at.step}, {"loss", loss_json(d.at.loss)}});
    }
    if (!r.report.loss_rose.empty()) {
      entry["loss_rose"] = nlohmann::json::array();
      for (const auto& l : r.report.loss_rose)
        entry["loss_rose"].push_back(
            {{"row", l.row}, {"first_loss", loss_json(l.first_loss)}, {"last_epoch_loss", loss_json(l.last_epoch_loss)}});
    }
    if (!r.report.table.empty()) entry["table"] = report::to_json(r.report.table);
    if (r.status == Status::failed) entry["error"] = r.error;
    doc["results"].push_back(std::move(entry));
  }
  return doc;
}

}  // namespace attnlab::experiments
