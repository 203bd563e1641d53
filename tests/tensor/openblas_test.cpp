// OpenBLAS as tensor/openblas.hpp loads it: one named kernel set on every
// machine that can run it (an AVX-512 CI machine and an AVX2 laptop sum the
// same terms in the same order), one thread, from the pthread build's file.
#include "tensor/openblas.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <vector>

#include "tensor/gemm.hpp"

namespace attnlab::tensor {
namespace {

TEST(OpenBlas, LoadsThePthreadBuildWithHaswellKernelsWhereverTheCpuCanRunThem) {
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) GTEST_SKIP() << "no AVX2/FMA here";
  if (const char* asked = std::getenv("ATTNLAB_BLAS_CORETYPE"); asked && *asked)
    GTEST_SKIP() << "ATTNLAB_BLAS_CORETYPE=" << asked << " chooses another kernel set";
  const OpenBlas& b = openblas();
  EXPECT_EQ(b.core, "Haswell");
  EXPECT_EQ(blas_core(), "Haswell");
  EXPECT_NE(b.path.find("openblas-pthread/libopenblas.so.0"), std::string::npos) << b.path;
  EXPECT_EQ(&openblas(), &b);  // loaded once
  // Its products run: 64 products of 1 x 1, through OpenBLAS itself.
  std::vector<float> a(64 * 64, 1.0f), c(64 * 64, 0.0f);
  sgemm_openblas(false, false, 64, 64, 64, 1.0f, a.data(), 64, a.data(), 64, 0.0f, c.data(), 64);
  EXPECT_EQ(c[0], 64.0f);
  std::vector<double> ad(3 * 2, 1.0), cd(3 * 3, 7.0);
  gemm<double>(false, true, 3, 3, 2, 2.0, ad.data(), 2, ad.data(), 2, 1.0, cd.data(), 3);
  EXPECT_EQ(cd[8], 7.0 + 2.0 * 2.0);  // beta 1 accumulates: 7 + 2·(1·1 + 1·1)
  // With the settings it needs in the environment for its load.
  EXPECT_STREQ(std::getenv("OPENBLAS_NUM_THREADS"), "1");
  EXPECT_STREQ(std::getenv("OPENBLAS_CORETYPE"), "Haswell");
}

}  // namespace
}  // namespace attnlab::tensor
