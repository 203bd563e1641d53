// attnlab_stream_example: the attention page's causal stream with the
// installed library — a causal transformer_encoder fed one step at a time
// (init_cache / step), each output checked against forward() on the prefix.
//
//   attnlab_stream_example [STEPS]
//
// Prints the largest difference; exits 1 if it exceeds 1e-5 (the page's
// tolerance), 2 on bad usage.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include <xtensor/xview.hpp>

#include "attnlab/attnlab.hpp"

int main(int argc, char** argv) {
  const int steps = argc > 1 ? std::atoi(argv[1]) : 16;
  if (argc > 2 || steps < 1) {
    std::fprintf(stderr, "usage: %s [STEPS]  (a positive number of steps, default 16)\n", argv[0]);
    return 2;
  }
  namespace nn = attnlab::nn;
  try {
    attnlab::Generator gen(0);
    nn::Sequential model = nn::transformer_encoder(
        nn::TransformerEncoderOptions(4, 32, 4, 64, 2, 3).max_len(steps).causal(true), gen);
    model.eval();
    attnlab::Tensor<2> x = attnlab::Tensor<2>::from_shape({std::size_t(steps), 4});
    attnlab::Generator data(1);
    data.normal(x.data(), x.size());

    nn::Cache cache = model.init_cache({.max_len = steps});
    double worst = 0;
    for (int t = 0; t < steps; ++t) {
      const xt::xarray<float> y = model.step(xt::xarray<float>(xt::view(x, t, xt::all())), cache);
      const xt::xarray<float> want = model.forward(xt::xarray<float>(xt::view(x, xt::range(0, t + 1), xt::all())));
      for (std::size_t i = 0; i < y.size(); ++i) worst = std::fmax(worst, std::fabs(double(y.flat(i)) - want.flat(i)));
    }
    std::printf("%d steps through a causal encoder of %zu parameters, %zu attention layers cached\n", steps,
                model.store().count(), cache.layers());
    std::printf("max |step - forward(prefix)| = %.3g\n", worst);
    return worst <= 1e-5 ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "attnlab_stream_example: %s\n", e.what());
    return 1;
  }
}
