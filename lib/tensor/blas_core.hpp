// Which OpenBLAS kernels attnlab's matrix products run on.
//
// Debian's OpenBLAS is built with DYNAMIC_ARCH: at load time it picks its
// sgemm kernels for the CPU it finds (Haswell's AVX2 code, Zen's, or
// SkylakeX's AVX-512 code), and each sums a product's terms in its own
// order. The trained tables' last digits then depend on the machine. So the
// kernel set is chosen here, once, before the first product: "Haswell"
// (AVX2 + FMA), which runs unchanged on every x86-64-v3 CPU, AVX-512 ones
// included, matching the -march=x86-64-v3 the code is compiled for.
#pragma once

#include <string>

namespace attnlab::tensor {

/// The OpenBLAS core type the products run on, e.g. "Haswell". The first call
/// selects it (attnlab calls it at load time and from every gemm): Haswell, or
/// the value of the environment variable ATTNLAB_BLAS_CORETYPE when set (an
/// OpenBLAS core name such as SkylakeX, faster on AVX-512 machines but
/// printing other trained digits than data/chapter.txt). It stays OpenBLAS's
/// own choice when the CPU lacks AVX2/FMA or the BLAS is not a DYNAMIC_ARCH
/// OpenBLAS (the name then says so). The first call also pins OpenBLAS to one
/// thread (set_blas_threads in gemm.hpp can undo it): a threaded product's
/// bits depend on the machine's core count. Thread-safe; never throws.
const std::string& blas_core();

}  // namespace attnlab::tensor
