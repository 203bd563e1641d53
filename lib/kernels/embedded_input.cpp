#include "kernels/embedded_input.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "kernels/embedding.hpp"
#include "kernels/recurrent_kernels.hpp"
#include "tensor/gemm.hpp"

namespace attnlab::kernels {

template <class Real>
void check_embedded_input(const char* where, const EmbeddedInput<Real>& inp, int N, int I, int GH) {
  if (N < 1 || inp.vocab < 1 || I < 1 || GH < 1)
    throw std::invalid_argument(std::string(where) + ": need N, vocab, I, GH >= 1, got N=" + std::to_string(N) +
                                " vocab=" + std::to_string(inp.vocab) + " I=" + std::to_string(I) +
                                " GH=" + std::to_string(GH));
  for (int r = 0; r < N; ++r)
    if (inp.ids[r] < 0 || inp.ids[r] >= inp.vocab) [[unlikely]]
      throw std::out_of_range(std::string(where) + ": id " + std::to_string(inp.ids[r]) + " at position " +
                              std::to_string(r) + " is outside [0, " + std::to_string(inp.vocab) + ")");
}

template <class Real>
void embedded_projection_forward(Real* xg, const EmbeddedInput<Real>& inp, const Real* weight_ih, const Real* bias,
                                 const Real* bias2, int N, int I, int GH) {
  check_embedded_input("embedded_projection_forward", inp, N, I, GH);
  // table (V, GH) = bias (+ bias2) + emb (V, I) · W_ih^T: the rows the dense
  // pass computes for x = emb[ids], each the same sum in the same order
  detail::fill_rows(inp.table, bias, bias2, inp.vocab, GH);
  tensor::gemm<Real>(false, true, inp.vocab, GH, I, Real(1), inp.weight, I, weight_ih, I, Real(1), inp.table, GH);
  embedding_forward(xg, inp.ids, inp.table, N, inp.vocab, GH);  // xg[r] = table[ids[r]]
}

template <class Real>
void embedded_projection_backward(Real* dweight_emb, Real* dweight_ih, const Real* dxg,
                                  const EmbeddedInput<Real>& inp, const Real* weight_ih, int N, int I, int GH) {
  check_embedded_input("embedded_projection_backward", inp, N, I, GH);
  if (!dweight_emb && !dweight_ih) return;
  // dtable[v] = Σ dxg[r] over the rows r of token v, rows in order
  Real* dtable = inp.table;
  std::fill(dtable, dtable + embedded_table_size(inp.vocab, 1, GH), Real(0));
  embedding_backward(dtable, dxg, inp.ids, N, inp.vocab, GH);
  if (dweight_ih)  // dW_ih (GH, I) += dtable^T (GH, V) · emb (V, I)
    tensor::gemm<Real>(true, false, GH, I, inp.vocab, Real(1), dtable, GH, inp.weight, I, Real(1), dweight_ih, I);
  if (dweight_emb)  // demb (V, I) += dtable (V, GH) · W_ih (GH, I)
    tensor::gemm<Real>(false, false, inp.vocab, I, GH, Real(1), dtable, GH, weight_ih, I, Real(1), dweight_emb, I);
}

template void check_embedded_input<float>(const char*, const EmbeddedInput<float>&, int, int, int);
template void check_embedded_input<double>(const char*, const EmbeddedInput<double>&, int, int, int);
template void embedded_projection_forward<float>(float*, const EmbeddedInput<float>&, const float*, const float*,
                                                 const float*, int, int, int);
template void embedded_projection_forward<double>(double*, const EmbeddedInput<double>&, const double*, const double*,
                                                  const double*, int, int, int);
template void embedded_projection_backward<float>(float*, float*, const float*, const EmbeddedInput<float>&,
                                                  const float*, int, int, int);
template void embedded_projection_backward<double>(double*, double*, const double*, const EmbeddedInput<double>&,
                                                   const double*, int, int, int);

}  // namespace attnlab::kernels
