// A first block over distinct input rows (kernels/pre_norm_block.hpp's
// DistinctRows; nn/mha_distinct_rows.hpp): the plain block's bytes forwards,
// its gradients to rounding backwards, finite differences through the rows,
// and the (token, position) grouping that feeds it (token_position_rows.hpp).
#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "models/token_position_rows.hpp"
#include "kernels/pre_norm_block.hpp"
#include "kernels/embedding.hpp"
#include "kernels/mha_distinct_rows.hpp"
#include "support/gradcheck.hpp"
#include "tensor/sgemm_tiles.hpp"

namespace attnlab::models {
namespace {

using testing::fill_pseudo_random;

// B = 3 sequences of T = 4 over U = 5 distinct rows, repeated unevenly;
// C = 8, H = 2, F = 16; dropout and causal as asked.
template <class Real>
struct Case {
  int B = 3, T = 4, C = 8, H = 2, F = 16, U = 5;
  kernels::BlockDims d;
  std::vector<std::vector<Real>> values, grads;
  std::vector<Real> rows, x, dout, table;
  std::vector<std::int32_t> idx;

  Case(double dropout, bool causal) : d{B, T, C, H, F, dropout, causal} {
    const auto specs = kernels::pre_norm_block_param_specs(C, F);
    unsigned seed = 200;
    for (const auto& s : specs) {
      const std::size_t n =
          std::accumulate(s.shape.begin(), s.shape.end(), std::size_t{1}, std::multiplies<>());
      std::vector<double> v(n);
      fill_pseudo_random(v.data(), n, seed++, 0.5);
      values.emplace_back(v.begin(), v.end());
      grads.emplace_back(n, Real(0));
    }
    for (Real& v : values[0]) v += 1;  // LayerNorm weights near 1
    for (Real& v : values[6]) v += 1;
    std::vector<double> r(static_cast<std::size_t>(U) * C), g(static_cast<std::size_t>(B) * T * C);
    fill_pseudo_random(r.data(), r.size(), 7);
    fill_pseudo_random(g.data(), g.size(), 8);
    rows.assign(r.begin(), r.end());
    dout.assign(g.begin(), g.end());
    for (int i = 0; i < B * T; ++i) idx.push_back((i * 3 + i / 5) % U);
    table.assign(kernels::mha_distinct_table_size(U, C), Real(0));
    expand();
  }
  void expand() {  // x[r] = rows[idx[r]]
    x.resize(static_cast<std::size_t>(B) * T * C);
    for (int r = 0; r < B * T; ++r) std::copy_n(rows.begin() + idx[r] * C, C, x.begin() + r * C);
  }
  kernels::PreNormTensors<Real> tensors(std::vector<std::vector<Real>>& t) {
    return {t[0].data(), t[1].data(), t[2].data(), t[3].data(), t[4].data(),  t[5].data(),
            t[6].data(), t[7].data(), t[8].data(), t[9].data(), t[10].data(), t[11].data()};
  }
  void zero_grads() {
    for (auto& g : grads) std::fill(g.begin(), g.end(), Real(0));
  }
  kernels::DistinctRows<Real> view(Real* d_rows) { return {rows.data(), idx.data(), U, table.data(), d_rows}; }
};

bool projection_is_bitwise(int C) { return tensor::detail::sgemm_tiles_take(false, true, 1, 3 * C, C, 1.0f, 1.0f); }

TEST(DistinctRows, ForwardIsThePlainBlockBitForBit) {
  for (double dropout : {0.0, 0.3})
    for (bool causal : {false, true}) {
      SCOPED_TRACE(::testing::Message() << "dropout " << dropout << " causal " << causal);
      Case<float> c(dropout, causal);
      if (!projection_is_bitwise(c.C)) GTEST_SKIP() << "no AVX2/FMA: OpenBLAS takes the projection";
      kernels::PreNormWorkspace<float> plain_ws(c.B, c.T, c.C, c.H, c.F), rows_ws = plain_ws;
      std::vector<float> plain(c.x.size()), folded(c.x.size());
      random::Generator g1(5), g2(5);
      kernels::pre_norm_block_forward(plain.data(), plain_ws, c.x.data(), c.tensors(c.values), c.d, &g1);
      const kernels::DistinctRows<float> rows = c.view(nullptr);
      kernels::pre_norm_block_forward(folded.data(), rows_ws, c.x.data(), c.tensors(c.values), c.d, &g2, &rows);
      EXPECT_EQ(plain, folded);
    }
}

// Every parameter gradient of the plain block, to rounding; the input's
// gradient summed over each distinct row's copies equals what dx and d_rows
// hold between them.
TEST(DistinctRows, BackwardMatchesThePlainBlock) {
  Case<double> c(0.3, false);
  kernels::PreNormWorkspace<double> ws(c.B, c.T, c.C, c.H, c.F);
  const std::size_t NC = c.x.size();
  random::Generator g1(5), g2(5);
  std::vector<double> out(NC), dx_plain(NC, 0.0), dx_rows(NC, 0.0), d_rows(c.rows.size(), 0.0);
  kernels::pre_norm_block_forward(out.data(), ws, c.x.data(), c.tensors(c.values), c.d, &g1);
  kernels::pre_norm_block_backward(dx_plain.data(), c.tensors(c.grads), ws, c.dout.data(), c.x.data(),
                             c.tensors(c.values), c.d);
  const auto plain_grads = c.grads;
  c.zero_grads();
  const kernels::DistinctRows<double> rows = c.view(d_rows.data());
  kernels::pre_norm_block_forward(out.data(), ws, c.x.data(), c.tensors(c.values), c.d, &g2, &rows);
  kernels::pre_norm_block_backward(dx_rows.data(), c.tensors(c.grads), ws, c.dout.data(), c.x.data(), c.tensors(c.values),
                             c.d, &rows);
  for (std::size_t t = 0; t < plain_grads.size(); ++t)
    for (std::size_t k = 0; k < plain_grads[t].size(); ++k)
      ASSERT_NEAR(c.grads[t][k], plain_grads[t][k], 1e-12 * std::max(1.0, std::abs(plain_grads[t][k])))
          << "tensor " << t << " element " << k;
  std::vector<double> want(c.rows.size(), 0.0), got = d_rows;
  for (int r = 0; r < c.B * c.T; ++r)
    for (int k = 0; k < c.C; ++k) {
      want[c.idx[r] * c.C + k] += dx_plain[r * c.C + k];
      got[c.idx[r] * c.C + k] += dx_rows[r * c.C + k];
    }
  for (std::size_t k = 0; k < want.size(); ++k) ASSERT_NEAR(got[k], want[k], 1e-12 * std::max(1.0, std::abs(want[k])));
  EXPECT_GT(*std::max_element(d_rows.begin(), d_rows.end()), 0.01);  // LN1's path really went to d_rows
}

// Finite differences through the distinct rows themselves (x rebuilt from
// them each evaluation) and through in_proj_weight, dropout on.
TEST(DistinctRows, GradientsMatchFiniteDifferences) {
  Case<double> c(0.3, true);
  kernels::PreNormWorkspace<double> ws(c.B, c.T, c.C, c.H, c.F);
  const std::size_t NC = c.x.size();
  std::vector<double> out(NC), dx(NC, 0.0), d_rows(c.rows.size(), 0.0);
  auto loss = [&] {
    c.expand();
    random::Generator g(5);  // the same masks every evaluation
    const kernels::DistinctRows<double> rows = c.view(nullptr);
    kernels::pre_norm_block_forward(out.data(), ws, c.x.data(), c.tensors(c.values), c.d, &g, &rows);
    double s = 0;
    for (std::size_t i = 0; i < NC; ++i) s += out[i] * c.dout[i];
    return s;
  };
  loss();
  const kernels::DistinctRows<double> rows = c.view(d_rows.data());
  kernels::pre_norm_block_backward(dx.data(), c.tensors(c.grads), ws, c.dout.data(), c.x.data(), c.tensors(c.values), c.d,
                             &rows);
  std::vector<double> d_total = d_rows;  // each distinct row gets its copies' residual gradients too
  for (int r = 0; r < c.B * c.T; ++r)
    for (int k = 0; k < c.C; ++k) d_total[c.idx[r] * c.C + k] += dx[r * c.C + k];
  const std::vector<double> d_in_proj = c.grads[2];
  testing::expect_gradient_close("rows", d_total.data(), testing::numerical_gradient(loss, c.rows.data(), c.rows.size()),
                                 1e-6);
  testing::expect_gradient_close("in_proj_weight", d_in_proj.data(),
                                 testing::numerical_gradient(loss, c.values[2].data(), c.values[2].size()), 1e-6);
}

TEST(DistinctRows, BadRowsAreRefused) {
  Case<float> c(0.0, false);
  kernels::PreNormWorkspace<float> ws(c.B, c.T, c.C, c.H, c.F);
  std::vector<float> out(c.x.size());
  kernels::DistinctRows<float> rows = c.view(nullptr);
  rows.U = 0;
  EXPECT_THROW(kernels::pre_norm_block_forward(out.data(), ws, c.x.data(), c.tensors(c.values), c.d, nullptr, &rows),
               std::invalid_argument);
  rows.U = c.U;
  c.idx[7] = c.U;
  std::fill(out.begin(), out.end(), 7.0f);
  try {
    kernels::pre_norm_block_forward(out.data(), ws, c.x.data(), c.tensors(c.values), c.d, nullptr, &rows);
    FAIL() << "no throw";
  } catch (const std::out_of_range& e) {
    EXPECT_STREQ(e.what(), "distinct rows: idx 5 at row 7 is outside [0, 5)");
  }
  EXPECT_EQ(out, std::vector<float>(out.size(), 7.0f));
  // the backward pass refuses it before adding to dx or any gradient
  c.idx[7] = 0;
  kernels::pre_norm_block_forward(out.data(), ws, c.x.data(), c.tensors(c.values), c.d, nullptr, &rows);
  c.idx[7] = -2;
  std::vector<float> dx(c.x.size(), 0.0f), d_rows(c.rows.size(), 0.0f);
  kernels::DistinctRows<float> back = c.view(d_rows.data());
  EXPECT_THROW(kernels::pre_norm_block_backward(dx.data(), c.tensors(c.grads), ws, c.dout.data(), c.x.data(),
                                          c.tensors(c.values), c.d, &back),
               std::out_of_range);
  EXPECT_EQ(dx, std::vector<float>(dx.size(), 0.0f));
  for (const auto& g : c.grads) EXPECT_EQ(g, std::vector<float>(g.size(), 0.0f));
  // the attention's own check, called directly
  const kernels::MhaDims md = kernels::mha_dims(c.B, c.T, c.T, c.C, c.H);
  const auto packed = kernels::mha_packed<float>(c.values[2].data(), c.values[3].data(), c.values[4].data(),
                                            c.values[5].data(), c.C);
  std::vector<float> self_cache(kernels::mha_cache_size(md));
  try {
    kernels::mha_self_forward_distinct<float>(out.data(), self_cache.data(), c.table.data(), c.rows.data(), c.idx.data(),
                                         c.U, {}, {}, packed, md);
    FAIL() << "no throw";
  } catch (const std::out_of_range& e) {
    EXPECT_STREQ(e.what(), "mha_self_forward_distinct: idx -2 at row 7 is outside [0, 5)");
  }
  // the projection must be the packed self-attention one
  c.idx[7] = 0;
  const kernels::MhaDims cross = kernels::mha_dims(c.B, c.T, c.T + 1, c.C, c.H);
  const auto p = kernels::mha_packed<float>(c.values[2].data(), c.values[3].data(), c.values[4].data(), c.values[5].data(),
                                       c.C);
  std::vector<float> cache(kernels::mha_cache_size(cross));
  EXPECT_THROW(kernels::mha_self_forward_distinct<float>(out.data(), cache.data(), c.table.data(), c.rows.data(),
                                                    c.idx.data(), c.U, {}, {}, p, cross),
               std::invalid_argument);
}

TEST(TokenPositionRows, GroupsPairsInOrderOfFirstUse) {
  const int V = 4, T = 3, C = 8, P = 5, B = 3;
  std::vector<double> td(V * C), pd(P * C);
  fill_pseudo_random(td.data(), td.size(), 1);
  fill_pseudo_random(pd.data(), pd.size(), 2);
  const std::vector<float> tok(td.begin(), td.end()), pos(pd.begin(), pd.end());
  // pairs (v, t): (1,0) (2,1) (1,2) | (1,0) (3,1) (1,2) | (0,0) (2,1) (3,2)
  const std::vector<std::int32_t> tokens = {1, 2, 1, 1, 3, 1, 0, 2, 3};
  TokenPositionRows g(V, T, C, /*max_batch=*/4);
  ASSERT_TRUE(g.enabled());
  const kernels::DistinctRows<float> r = g.group(tokens.data(), B, tok.data(), pos.data());
  EXPECT_EQ(r.U, 6);
  EXPECT_EQ(std::vector<std::int32_t>(r.idx, r.idx + B * T), (std::vector<std::int32_t>{0, 1, 2, 0, 3, 2, 4, 1, 5}));
  // each row is embedding_forward then position_embedding_forward, bytes and all
  std::vector<float> x(B * T * C);
  kernels::embedding_forward(x.data(), tokens.data(), tok.data(), B * T, V, C);
  kernels::position_embedding_forward(x.data(), pos.data(), B, T, C, P);
  for (int i = 0; i < B * T; ++i)
    EXPECT_EQ(std::vector<float>(x.begin() + i * C, x.begin() + (i + 1) * C),
              std::vector<float>(r.rows + r.idx[i] * C, r.rows + (r.idx[i] + 1) * C))
        << i;
  // d_rows comes zeroed; add_gradients sends row u to its token and position
  for (int k = 0; k < r.U * C; ++k) EXPECT_EQ(r.d_rows[k], 0.0f);
  for (int k = 0; k < r.U * C; ++k) r.d_rows[k] = static_cast<float>(k % C + 1) * (k / C + 1);
  std::vector<float> dtok(V * C, 0.0f), dpos(P * C, 0.0f);
  g.add_gradients(dtok.data(), dpos.data());
  EXPECT_EQ(dtok[1 * C + 0], 1.0f * (1 + 3));  // token 1: pairs u = 0, 2
  EXPECT_EQ(dtok[0 * C + 2], 3.0f * 5);        // token 0: pair u = 4
  EXPECT_EQ(dpos[1 * C + 1], 2.0f * (2 + 4));  // position 1: pairs u = 1, 3
  EXPECT_EQ(dpos[4 * C], 0.0f);                // position 4 unused
  // the next batch starts afresh
  const kernels::DistinctRows<float> again = g.group(tokens.data() + 6, 1, tok.data(), pos.data());
  EXPECT_EQ(again.U, 3);
  EXPECT_EQ(std::vector<std::int32_t>(again.idx, again.idx + T), (std::vector<std::int32_t>{0, 1, 2}));
  // more tokens than sequences in a batch: off, nothing allocated, group refused
  TokenPositionRows off(5, T, C, 4);
  EXPECT_FALSE(off.enabled());
  EXPECT_EQ(TokenPositionRows::bytes(5, T, C, 4), 0u);
  EXPECT_THROW(off.group(tokens.data(), 1, tok.data(), pos.data()), std::logic_error);
  // a batch beyond the buffers, a token beyond the table: refused before writing
  std::vector<std::int32_t> many(5 * T, 1);
  EXPECT_THROW(g.group(many.data(), 5, tok.data(), pos.data()), std::invalid_argument);
  std::vector<std::int32_t> bad = tokens;
  bad[4] = V;
  try {
    g.group(bad.data(), B, tok.data(), pos.data());
    FAIL() << "no throw";
  } catch (const std::out_of_range& e) {
    EXPECT_STREQ(e.what(), "TokenPositionRows::group: token 4 at position 4 is outside [0, 4)");
  }
  EXPECT_EQ(g.last().U, 3);  // still the last good batch's grouping
}

}  // namespace
}  // namespace attnlab::models
