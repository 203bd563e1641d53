// Seed page 003, "MultiheadAttention in PyTorch" and "Masked Attention", run
// through attnlab's public door (attnlab/nn/multihead_attention.hpp):
//   part 1  Q, K, V = torch.rand(N, B, E), torch.rand(M, B, kdim), torch.rand(M, B, vdim)
//           MHA = nn.MultiheadAttention(E, H, bias=, add_bias_kv=, add_zero_attn=, kdim=, vdim=)
//           A, W = MHA(Q, K, V): the shapes line and the state_dict lines
//   part 2  the page's masked snippet (E, H, N, M, B = 8, 4, 3, 4, 1): the weights with
//           key_padding_mask=[[False, True, False, True]], then with the float attn_mask
//           whose corners are -inf, 4 decimals, one row per query
//   part 3  the page's by-hand function (mha_by_hand.hpp) on part 2's layer with both
//           masks, and its root-sum-square difference from the layer's output and weights
// Each part starts from torch.manual_seed(seed), as each of the page's snippets does.
#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <xtensor/xview.hpp>

#include "attnlab/nn/multihead_attention.hpp"
#include "experiments/common_params.hpp"
#include "experiments/experiment.hpp"
#include "experiments/mha_by_hand.hpp"
#include "experiments/python_format.hpp"
#include "experiments/spec_rules.hpp"

namespace attnlab::experiments {

namespace {

using attnlab::Tensor;

// torch.rand(a, b, c) on the generator
Tensor<3> rand3(Generator& g, std::size_t a, std::size_t b, std::size_t c) {
  Tensor<3> t = Tensor<3>::from_shape({a, b, c});
  g.uniform(t.data(), t.size());
  return t;
}

nlohmann::json nested(const xt::xarray<float>& t) {
  // a (d0, d1, d2) tensor as nested lists, Python's t.tolist()
  nlohmann::json out = nlohmann::json::array();
  for (std::size_t i = 0; i < t.shape()[0]; ++i) {
    nlohmann::json a = nlohmann::json::array();
    for (std::size_t j = 0; j < t.shape()[1]; ++j) {
      nlohmann::json b = nlohmann::json::array();
      for (std::size_t k = 0; k < t.shape()[2]; ++k) b.push_back(double(t(i, j, k)));
      a.push_back(std::move(b));
    }
    out.push_back(std::move(a));
  }
  return out;
}

std::vector<long long> dims(const std::vector<std::size_t>& s) { return {s.begin(), s.end()}; }

// print(W) as the page shows it: [[[0.5148, 0.0000, ...],\n  [...]]]
std::string weights_text(const xt::xarray<float>& W) {
  std::string s;
  const std::size_t B = W.shape()[0], N = W.shape()[1], M = W.shape()[2];
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t i = 0; i < N; ++i) {
      s += b == 0 && i == 0 ? "[[[" : i == 0 ? " [[" : "  [";
      for (std::size_t j = 0; j < M; ++j) s += fmt::format("{}{:.4f}", j ? ", " : "", W(b, i, j) + 0.0f);
      s += i + 1 < N ? "],\n" : b + 1 < B ? "]],\n" : "]]]\n";
    }
  return s;
}

double rss(const xt::xarray<float>& a, const xt::xarray<float>& b) {
  double s = 0;
  for (std::size_t n = 0; n < a.size(); ++n) {
    const double d = double(a.flat(n)) - double(b.flat(n));
    s += d * d;
  }
  return std::sqrt(s);
}

Report run(const nlohmann::json& spec, const RunContext&) {
  const std::uint64_t seed = spec.at("seed").get<std::uint64_t>();
  Report r;

  // part 1
  const int E = spec.at("embed_dim"), H = spec.at("num_heads"), N = spec.at("n_queries"), M = spec.at("n_keys"),
            B = spec.at("batch");
  const int kdim = spec.at("kdim").get<int>() ? spec.at("kdim").get<int>() : E;
  const int vdim = spec.at("vdim").get<int>() ? spec.at("vdim").get<int>() : E;
  Generator g(seed);
  const Tensor<3> Q = rand3(g, N, B, E), K = rand3(g, M, B, kdim), V = rand3(g, M, B, vdim);
  nn::MultiheadAttention mha(nn::MultiheadAttentionOptions(E, H)
                                 .bias(spec.at("bias"))
                                 .add_bias_kv(spec.at("add_bias_kv"))
                                 .add_zero_attn(spec.at("add_zero_attn"))
                                 .kdim(kdim)
                                 .vdim(vdim),
                             g);
  auto [A, W] = mha.forward(Q, K, V);
  const auto a_shape = shape_of(A), w_shape = shape_of(*W);
  r.text = fmt::format("E, H, N, M, B = {}, {}, {}, {}, {};  kdim, vdim = {}, {}\n", E, H, N, M, B, kdim, vdim);
  r.text += py_shape(dims(a_shape)) + " " + py_shape(dims(w_shape)) + "\n";
  nlohmann::json state = nlohmann::json::array();
  for (const auto& p : mha.named_parameters()) {
    r.text += fmt::format("{:20s}  shape: {}\n", p.name, py_shape(dims(p.shape)));
    state.push_back({{"name", p.name}, {"shape", p.shape}});
  }

  // part 2: the page's layer and masks
  const int E2 = 8, H2 = 4, N2 = 3, M2 = 4, B2 = 1;
  g.manual_seed(seed);
  const Tensor<3> Q2 = rand3(g, N2, B2, E2), K2 = rand3(g, M2, B2, E2), V2 = rand3(g, M2, B2, E2);
  nn::MultiheadAttention mha2(nn::MultiheadAttentionOptions(E2, H2), g);
  const xt::xtensor<bool, 2> key_mask = {{false, true, false, true}};
  const float inf = -std::numeric_limits<float>::infinity();
  const xt::xtensor<float, 2> attn_mask = {{inf, 0, 0, inf}, {0, 0, 0, 0}, {inf, 0, 0, inf}};
  auto [A_kpm, W_kpm] = mha2.forward(Q2, K2, V2, {.key_padding_mask = key_mask});
  auto [A_am, W_am] = mha2.forward(Q2, K2, V2, {.attn_mask = attn_mask});
  r.text += "\nweights with key_padding_mask=[[False, True, False, True]]:\n" + weights_text(*W_kpm);
  r.text += "\nweights with attn_mask (-inf in the corners):\n" + weights_text(*W_am);

  // part 3: the page's function on part 2's layer, both masks at once
  auto [A_both, W_both] = mha2.forward(Q2, K2, V2, {.key_padding_mask = key_mask, .attn_mask = attn_mask});
  const xt::xtensor<float, 2> Wi = mha2.in_proj_weight();
  const xt::xtensor<float, 1> Bi = mha2.in_proj_bias();
  using xt::all;
  using xt::range;
  const ByHandResult by_hand = mha_by_hand(
      Q2, K2, V2, xt::view(Wi, range(0, E2), all()), xt::view(Wi, range(E2, 2 * E2), all()),
      xt::view(Wi, range(2 * E2, 3 * E2), all()), mha2.out_proj_weight(), xt::view(Bi, range(0, E2)),
      xt::view(Bi, range(E2, 2 * E2)), xt::view(Bi, range(2 * E2, 3 * E2)), mha2.out_proj_bias(), H2, &key_mask,
      &attn_mask);
  const double d_out = rss(A_both, by_hand.output), d_w = rss(*W_both, by_hand.weights);
  r.text += "\nby hand (linear, heads, bmm, masks, softmax, average) against the layer, both masks:\n";
  r.text += fmt::format("root-sum-square difference  output {:.1e}  weights {:.1e}\n", d_out, d_w);

  r.data = {{"output_shape", a_shape},
            {"weights_shape", w_shape},
            {"state_dict", state},
            {"output", nested(A)},
            {"weights", nested(*W)},
            {"weights_key_padding", nested(*W_kpm)},
            {"weights_attn_mask", nested(*W_am)},
            {"by_hand_difference", {{"output", d_out}, {"weights", d_w}}}};
  return r;
}

// Part 1 holds the most: its inputs, the layer (values and gradients), its
// cache, the output and weights, and both again as nested JSON lists, which
// grow by push_back (up to twice their size) and are printed by --format
// json. Parts 2 and 3 are the page's fixed small layer.
MemoryEstimate memory(const nlohmann::json& spec, int) {
  const int E = spec.at("embed_dim"), H = spec.at("num_heads"), N = spec.at("n_queries"), M = spec.at("n_keys"),
            B = spec.at("batch");
  const int kdim = spec.at("kdim").get<int>() ? spec.at("kdim").get<int>() : E;
  const int vdim = spec.at("vdim").get<int>() ? spec.at("vdim").get<int>() : E;
  const bool bias_kv = spec.at("add_bias_kv"), zero_attn = spec.at("add_zero_attn");
  const kernels::MhaDims d = kernels::mha_dims(B, N, M, E, H,
                                     {.kdim = kdim, .vdim = vdim, .batch_first = false, .add_bias_kv = bias_kv,
                                      .add_zero_attn = zero_attn});
  const double out = double(N) * B * E, weights = double(B) * N * d.keys();
  const double floats = double(M) * B * (kdim + vdim) + out  // Q, K, V
                        + 2.0 * double(kernels::mha_parameter_count(E, kdim, vdim, spec.at("bias"), bias_kv)) +
                        double(kernels::mha_cache_size(d)) + out + weights;  // A, W
  const double json = (out + weights) * (2 * kJsonNumberBytes + kJsonPrintedNumberBytes);
  return {floats * sizeof(float) + json + 256 * 1024, 1, N * double(E) >= double(B) * d.keys() ? "/embed_dim" : "/n_keys",
          "embed_dim, n_queries, n_keys or batch"};
}

void check(const nlohmann::json& spec, const std::string& file) {
  require_heads_divide_width(spec, file, "embed_dim", "num_heads");  // "embed_dim must be divisible by num_heads"
}

}  // namespace

Experiment torch_mha_experiment() {
  using spec::Type;
  return {.name = "torch_mha",
          .summary = "nn.MultiheadAttention in full, as PyTorch's page shows it: shapes, state_dict, masked weights, by hand",
          .course_order = 20,
          .params = {{.name = "embed_dim", .type = Type::Integer, .default_value = 100,
                      .doc = "part 1: E, the layer's width", .min = 1, .max = 1024},
                     {.name = "num_heads", .type = Type::Integer, .default_value = 10,
                      .doc = "part 1: H; must divide embed_dim", .min = 1, .max = 64},
                     {.name = "n_queries", .type = Type::Integer, .default_value = 3,
                      .doc = "part 1: N, query length", .min = 1, .max = 512},
                     {.name = "n_keys", .type = Type::Integer, .default_value = 3,
                      .doc = "part 1: M, key/value length", .min = 1, .max = 512},
                     {.name = "batch", .type = Type::Integer, .default_value = 1,
                      .doc = "part 1: B, batch size", .min = 1, .max = 64},
                     {.name = "kdim", .type = Type::Integer, .default_value = 0,
                      .doc = "part 1: key width; 0 = embed_dim (Python's None)", .min = 0, .max = 1024},
                     {.name = "vdim", .type = Type::Integer, .default_value = 0,
                      .doc = "part 1: value width; 0 = embed_dim (Python's None)", .min = 0, .max = 1024},
                     {.name = "bias", .type = Type::Boolean, .default_value = true,
                      .doc = "part 1: in_proj_bias and out_proj.bias"},
                     {.name = "add_bias_kv", .type = Type::Boolean, .default_value = false,
                      .doc = "part 1: append bias_k / bias_v as one more key"},
                     {.name = "add_zero_attn", .type = Type::Boolean, .default_value = false,
                      .doc = "part 1: append a zero key and value"},
                     seed_param()},
          .check = check,
          .run = run,
          .memory = memory};
}

}  // namespace attnlab::experiments
