// Fully connected layer: out = inp · weight^T + bias, as torch.nn.Linear.
#pragma once

namespace attnlab::random {
class Generator;
}

namespace attnlab::kernels {

/// Forward pass of a linear layer over N rows (N = B*T for a sequence batch):
///   out (N, OC) = inp (N, C) · weight (OC, C)^T + bias (OC).
/// bias may be nullptr (nn.Linear(..., bias=False)). weight is stored as
/// PyTorch stores it, (out_features, in_features), row-major. out must not
/// overlap inp, weight or bias. One gemm call; with a bias, out is first
/// filled with the bias rows and the product accumulated into it (beta = 1),
/// as PyTorch's addmm does.
/// Throws std::invalid_argument unless N, C, OC >= 1.
/// Source: torch.nn.Linear documentation (y = x A^T + b).
template <class T>
void linear_forward(T* out, const T* inp, const T* weight, const T* bias, int N, int C, int OC);

/// Backward pass of linear_forward, given dout (N, OC) = dLoss/dout. ADDS into
///   dinp (N, C)     += dout · weight
///   dweight (OC, C) += dout^T · inp
///   dbias (OC)      += sum over the N rows of dout;
/// each of dinp, dweight, dbias may be nullptr to skip it (e.g. the input is
/// token ids, or there is no bias). The caller zeroes gradients once per step.
/// Throws std::invalid_argument unless N, C, OC >= 1.
/// Source: the derivative of y = x W^T + b (as in karpathy/llm.c
/// matmul_backward).
template <class T>
void linear_backward(T* dinp, T* dweight, T* dbias, const T* dout, const T* inp, const T* weight,
                     int N, int C, int OC);

/// PyTorch's nn.Linear(in, out) initialisation, drawing from `gen` exactly as
/// reset_parameters() does (docs/torch_rng.md §7): first weight (out, in) with
/// kaiming_uniform_(a = sqrt(5)), i.e. uniform_(-b, b) with
/// b = sqrt(3) * sqrt(2 / (1 + sqrt(5)**2)) / sqrt(in) computed in double
/// (equal to fl(1/sqrt(in)) in float32 for in <= 2048); then, unless bias is
/// nullptr, bias (out) with uniform_(-1/sqrt(in), 1/sqrt(in)).
/// Draws in*out (+ out with a bias) 32-bit words.
/// Throws std::invalid_argument unless in, out >= 1.
/// Source: torch/nn/modules/linear.py reset_parameters, torch/nn/init.py.
void linear_init(random::Generator& gen, float* weight, float* bias, int in, int out);

}  // namespace attnlab::kernels
