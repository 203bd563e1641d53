// attnlab_example: load a model trained in PyTorch from its .npy state_dict
// and reproduce PyTorch's logits, using nothing but attnlab's public door.
//
//   attnlab_example data/models/trained_positions
//
// The folder holds state_dict/<key>.npy (numpy.save of each tensor),
// tokens.npy (B, T) int32 and logits.npy (B, 2), PyTorch's logits for them
// (scripts/make_trained_model_golden.py). Prints the first rows of both and
// the largest difference; exits 1 if it exceeds 1e-5, 2 on bad usage.
#include <cmath>
#include <cstdio>
#include <exception>
#include <string>

#include <xtensor/xnpy.hpp>

#include "positions_classifier.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s FOLDER  (a folder with state_dict/, tokens.npy and logits.npy)\n", argv[0]);
    return 2;
  }
  const std::string folder = argv[1];
  try {
    attnlab::Generator gen(0);  // torch.manual_seed(0)
    example::PositionsClassifier model(gen);
    attnlab::load_state_dict(*model.store, folder + "/state_dict");
    const xt::xtensor<std::int32_t, 2> tokens = xt::load_npy<std::int32_t>(folder + "/tokens.npy");
    const attnlab::Tensor<2> torch_logits = xt::load_npy<float>(folder + "/logits.npy");
    const attnlab::Tensor<2> logits = model.forward(tokens);

    double worst = 0;
    for (std::size_t i = 0; i < logits.size(); ++i)
      worst = std::fmax(worst, std::fabs(double(logits.flat(i)) - double(torch_logits.flat(i))));
    std::printf("%zu sequences of %zu tokens, %zu parameters loaded\n", tokens.shape()[0], tokens.shape()[1],
                model.store->count());
    std::printf("%-10s %24s %24s\n", "sequence", "attnlab logits", "PyTorch logits");
    for (std::size_t b = 0; b < 4 && b < logits.shape()[0]; ++b)
      std::printf("%-10zu %11.6f %11.6f  %11.6f %11.6f\n", b, logits(b, 0), logits(b, 1), torch_logits(b, 0),
                  torch_logits(b, 1));
    std::printf("max |attnlab - PyTorch| = %.3g\n", worst);
    return worst <= 1e-5 ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "attnlab_example: %s\n", e.what());
    return 1;
  }
}
