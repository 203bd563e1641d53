// The heads' tile kernels (nn/flash_kernels.hpp) against plain scalar loops
// written here: the key packing (register transpose under AVX2) and the
// register-blocked scores and mix (8-row blocks one register wide, 6-row
// blocks two wide, and every remainder of rows and columns) must give the
// same bytes (memcmp) as one fused multiply-add chain per output in index
// order. The trained tables rely on that: a block size or a transpose that
// changed a rounding would move them, so equality and not a tolerance is
// asserted.
#include "kernels/attention/flash_kernels.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <type_traits>
#include <vector>

#include "random/generator.hpp"

namespace attnlab::kernels::detail {
namespace {

// Uniform in [-2, 2); doubles get low bits of their own so their products
// round as a float's would not.
template <class T>
std::vector<T> random_values(std::size_t n, std::uint64_t seed) {
  random::Generator g(seed);
  std::vector<float> u(n);
  g.uniform(u.data(), u.size(), -2.0, 2.0);
  std::vector<T> out(n);
  for (std::size_t i = 0; i < n; ++i) out[i] = std::is_same_v<T, double> ? T(u[i]) + T(double(g.random64() >> 11) * 0x1p-53 * 1e-7) : T(u[i]);
  return out;
}

template <class T>
bool same_bytes(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

template <class T>
void check_pack(int S, int D) {
  const int ld_k = D + 3, ld_t = flash_padded(S);  // a row stride past D, as a head's slice of (B·S, C) has
  const auto k = random_values<T>(std::size_t(S) * ld_k, 11 + S * 31 + D);
  std::vector<T> got(std::size_t(D) * ld_t, T(7)), want(std::size_t(D) * ld_t, T(0));
  for (int e = 0; e < D; ++e)
    for (int j = 0; j < S; ++j) want[std::size_t(e) * ld_t + j] = k[std::size_t(j) * ld_k + e];
  pack_keys_transposed(got.data(), ld_t, k.data(), ld_k, S, D);
  EXPECT_TRUE(same_bytes(got, want)) << "S=" << S << " D=" << D;
}

TEST(PackKeysTransposed, EqualsTheScalarTransposeWithZeroPadding) {
  for (int S : {1, 3, 8, 9, 16, 21})
    for (int D : {1, 4, 8, 12, 16, 19, 32}) {  // 8 keys of 4, 8, 16, 32: the inline transposes
      check_pack<float>(S, D);
      check_pack<double>(S, D);
    }
}

template <class T>
void check_scores(int nq, int ncols, int D) {
  const int ld_q = D + 1, ld_t = ncols + 8, ld_s = ncols + 5;
  const auto q = random_values<T>(std::size_t(nq) * ld_q, 3 + nq);
  const auto kT = random_values<T>(std::size_t(D) * ld_t, 5 + D);
  const T alpha = T(1) / std::sqrt(T(D));
  std::vector<T> got(std::size_t(nq) * ld_s, T(0)), want(got);
  for (int r = 0; r < nq; ++r)
    for (int c = 0; c < ncols; ++c) {
      T acc = 0;
      for (int e = 0; e < D; ++e) acc = std::fma(q[std::size_t(r) * ld_q + e], kT[std::size_t(e) * ld_t + c], acc);
      want[std::size_t(r) * ld_s + c] = acc * alpha;
    }
  tile_scores(got.data(), ld_s, q.data(), ld_q, kT.data(), ld_t, nq, ncols, D, alpha);
  EXPECT_TRUE(same_bytes(got, want)) << "nq=" << nq << " ncols=" << ncols << " D=" << D;
}

TEST(TileScores, EachScoreIsOneFmaChainInValueOrder) {
  for (int nq = 1; nq <= 17; ++nq)
    for (int ncols : {8, 16, 24, 40})
      for (int D : {4, 8, 13}) {
        check_scores<float>(nq, ncols, D);
        check_scores<double>(nq, ncols, D);
      }
}

// Add: into y's values (+=); else y's values are overwritten (=), the chain starting at 0.
template <class T, bool Add>
void check_mix(int nq, int nk, int D) {
  const int ld_y = D + 2, ld_p = nk + 3, ld_v = D + 1;
  const auto p = random_values<T>(std::size_t(nq) * ld_p, 7 + nq);
  const auto v = random_values<T>(std::size_t(nk) * ld_v, 9 + nk);
  std::vector<T> got = random_values<T>(std::size_t(nq) * ld_y, 13 + D), want(got);  // accumulated into
  for (int r = 0; r < nq; ++r)
    for (int d = 0; d < D; ++d) {
      T acc = Add ? want[std::size_t(r) * ld_y + d] : T(0);
      for (int c = 0; c < nk; ++c) acc = std::fma(p[std::size_t(r) * ld_p + c], v[std::size_t(c) * ld_v + d], acc);
      want[std::size_t(r) * ld_y + d] = acc;
    }
  tile_mix<T, Add>(got.data(), ld_y, p.data(), ld_p, v.data(), ld_v, nq, nk, D);
  EXPECT_TRUE(same_bytes(got, want)) << "nq=" << nq << " nk=" << nk << " D=" << D << " add " << Add;
}

TEST(TileMix, EachOutputIsOneFmaChainInKeyOrder) {
  for (int nq = 1; nq <= 17; ++nq)
    for (int nk : {1, 8, 11})
      for (int D : {3, 4, 8, 12, 16, 20, 32, 35}) {  // 4, 8, 16, 32 by 8 rows: tile_mix's inline blocks
        check_mix<float, true>(nq, nk, D);
        check_mix<double, true>(nq, nk, D);
        check_mix<float, false>(nq, nk, D);
        check_mix<double, false>(nq, nk, D);
      }
}

}  // namespace
}  // namespace attnlab::kernels::detail
