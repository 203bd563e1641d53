#include "attnlab/nn/multihead_attention.hpp"

#include <stdexcept>

#include "kernels/flash_attention.hpp"
#include <string>

namespace attnlab::nn {

namespace {
constexpr const char* kForward = "MultiheadAttention::forward";
constexpr const char* kBackward = "MultiheadAttention::backward";
}  // namespace

MultiheadAttention::MultiheadAttention(const MultiheadAttentionOptions& o, Generator& gen, const Scope& scope)
    : Module(scope), options_(o), gen_(&gen) {
  const int E = o.embed_dim();
  kernels::mha_dims(1, 1, 1, E, o.num_heads(), {.kdim = o.kdim(), .vdim = o.vdim()});  // throws for bad sizes
  if (o.kdim() <= 0 || o.vdim() <= 0)
    throw std::invalid_argument("MultiheadAttention: kdim and vdim must be positive, got " +
                                std::to_string(o.kdim()) + " and " + std::to_string(o.vdim()));
  if (!(o.dropout() >= 0.0 && o.dropout() <= 1.0))
    throw std::invalid_argument("MultiheadAttention: dropout probability has to be between 0 and 1, but got " +
                                std::to_string(o.dropout()));
  // registration order = PyTorch's state_dict order
  packed_ = o.kdim() == E && o.vdim() == E;
  if (packed_) {
    in_w_ = register_parameter("in_proj_weight", {3 * E, E});
  } else {
    q_w_ = register_parameter("q_proj_weight", {E, E});
    k_w_ = register_parameter("k_proj_weight", {E, o.kdim()});
    v_w_ = register_parameter("v_proj_weight", {E, o.vdim()});
  }
  if (o.bias()) in_b_ = register_parameter("in_proj_bias", {3 * E});
  if (o.add_bias_kv()) {
    bias_k_ = register_parameter("bias_k", {1, 1, E});
    bias_v_ = register_parameter("bias_v", {1, 1, E});
  }
  out_w_ = register_parameter("out_proj.weight", {E, E});
  if (o.bias()) out_b_ = register_parameter("out_proj.bias", {E});
  kernels::mha_init(gen, grads_of_values(), E, o.kdim(), o.vdim());
}

kernels::MhaGrads<float> MultiheadAttention::grads_of_values() const {
  // the parameter values by role, writable (what mha_init fills)
  auto at = [this](std::size_t i) { return i == kNone ? nullptr : value(i); };
  kernels::MhaGrads<float> p;
  p.q_proj_weight = packed_ ? value(in_w_) : value(q_w_);
  p.k_proj_weight = packed_ ? p.q_proj_weight + std::size_t(options_.embed_dim()) * options_.embed_dim() : value(k_w_);
  p.v_proj_weight = packed_ ? p.k_proj_weight + std::size_t(options_.embed_dim()) * options_.embed_dim() : value(v_w_);
  p.in_proj_bias = at(in_b_);
  p.bias_k = at(bias_k_);
  p.bias_v = at(bias_v_);
  p.out_proj_weight = value(out_w_);
  p.out_proj_bias = at(out_b_);
  return p;
}

kernels::MhaParams<float> MultiheadAttention::params() const {
  const kernels::MhaGrads<float> v = grads_of_values();
  return {v.q_proj_weight, v.k_proj_weight, v.v_proj_weight, v.in_proj_bias,
          v.bias_k,        v.bias_v,        v.out_proj_weight, v.out_proj_bias};
}

kernels::MhaGrads<float> MultiheadAttention::grads() const {
  auto at = [this](std::size_t i) { return i == kNone ? nullptr : grad(i); };
  const std::size_t EE = std::size_t(options_.embed_dim()) * options_.embed_dim();
  kernels::MhaGrads<float> g;
  g.q_proj_weight = packed_ ? grad(in_w_) : grad(q_w_);
  g.k_proj_weight = packed_ ? g.q_proj_weight + EE : grad(k_w_);
  g.v_proj_weight = packed_ ? g.k_proj_weight + EE : grad(v_w_);
  g.in_proj_bias = at(in_b_);
  g.bias_k = at(bias_k_);
  g.bias_v = at(bias_v_);
  g.out_proj_weight = grad(out_w_);
  g.out_proj_bias = at(out_b_);
  return g;
}

MultiheadAttentionOutput MultiheadAttention::forward(const Tensor<3>& query, const Tensor<3>& key,
                                                     const Tensor<3>& value,
                                                     const MultiheadAttentionForwardOptions& f) {
  const auto& o = options_;
  const long E = o.embed_dim(), H = o.num_heads();
  const bool bf = o.batch_first();
  // query (L, N, E) or (N, L, E)
  check_shape(kForward, "query", shape_of(query), {-1, -1, E}, bf ? std::vector<std::string>{"N", "L"}
                                                                    : std::vector<std::string>{"L", "N"});
  const long N = long(query.shape()[bf ? 0 : 1]), L = long(query.shape()[bf ? 1 : 0]);
  const long S = long(key.shape()[bf ? 1 : 0]);
  const std::vector<std::string> kv_letters = bf ? std::vector<std::string>{"N", "S"} : std::vector<std::string>{"S", "N"};
  check_shape(kForward, "key", shape_of(key), bf ? std::vector<long>{N, -1, o.kdim()} : std::vector<long>{-1, N, o.kdim()},
              kv_letters);
  check_shape(kForward, "value", shape_of(value), bf ? std::vector<long>{N, S, o.vdim()} : std::vector<long>{S, N, o.vdim()});
  if (L == 0 || N == 0 || S == 0)
    throw std::invalid_argument(std::string(kForward) + ": empty input (L=" + std::to_string(L) +
                                ", N=" + std::to_string(N) + ", S=" + std::to_string(S) + ")");

  kernels::MhaMasks<float> masks;
  if (f.key_padding_mask.mask) {
    check_shape(kForward, "key_padding_mask", shape_of(*f.key_padding_mask.mask), {N, S});
    masks.key_padding = reinterpret_cast<const std::uint8_t*>(f.key_padding_mask.mask->data());
  }
  const AttnMask& m = f.attn_mask;
  if (m.bool2 || m.float2) {
    check_shape(kForward, "attn_mask", m.bool2 ? shape_of(*m.bool2) : shape_of(*m.float2), {L, S});
  } else if (m.bool3 || m.float3) {
    check_shape(kForward, "attn_mask", m.bool3 ? shape_of(*m.bool3) : shape_of(*m.float3), {N * H, L, S});
    masks.attn_per_head = true;
  }
  if (m.bool2) masks.attn_bool = reinterpret_cast<const std::uint8_t*>(m.bool2->data());
  if (m.bool3) masks.attn_bool = reinterpret_cast<const std::uint8_t*>(m.bool3->data());
  if (m.float2) masks.attn_float = m.float2->data();
  if (m.float3) masks.attn_float = m.float3->data();
  masks.causal = f.is_causal;

  dims_ = kernels::mha_dims(int(N), int(L), int(S), int(E), int(H),
                   {.kdim = o.kdim(), .vdim = o.vdim(), .batch_first = bf, .add_bias_kv = o.add_bias_kv(),
                    .add_zero_attn = o.add_zero_attn()});
  const std::size_t Sp = dims_.keys();
  have_forward_ = false;

  MultiheadAttentionOutput result;
  result.attn_output = Tensor<3>::from_shape(query.shape());
  // Inference without weights: the flash path, O(L·E) memory instead of the
  // N·H·L·S' weights (PyTorch 2.x's fast path, taken in eval mode too); it
  // keeps nothing for a backward pass.
  if (!f.need_weights && !is_training()) {
    flash_.resize(kernels::mha_flash_workspace_size(dims_));
    kernels::mha_flash_forward<float>(result.attn_output.data(), flash_.data(), query.data(), key.data(), value.data(),
                             masks, params(), dims_);
    return result;
  }
  cache_.resize(kernels::mha_cache_size(dims_));

  kernels::MhaDropout<float> drop;
  dropped_ = is_training() && o.dropout() > 0.0;
  if (dropped_) {
    keep_.resize(std::size_t(N) * H * L * Sp);
    keep_scale_ = kernels::mha_draw_dropout(*gen_, keep_.data(), dims_, o.dropout());
    drop = {keep_.data(), keep_scale_};
  }

  kernels::MhaWeights which = kernels::MhaWeights::none;
  float* weights = nullptr;
  if (f.need_weights) {
    which = f.average_attn_weights ? kernels::MhaWeights::averaged : kernels::MhaWeights::per_head;
    std::vector<std::size_t> shape = f.average_attn_weights
                                         ? std::vector<std::size_t>{std::size_t(N), std::size_t(L), Sp}
                                         : std::vector<std::size_t>{std::size_t(N), std::size_t(H), std::size_t(L), Sp};
    result.attn_output_weights = xt::xarray<float>::from_shape(shape);
    weights = result.attn_output_weights->data();
  }
  kernels::mha_forward<float>(result.attn_output.data(), weights, which, cache_.data(), query.data(), key.data(), value.data(),
                     masks, drop, params(), dims_);
  have_forward_ = true;
  return result;
}

MultiheadAttentionGradients MultiheadAttention::backward(const Tensor<3>& grad_output, const Tensor<3>& query,
                                                         const Tensor<3>& key, const Tensor<3>& value) {
  if (!have_forward_)
    throw std::logic_error(std::string(kBackward) +
                           ": no forward() to go back through (a forward in eval mode with need_weights = false "
                           "runs the flash path, which keeps nothing for backward: run it in train() mode, or "
                           "with need_weights = true)");
  const kernels::MhaDims& d = dims_;
  const long B = d.B, T = d.T, S = d.S, E = d.C;
  const std::vector<long> q_shape = d.batch_first ? std::vector<long>{B, T, E} : std::vector<long>{T, B, E};
  check_shape(kBackward, "grad_output", shape_of(grad_output), q_shape);
  check_shape(kBackward, "query", shape_of(query), q_shape);
  check_shape(kBackward, "key", shape_of(key),
              d.batch_first ? std::vector<long>{B, S, d.kdim} : std::vector<long>{S, B, d.kdim});
  check_shape(kBackward, "value", shape_of(value),
              d.batch_first ? std::vector<long>{B, S, d.vdim} : std::vector<long>{S, B, d.vdim});
  scratch_.resize(kernels::mha_scratch_size(d));
  kernels::MhaDropout<float> drop;
  if (dropped_) drop = {keep_.data(), keep_scale_};

  MultiheadAttentionGradients g;
  g.query = xt::zeros<float>(query.shape());
  const bool self = &query == &key && &key == &value;
  float* dk = g.query.data();
  float* dv = g.query.data();
  if (!self) {
    g.key = xt::zeros<float>(key.shape());
    g.value = xt::zeros<float>(value.shape());
    dk = g.key.data();
    dv = g.value.data();
  }
  kernels::mha_backward<float>(g.query.data(), dk, dv, grads(), scratch_.data(), grad_output.data(), cache_.data(),
                      query.data(), key.data(), value.data(), drop, params(), d);
  return g;
}

std::size_t MultiheadAttention::need(std::size_t index, const char* name) const {
  if (index == kNone)
    throw std::logic_error(std::string("MultiheadAttention has no ") + name + " with these options");
  return index;
}

TensorView<2> MultiheadAttention::in_proj_weight() const {
  const std::size_t E = options_.embed_dim();
  return view<2>(value(need(in_w_, "in_proj_weight (kdim or vdim differ from embed_dim)")), {3 * E, E});
}
TensorView<2> MultiheadAttention::q_proj_weight() const {
  const std::size_t E = options_.embed_dim();
  return view<2>(value(need(q_w_, "q_proj_weight (the weights are packed in in_proj_weight)")), {E, E});
}
TensorView<2> MultiheadAttention::k_proj_weight() const {
  return view<2>(value(need(k_w_, "k_proj_weight (the weights are packed in in_proj_weight)")),
                 {std::size_t(options_.embed_dim()), std::size_t(options_.kdim())});
}
TensorView<2> MultiheadAttention::v_proj_weight() const {
  return view<2>(value(need(v_w_, "v_proj_weight (the weights are packed in in_proj_weight)")),
                 {std::size_t(options_.embed_dim()), std::size_t(options_.vdim())});
}
TensorView<1> MultiheadAttention::in_proj_bias() const {
  return view<1>(value(need(in_b_, "in_proj_bias (bias=false)")), {3 * std::size_t(options_.embed_dim())});
}
TensorView<3> MultiheadAttention::bias_k() const {
  return view<3>(value(need(bias_k_, "bias_k (add_bias_kv=false)")), {1, 1, std::size_t(options_.embed_dim())});
}
TensorView<3> MultiheadAttention::bias_v() const {
  return view<3>(value(need(bias_v_, "bias_v (add_bias_kv=false)")), {1, 1, std::size_t(options_.embed_dim())});
}
TensorView<2> MultiheadAttention::out_proj_weight() const {
  const std::size_t E = options_.embed_dim();
  return view<2>(value(out_w_), {E, E});
}
TensorView<1> MultiheadAttention::out_proj_bias() const {
  return view<1>(value(need(out_b_, "out_proj.bias (bias=false)")), {std::size_t(options_.embed_dim())});
}

}  // namespace attnlab::nn
