#include "attnlab/nn/functional.hpp"

#include <stdexcept>

#include "kernels/scaled_dot_product_attention.hpp"

namespace attnlab::nn::functional::detail {

namespace {
constexpr const char* kWhere = "scaled_dot_product_attention";

std::vector<long> as_long(const std::vector<std::size_t>& s) { return {s.begin(), s.end()}; }
}  // namespace

SdpaShape sdpa_shape(const std::vector<std::size_t>& q, const std::vector<std::size_t>& k,
                     const std::vector<std::size_t>& v, const AttentionMask& mask) {
  const std::size_t n = q.size();
  // key: the query's leading dimensions, any S, the query's E; value: the key's S, any Ev
  std::vector<long> want_k = as_long(q);
  want_k[n - 2] = -1;
  std::vector<std::string> letters(n, "*");
  letters[n - 2] = "S";
  check_shape(kWhere, "key", k, want_k, letters);
  std::vector<long> want_v = as_long(k);
  want_v[n - 1] = -1;
  letters[n - 1] = "Ev";
  check_shape(kWhere, "value", v, want_v, letters);
  SdpaShape s{1, int(q[n - 2]), int(k[n - 2]), int(q[n - 1]), int(v[n - 1]), false};
  for (std::size_t i = 0; i + 2 < n; ++i) s.B *= int(q[i]);
  if (s.B < 1 || s.L < 1 || s.S < 1 || s.E < 1 || s.Ev < 1)
    throw std::invalid_argument(std::string(kWhere) + ": empty input, query " + shape_string(q) + ", key " +
                                shape_string(k) + ", value " + shape_string(v));
  if (mask.keep || mask.add) {
    std::vector<long> full = as_long(q);
    full[n - 1] = s.S;
    if (mask.shape.size() == 2 && n > 2) {
      check_shape(kWhere, "attn_mask", mask.shape, {s.L, s.S});
    } else {
      check_shape(kWhere, "attn_mask", mask.shape, full);
      s.per_batch_mask = n > 2;
    }
  }
  return s;
}

void sdpa_forward_float(float* out, float* weights, const float* q, const float* k, const float* v,
                        const AttentionMask& mask, bool is_causal, const SdpaShape& s) {
  kernels::SdpaMask<float> m;
  m.keep = mask.keep;
  m.add = mask.add;
  m.per_batch = s.per_batch_mask;
  m.causal = is_causal;
  kernels::sdpa_forward(out, weights, q, k, v, m, s.B, s.L, s.S, s.E, s.Ev);
}

void sdpa_backward_float(float* dq, float* dk, float* dv, const float* dout, const float* dweights,
                         const float* weights, const float* q, const float* k, const float* v, const SdpaShape& s) {
  std::vector<float> scratch(static_cast<std::size_t>(s.S));
  kernels::sdpa_backward(dq, dk, dv, scratch.data(), dout, dweights, weights, q, k, v, s.B, s.L, s.S, s.E, s.Ev);
}

}  // namespace attnlab::nn::functional::detail
