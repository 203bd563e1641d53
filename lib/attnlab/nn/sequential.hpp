// nn.Sequential: modules run one after another, sharing one parameter
// buffer, named by their index as PyTorch names them ("0.weight",
// "2.self_attn.in_proj_weight"), with backward through all of them and, when
// every module can stream, init_cache / step for the whole stack.
//
//   attnlab::nn::Sequential m;
//   m.emplace_back<attnlab::nn::Linear>(attnlab::nn::LinearOptions(4, 8), gen);
//   m.emplace_back<attnlab::nn::AddPositions>(16, gen);
//   m.emplace_back<attnlab::nn::TransformerBlock>(attnlab::nn::TransformerBlockOptions(8, 2, 16), gen);
//   m.emplace_back<attnlab::nn::MeanOverTime>(gen);
//   m.emplace_back<attnlab::nn::Linear>(attnlab::nn::LinearOptions(8, 3), gen);
//   m.forward(x);            // x (5, 4) -> (3,);  (B, 5, 4) -> (B, 3)
//
// Values flow as xt::xarray<float> because their rank changes along the way
// (MeanOverTime turns (B, T, C) into (B, C)). Modules it holds: Linear and
// LayerNorm (row by row, so they also stream), MultiheadSelfAttention,
// TransformerBlock, AddPositions, LearnedPositions, MeanOverTime, and
// Sequential itself (libtorch's AnyModule idea: any type with these calls).
#pragma once

#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <xtensor/xarray.hpp>

#include "attnlab/nn/cache.hpp"
#include "attnlab/nn/linear.hpp"
#include "attnlab/nn/mean_over_time.hpp"
#include "attnlab/nn/module.hpp"
#include "attnlab/nn/normalization.hpp"

namespace attnlab::nn {

class Sequential;
class MultiheadSelfAttention;
class TransformerBlock;
class AddPositions;
class LearnedPositions;

namespace detail {

/// "Linear", "TransformerBlock", ...: for messages.
template <class M>
std::string module_name() {
  if constexpr (std::is_same_v<M, Linear>) return "Linear";
  else if constexpr (std::is_same_v<M, LayerNorm>) return "LayerNorm";
  else if constexpr (std::is_same_v<M, MeanOverTime>) return "MeanOverTime";
  else if constexpr (std::is_same_v<M, MultiheadSelfAttention>) return "MultiheadSelfAttention";
  else if constexpr (std::is_same_v<M, TransformerBlock>) return "TransformerBlock";
  else if constexpr (std::is_same_v<M, AddPositions>) return "AddPositions";
  else if constexpr (std::is_same_v<M, LearnedPositions>) return "LearnedPositions";
  else if constexpr (std::is_same_v<M, Sequential>) return "Sequential";
  else return "module";
}

/// A module Sequential holds, behind one interface.
struct AnyModule {
  virtual ~AnyModule() = default;
  virtual xt::xarray<float> forward(const xt::xarray<float>& x) = 0;
  virtual xt::xarray<float> backward(const xt::xarray<float>& grad_output, const xt::xarray<float>& x) = 0;
  virtual void add_to_cache(Cache& cache) const = 0;
  virtual xt::xarray<float> step(const xt::xarray<float>& x_t, Cache& cache, StepCursor& cursor) = 0;
  virtual std::vector<std::size_t> output_shape(const std::vector<std::size_t>& input_shape) const = 0;
  virtual std::size_t forward_macs(const std::vector<std::size_t>& input_shape) const = 0;
  virtual void set_generator(Generator& gen) = 0;
  virtual Module& module() = 0;
  virtual std::string name() const = 0;
};

template <std::size_t N>
Tensor<N> to_tensor(const xt::xarray<float>& x) {
  std::array<std::size_t, N> shape;
  std::copy(x.shape().begin(), x.shape().end(), shape.begin());
  Tensor<N> t = Tensor<N>::from_shape(shape);
  std::copy(x.data(), x.data() + x.size(), t.data());
  return t;
}

template <std::size_t N>
xt::xarray<float> to_array(const Tensor<N>& t) {
  xt::xarray<float> a = xt::xarray<float>::from_shape(std::vector<std::size_t>(t.shape().begin(), t.shape().end()));
  std::copy(t.data(), t.data() + t.size(), a.data());
  return a;
}

// Stands for a Tensor<N> argument in the requires-checks below without
// allowing xtensor's implicit conversion between ranks (a Tensor<3> would
// otherwise convert to a Tensor<2> parameter): only one user-defined
// conversion is allowed in a call, and this one is it.
template <std::size_t N>
struct Exactly {
  operator const Tensor<N>&() const;  // NOLINT: declared only, for unevaluated checks
};

[[noreturn]] void bad_rank(const std::string& who, const char* what, std::size_t rank);

template <class M>
constexpr bool is_rowwise = std::is_same_v<M, Linear> || std::is_same_v<M, LayerNorm>;

template <class M>
class Held : public AnyModule {
 public:
  Held(std::shared_ptr<M> m, std::string name) : m_(std::move(m)), name_(std::move(name)) {}

  xt::xarray<float> forward(const xt::xarray<float>& x) override {
    if constexpr (std::is_same_v<M, Sequential>) {
      return m_->forward(x);
    } else {
      switch (x.dimension()) {
        case 1: return forward_rank<1>(x);
        case 2: return forward_rank<2>(x);
        case 3: return forward_rank<3>(x);
        default: bad_rank(name_, "forward", x.dimension());
      }
    }
  }

  xt::xarray<float> backward(const xt::xarray<float>& g, const xt::xarray<float>& x) override {
    if constexpr (std::is_same_v<M, Sequential>) {
      return m_->backward(g, x);
    } else {
      switch (x.dimension()) {
        case 1: return backward_rank<1>(g, x);
        case 2: return backward_rank<2>(g, x);
        case 3: return backward_rank<3>(g, x);
        default: bad_rank(name_, "backward", x.dimension());
      }
    }
  }

  void add_to_cache(Cache& cache) const override {
    if constexpr (requires { m_->add_to_cache(cache); }) m_->add_to_cache(cache);
  }

  xt::xarray<float> step(const xt::xarray<float>& x, Cache& cache, StepCursor& cursor) override {
    if constexpr (requires { m_->step(x, cache, cursor); }) {  // a nested Sequential
      return m_->step(x, cache, cursor);
    } else if constexpr (is_rowwise<M>) {  // one row at a time: the forward of the row
      return forward(x);
    } else {
      const int C = int(x.shape().back());
      xt::xarray<float> out = xt::xarray<float>::from_shape(x.shape());
      if constexpr (requires { m_->step_rows(out.data(), x.data(), C, cache, cursor); })
        m_->step_rows(out.data(), x.data(), C, cache, cursor);
      else if constexpr (requires { m_->step_rows(out.data(), x.data(), cache, cursor); })
        m_->step_rows(out.data(), x.data(), cache, cursor);
      else
        throw std::logic_error(name_ + " cannot step: it has no streaming form");
      return out;
    }
  }

  std::vector<std::size_t> output_shape(const std::vector<std::size_t>& s) const override {
    std::vector<std::size_t> out = s;
    if constexpr (requires { m_->output_shape(s); }) {
      return m_->output_shape(s);
    } else if constexpr (std::is_same_v<M, Linear>) {
      out.back() = std::size_t(m_->options().out_features());
    } else if constexpr (std::is_same_v<M, MeanOverTime>) {
      out.erase(out.end() - 2);
    }
    return out;
  }

  std::size_t forward_macs(const std::vector<std::size_t>& s) const override {
    if constexpr (requires { m_->forward_macs(s); }) {
      return m_->forward_macs(s);
    } else if constexpr (std::is_same_v<M, Linear>) {
      std::size_t rows = 1;
      for (std::size_t i = 0; i + 1 < s.size(); ++i) rows *= s[i];
      return rows * std::size_t(m_->options().in_features()) * std::size_t(m_->options().out_features());
    } else {
      return 0;  // elementwise work is not counted (nn/cost.hpp)
    }
  }

  void set_generator(Generator& gen) override {
    if constexpr (requires { m_->set_generator(gen); }) m_->set_generator(gen);
  }
  Module& module() override { return *m_; }
  std::string name() const override { return name_; }

 private:
  template <std::size_t N>
  xt::xarray<float> forward_rank(const xt::xarray<float>& x) {
    if constexpr (requires { m_->forward(Exactly<N>{}); } || requires { m_->template forward<N>(Exactly<N>{}); })
      return to_array(m_->forward(to_tensor<N>(x)));
    else
      bad_rank(name_, "forward", N);
  }
  template <std::size_t N>
  xt::xarray<float> backward_rank(const xt::xarray<float>& g, const xt::xarray<float>& x) {
    // the gradient has the output's rank: N, or N - 1 after MeanOverTime
    if (g.dimension() == N) {
      if constexpr (requires { m_->backward(Exactly<N>{}, Exactly<N>{}); } ||
                    requires { m_->template backward<N>(Exactly<N>{}, Exactly<N>{}); })
        return to_array(m_->backward(to_tensor<N>(g), to_tensor<N>(x)));
    } else if constexpr (N >= 2) {
      if constexpr (requires { m_->backward(Exactly<N - 1>{}, Exactly<N>{}); })
        if (g.dimension() == N - 1) return to_array(m_->backward(to_tensor<N - 1>(g), to_tensor<N>(x)));
    }
    bad_rank(name_, "backward", N);
  }

  std::shared_ptr<M> m_;
  std::string name_;
};

}  // namespace detail

class Sequential : public Module {
 public:
  explicit Sequential(const Scope& scope = {}) : Module(scope) {}
  Sequential(Generator&, const Scope& scope) : Sequential(scope) {}  // as a child of another Sequential
  Sequential(Sequential&&) = default;
  Sequential& operator=(Sequential&&) = default;

  /// Builds the next module in place, M(args..., Scope{this store, "<index>"}),
  /// so its parameters join this buffer under its index, in order (after
  /// Generator(seed) the weights equal those of PyTorch's nn.Sequential built
  /// in the same order after torch.manual_seed(seed)). Returns the module.
  template <class M, class... Args>
  M& emplace_back(Args&&... args) {
    const std::string index = std::to_string(children_.size());
    auto m = std::make_shared<M>(std::forward<Args>(args)..., Scope{shared_store(), prefix().empty() ? index : prefix() + "." + index});
    adopt(*m);
    children_.push_back(std::make_unique<detail::Held<M>>(m, detail::module_name<M>() + " (" + index + ")"));
    return *m;
  }

  std::size_t size() const { return children_.size(); }
  /// The i-th module, as a Module (its parameters, train/eval).
  Module& operator[](std::size_t i) { return children_.at(i)->module(); }

  /// Runs every module in order (training mode as this container's). Keeps
  /// each module's input for backward(). Throws what a module throws, e.g. a
  /// shape naming the module.
  xt::xarray<float> forward(const xt::xarray<float>& x);
  /// ADDS every parameter gradient and returns d(loss)/dx for the last
  /// forward, given d(loss)/d(output) and that forward's x. Throws
  /// std::logic_error without a forward, std::invalid_argument for another x.
  xt::xarray<float> backward(const xt::xarray<float>& grad_output, const xt::xarray<float>& x);

  /// A cache for the whole stack (every attention layer's keys and values,
  /// the running mean); x_t (n_in) or (B, n_in) per step. step t returns what
  /// forward() returns on the first t + 1 steps (for a stack ending in
  /// MeanOverTime and a head: the output on the prefix). Every block must be
  /// causal (std::logic_error otherwise); a step beyond max_len is refused
  /// with std::length_error.
  Cache init_cache(const CacheOptions& options = {}) const;
  xt::xarray<float> step(const xt::xarray<float>& x_t, Cache& cache);
  void add_to_cache(Cache& cache) const;
  xt::xarray<float> step(const xt::xarray<float>& x_t, Cache& cache, StepCursor& cursor);

  /// Points every module's dropout at `gen` (fit() passes its generator, as
  /// PyTorch draws dropout from the global one).
  void set_generator(Generator& gen);
  /// The output shape and the multiply-adds (nn/cost.hpp) for an input shape.
  std::vector<std::size_t> output_shape(const std::vector<std::size_t>& input_shape) const;
  std::size_t forward_macs(const std::vector<std::size_t>& input_shape) const;

 private:
  std::vector<std::unique_ptr<detail::AnyModule>> children_;
  std::vector<xt::xarray<float>> inputs_;  // the last forward's input of each module
};

}  // namespace attnlab::nn
