// The matrix products run on one named OpenBLAS kernel set on every machine
// that can run it, so an AVX-512 CI machine and an AVX2 laptop sum the same
// terms in the same order (tensor/blas_core.hpp).
#include "tensor/blas_core.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <vector>

#include "tensor/gemm.hpp"

extern "C" char* openblas_get_corename(void);

namespace attnlab::tensor {
namespace {

TEST(BlasCore, IsHaswellWhereverTheCpuCanRunIt) {
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) GTEST_SKIP() << "no AVX2/FMA here";
  if (const char* asked = std::getenv("ATTNLAB_BLAS_CORETYPE"); asked && *asked)
    GTEST_SKIP() << "ATTNLAB_BLAS_CORETYPE=" << asked << " chooses another kernel set";
  EXPECT_EQ(blas_core(), "Haswell");
  // And OpenBLAS itself says so after products have run.
  std::vector<float> a(64 * 64, 1.0f), c(64 * 64, 0.0f);
  gemm<float>(false, false, 64, 64, 64, 1.0f, a.data(), 64, a.data(), 64, 0.0f, c.data(), 64);
  EXPECT_EQ(c[0], 64.0f);  // 64 products of 1 x 1
  EXPECT_STREQ(openblas_get_corename(), "Haswell");
}

}  // namespace
}  // namespace attnlab::tensor
