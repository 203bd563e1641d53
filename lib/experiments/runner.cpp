#include "experiments/runner.hpp"

#include <algorithm>
#include <new>
#include <stdexcept>

namespace attnlab::experiments {

std::vector<Result> run_all(std::vector<LoadedSpec> specs, const RunContext& ctx) {
  std::stable_sort(specs.begin(), specs.end(), [](const LoadedSpec& a, const LoadedSpec& b) {
    return a.experiment->course_order < b.experiment->course_order;
  });
  std::vector<Result> results;
  for (auto& s : specs) {
    if (ctx.progress) ctx.progress("running " + s.experiment->name + " (" + s.file + ")");
    Report r;
    try {
      r = s.experiment->run(s.spec, ctx);
    } catch (const std::bad_alloc&) {
      throw std::runtime_error(s.file + ": out of memory running " + s.experiment->name +
                               " (reduce its sizes: widths, lengths, batch)");
    } catch (const std::exception& e) {
      throw std::runtime_error(s.file + ": " + s.experiment->name + ": " + e.what());
    }
    results.push_back({std::move(s), std::move(r)});
  }
  return results;
}

std::string render_text(const std::vector<Result>& results, bool headings) {
  if (results.size() == 1 && !headings) return results[0].report.text;
  std::string out;
  for (std::size_t i = 0; i < results.size(); ++i) {
    if (i) out += "\n";
    out += "== " + results[i].loaded.experiment->name + ": " + results[i].loaded.file + " ==\n";
    out += results[i].report.text;
  }
  return out;
}

nlohmann::json render_json(const std::vector<Result>& results) {
  nlohmann::json doc = {{"attnlab", ATTNLAB_VERSION}, {"results", nlohmann::json::array()}};
  for (const auto& r : results) {
    doc["results"].push_back({{"file", r.loaded.file},
                              {"experiment", r.loaded.experiment->name},
                              {"spec", r.loaded.spec},
                              {"data", r.report.data},
                              {"text", r.report.text}});
    if (!r.report.table.empty()) doc["results"].back()["table"] = report::to_json(r.report.table);
  }
  return doc;
}

}  // namespace attnlab::experiments
