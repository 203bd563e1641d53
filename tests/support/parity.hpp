// Comparing a model's parameters and gradients with a PyTorch dump
// (data/models/*.json, written by scripts/make_model_goldens.py).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "kernels/parameters.hpp"
#include "random/generator.hpp"
#include "support/golden.hpp"

namespace attnlab::testing {

/// Every parameter's name, shape and order equal PyTorch's named_parameters().
inline void expect_same_layout(const kernels::Parameters& params, const nlohmann::json& golden) {
  const auto& names = golden.at("parameter_names");
  ASSERT_EQ(params.info().size(), names.size());
  for (std::size_t i = 0; i < names.size(); ++i) {
    const auto& info = params.info()[i];
    EXPECT_EQ(info.name, names[i].get<std::string>());
    EXPECT_EQ(info.shape, golden.at("shapes").at(info.name).get<std::vector<int>>()) << info.name;
  }
}

/// Initial weights equal PyTorch's bit for bit (same seed, same draws).
inline void expect_init_bitwise(const kernels::Parameters& params, const nlohmann::json& golden) {
  for (std::size_t i = 0; i < params.info().size(); ++i) {
    const auto& info = params.info()[i];
    const auto want = as_floats(golden.at("init").at(info.name));
    ASSERT_EQ(want.size(), info.size) << info.name;
    const float* got = params.value(i);
    for (std::size_t k = 0; k < info.size; ++k)
      ASSERT_EQ(std::memcmp(&got[k], &want[k], sizeof(float)), 0)
          << info.name << "[" << k << "]: " << got[k] << " vs PyTorch " << want[k];
  }
}

/// |got - want| <= rel * max|want| over the tensor (plus a floor of 1e-9):
/// "within `rel` relative" for a tensor whose small entries are sums that
/// cancel. Reports the worst element. A NaN or an infinity anywhere in got or
/// want fails, naming its index: with `err > worst` alone a NaN never counted
/// (every comparison with NaN is false), so a partly NaN gradient passed.
inline void expect_tensor_close(const std::string& name, const float* got, const std::vector<float>& want,
                                double rel) {
  double scale = 0.0;
  for (std::size_t k = 0; k < want.size(); ++k) {
    if (!std::isfinite(got[k]) || !std::isfinite(want[k])) {
      ADD_FAILURE() << name << "[" << k << "]: " << got[k] << " vs PyTorch " << want[k] << ": not finite";
      return;
    }
    scale = std::max(scale, static_cast<double>(std::abs(want[k])));
  }
  double worst = 0.0;
  std::size_t worst_k = 0;
  for (std::size_t k = 0; k < want.size(); ++k) {
    const double err = std::abs(static_cast<double>(got[k]) - want[k]);
    if (err > worst) {
      worst = err;
      worst_k = k;
    }
  }
  EXPECT_LE(worst, rel * scale + 1e-9) << name << "[" << worst_k << "]: " << got[worst_k] << " vs PyTorch "
                                       << want[worst_k] << " (tensor max |value| " << scale << ")";
}

/// Every gradient within `rel` of PyTorch's, tensor by tensor.
inline void expect_grads_close(const kernels::Parameters& params, const nlohmann::json& golden, double rel) {
  for (std::size_t i = 0; i < params.info().size(); ++i) {
    const auto& info = params.info()[i];
    expect_tensor_close("grad " + info.name, params.grad(i), as_floats(golden.at("grads").at(info.name)), rel);
  }
}

/// Whether check_classifier_parity also compares logits(batch) after the step.
enum class CompareLogits { no, yes };

/// A classifier against its PyTorch dump data/models/<file>: Model built from
/// cfg with the generator of torch.manual_seed(0), sized for the dump's batch
/// (B, T), has PyTorch's parameter names, shapes and initial weights; its
/// evaluation-mode logits of the batch equal PyTorch's (eval_logits) within
/// 2e-6 relative; one train_step on that batch, drawing any dropout from
/// `train_gen`, gives the loss and every gradient (and, if asked, the logits
/// after the step, which for a model without dropout are the training-mode
/// logits) within 1e-5 relative.
template <class Model, class Config>
void check_classifier_parity(const std::string& file, const Config& cfg, random::Generator& train_gen,
                             CompareLogits compare_logits) {
  const auto golden = load_golden("models/" + file);
  random::Generator init(0);
  const auto& batch = golden.at("batch");
  const int B = batch.at("B"), T = batch.at("T");
  Model model(cfg, init, B, T);
  expect_same_layout(model.params, golden);
  expect_init_bitwise(model.params, golden);

  const auto tokens = batch.at("tokens").get<std::vector<std::int32_t>>();
  const auto labels = batch.at("labels").get<std::vector<std::int32_t>>();
  std::vector<float> eval_logits(static_cast<std::size_t>(B) * 2);
  model.logits(tokens.data(), B, eval_logits.data());
  // Measured: at most 3.2e-7 of the largest logit over the seven models.
  expect_tensor_close("eval logits", eval_logits.data(), as_floats(golden.at("eval_logits")), 2e-6);
  model.params.zero_grad();
  const float loss = model.train_step(tokens.data(), labels.data(), B, train_gen);
  EXPECT_NEAR(loss, golden.at("loss").get<double>(), 1e-5 * golden.at("loss").get<double>());
  if (compare_logits == CompareLogits::yes) {
    std::vector<float> logits(static_cast<std::size_t>(B) * 2);
    model.logits(tokens.data(), B, logits.data());
    expect_tensor_close("logits", logits.data(), as_floats(golden.at("logits")), 1e-5);
  }
  expect_grads_close(model.params, golden, 1e-5);
}

}  // namespace attnlab::testing
