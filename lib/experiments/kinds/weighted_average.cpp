// Course day 1, "A weighted average" (data/course/02_weighted_average.py):
// before any attention, three hand-chosen weightings of four value rows.
// Reading position 2 alone, an even average and a mostly-0-and-1 mix are all
// one product weights (4) · values (4, 2); attention only computes the
// weights instead of choosing them.
#include <array>
#include <vector>

#include "experiments/kinds/kinds.hpp"
#include "experiments/python_format.hpp"
#include "report/text.hpp"
#include "tensor/gemm.hpp"

namespace attnlab::experiments {

namespace {

constexpr int kPositions = 4, kWidth = 2;

// values (4, 2), the script's torch.tensor, float32.
constexpr std::array<float, kPositions * kWidth> kValues = {1.0f, 0.0f, 0.0f, 1.0f, 2.0f, 2.0f, -1.0f, 0.5f};

struct Weighting {
  const char* name;
  std::array<float, kPositions> weights;  // float32, as torch.tensor([.45, ...]) rounds them
};

constexpr std::array<Weighting, 3> kWeightings = {{{"all of position 2", {0.f, 0.f, 1.f, 0.f}},
                                                   {"an even average", {.25f, .25f, .25f, .25f}},
                                                   {"mostly 0 and 1", {.45f, .45f, .05f, .05f}}}};

Report run(const nlohmann::json&, const RunContext&) {
  Report r;
  r.data["rows"] = nlohmann::json::array();
  for (const auto& w : kWeightings) {
    // out (1, 2) = weights (1, 4) · values (4, 2), in float32; .tolist()
    // then shows each float32 as the Python float (double) it converts to.
    std::array<float, kWidth> out{};
    tensor::gemm<float>(false, false, 1, kWidth, kPositions, 1.0f, w.weights.data(), kPositions, kValues.data(),
                        kWidth, 0.0f, out.data(), kWidth);
    const std::vector<double> result(out.begin(), out.end());
    r.text += report::printf("%-20s -> %s\n", w.name, py_float_list(result));
    r.data["rows"].push_back({{"name", w.name},
                              {"weights", std::vector<double>(w.weights.begin(), w.weights.end())},
                              {"result", result}});
  }
  r.text += "\nattention is this, with the weights computed rather than chosen.\n";
  return r;
}

// A fixed (1, 4) by (4, 2) product: nothing to size.
MemoryEstimate memory(const nlohmann::json&, int) { return {4096, 1, "", "nothing (the example is fixed)"}; }

}  // namespace

Experiment weighted_average_experiment() {
  return {.name = "weighted_average",
          .summary = "three fixed weightings of four value rows: attention's output is a weighted average",
          .course_order = 2,
          .params = {},
          .check = nullptr,
          .run = run,
          .memory = memory};
}

}  // namespace attnlab::experiments
