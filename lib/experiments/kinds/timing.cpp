// Course day 6, "Timing it" (data/course/16_timing_attention_vs_lstm.py):
// the forward time of one multi-head attention layer against one LSTM layer
// of the same width, by sequence length. Attention does T*T work but all of
// it in a few large products; the LSTM does T*width^2 work but one step
// after another. The figures are wall-clock measurements of attnlab's own
// forward passes, so they differ from run to run and from the course's.
//
// Both are timed as the script runs them, for inference: the attention with
// need_weights=False takes the flash path (nn/flash_attention.hpp), which
// never holds the B·H·T² weights and runs its heads and its projections'
// rows on --jobs threads (one for a forward under 32 MFLOP), and
// the LSTM keeps no cache for a backward pass (nn/lstm_inference.hpp). Memory is then linear in T: about 100 MB at
// the longest length allowed, 8192 (the cost table's longest), with the
// default batch, d_model and n_heads.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <vector>

#include "experiments/common_params.hpp"
#include "experiments/kinds/kinds.hpp"
#include "experiments/spec_rules.hpp"
#include "kernels/flash_attention.hpp"
#include "kernels/lstm.hpp"
#include "kernels/lstm_inference.hpp"
#include "kernels/multihead_attention.hpp"
#include "random/generator.hpp"
#include "report/text.hpp"

namespace attnlab::experiments {

namespace {

// Below this many FLOPs a forward runs on one thread whatever --jobs says:
// at T = 32 (10 MFLOP, 0.2 ms on one core) a second thread saved nothing, and
// on this 2-core VM waking a helper that has gone to sleep took up to 1.5 ms
// (the first call, or the first after the LSTM's timing), so 2 threads
// printed 0.2 to 1.5 ms. T = 128 (67 MFLOP) is 1.9x faster on two.
constexpr double kMinFlopsToShare = 32e6;

// One forward's FLOPs: the four (B·T, C)·(C, C) projections and, per head,
// scores and weights × values, 2·B·T²·C multiply-adds together.
double forward_flops(int B, int T, int C) {
  const double b = B, t = T, c = C;
  return 2.0 * (4 * b * t * c * c + 2 * b * t * t * c);
}

// Mean seconds per call of f over `repeats` calls, as the script's
// (time.time() - t) / 10.
template <class F>
double mean_seconds(int repeats, F&& f) {
  const auto start = std::chrono::steady_clock::now();
  for (int n = 0; n < repeats; ++n) f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / repeats;
}

Report run(const nlohmann::json& spec, const RunContext& ctx) {
  const int B = spec.at("batch").get<int>(), C = spec.at("d_model").get<int>(), H = spec.at("n_heads").get<int>();
  const int repeats = spec.at("repeats").get<int>();
  const std::size_t c = static_cast<std::size_t>(C);

  // attn = nn.MultiheadAttention(C, H), then lstm = nn.LSTM(C, C), in that order
  random::Generator g(spec.at("seed").get<std::uint64_t>());
  std::vector<float> in_w(3 * c * c), in_b(3 * c), out_w(c * c), out_b(c);
  kernels::multihead_attention_init(g, in_w.data(), in_b.data(), out_w.data(), out_b.data(), C);
  std::vector<float> w_ih(4 * c * c), w_hh(4 * c * c), b_ih(4 * c), b_hh(4 * c);
  kernels::lstm_init(g, w_ih.data(), w_hh.data(), b_ih.data(), b_hh.data(), C, C);

  Report r;
  r.text = report::printf("%10s %14s %14s\n", "length", "attention", "lstm");
  r.data["rows"] = nlohmann::json::array();
  r.table = {.label_header = "length",
             .columns = {{"attention", "attention_ms", "%.1fms", true}, {"lstm", "lstm_ms", "%.1fms", true}}};
  for (int T : spec.at("lengths").get<std::vector<int>>()) {
    // x (B, T, C), drawn afresh for each length
    std::vector<float> x(static_cast<std::size_t>(B) * T * C), out(x.size());
    g.normal(x.data(), x.size());

    // attn(x, x, x, need_weights=False): the flash path; buffers allocated outside the timed loop
    const kernels::MhaDims d = kernels::mha_dims(B, T, T, C, H);
    // with the run's --jobs threads over the B·H heads (the same output bytes for any number),
    // but one thread for a forward too small to share
    const int threads = forward_flops(B, T, C) < kMinFlopsToShare ? 1 : std::max(1, ctx.jobs);
    std::vector<float> mha_work(kernels::mha_flash_workspace_size(d, {}, threads));
    const auto params = kernels::mha_packed(in_w.data(), in_b.data(), out_w.data(), out_b.data(), C);
    const double attention = mean_seconds(repeats, [&] {
      kernels::mha_flash_forward<float>(out.data(), mha_work.data(), x.data(), x.data(), x.data(), {}, params, d, {},
                                   threads);
    });

    // lstm(x): every hidden state (B, T, C), no cache for a backward pass
    std::vector<float> lstm_work(kernels::lstm_inference_workspace_size(B, C));
    const double lstm = mean_seconds(repeats, [&] {
      kernels::lstm_inference_forward<float>(out.data(), lstm_work.data(), x.data(), w_ih.data(), w_hh.data(),
                                        b_ih.data(), b_hh.data(), B, T, C, C);
    });

    r.text += report::printf("%10d %13.1fms %13.1fms\n", T, attention * 1000, lstm * 1000);
    r.data["rows"].push_back({{"length", T}, {"attention_seconds", attention}, {"lstm_seconds", lstm}});
    r.table.add_row(std::to_string(T), {attention * 1000, lstm * 1000});
    if (ctx.progress) ctx.progress(fmt::format("timing: length {} done", T));
  }
  return r;
}

void check(const nlohmann::json& spec, const std::string& file) {
  require_heads_divide_width(spec, file);  // the script's assert
}

// One length at a time: the layers' weights, then per length x and out
// (B, T, C), the flash attention's workspace (a tile per thread) and the LSTM's
// (both linear in T).
MemoryEstimate memory(const nlohmann::json& spec, int jobs) {
  const int B = spec.at("batch").get<int>(), C = spec.at("d_model").get<int>(), H = spec.at("n_heads").get<int>();
  const double c = C, weights = 4 * c * c + 4 * c + 8 * c * c + 8 * c;
  const auto lengths = spec.at("lengths").get<std::vector<int>>();
  MemoryEstimate e{0, 1, "/lengths/0", "lengths, batch or d_model"};
  for (std::size_t i = 0; i < lengths.size(); ++i) {
    const int T = lengths[i];
    const double floats = weights + 2.0 * B * T * C +
                          static_cast<double>(kernels::mha_flash_workspace_size(kernels::mha_dims(B, T, T, C, H), {}, std::max(1, jobs))) +
                          static_cast<double>(kernels::lstm_inference_workspace_size(B, C));
    if (floats * sizeof(float) > e.bytes) e = {floats * sizeof(float), 1, fmt::format("/lengths/{}", i), e.reduce};
  }
  return e;
}

}  // namespace

Experiment timing_experiment() {
  using spec::Type;
  return {.name = "timing",
          .summary = "forward time of multi-head attention versus an LSTM by sequence length (wall clock)",
          .course_order = 16,
          .params = {{.name = "lengths", .type = Type::IntegerList, .default_value = {32, 128, 512},
                      .doc = "sequence lengths T, one row each (memory is linear in T)", .min = 1, .max = 8192},
                     {.name = "batch", .type = Type::Integer, .default_value = 8,
                      .doc = "sequences per forward pass", .min = 1, .max = 1024},
                     d_model_param(64, "d_model of the attention and hidden size of the LSTM", 1, 4096),
                     n_heads_param(4),
                     {.name = "repeats", .type = Type::Integer, .default_value = 10,
                      .doc = "forward passes averaged per figure", .min = 1, .max = 10000},
                     seed_param()},
          .check = check,
          .run = run,
          .memory = memory};
}

}  // namespace attnlab::experiments
