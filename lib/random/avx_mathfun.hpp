// One float32 lane of the Cephes "avx_mathfun" log256_ps / sincos256_ps that
// PyTorch 1.13's AVX2 normal kernel calls (docs/torch_rng.md §4.3), as GCC
// compiled them: fused multiply-adds exactly where the compiled kernel has
// them, every other operation rounded on its own.
//
// Internal to lib/random: these are not general-purpose log/sin/cos (about
// 2 ulp, inputs from the normal kernel only); they exist to reproduce
// torch.randn bit for bit.
#pragma once

namespace attnlab::random::detail {

/// log(x) as one lane of log256_ps. x > 0 (here x = 1 - u lies in (0, 1]);
/// x <= 0 or NaN gives NaN, as the vector code does.
float log256(float x);

/// sin(x) and cos(x) as one lane of sincos256_ps, for |x| up to a few
/// multiples of 2*pi (here x = 2*pi*u lies in [0, 2*pi)).
void sincos256(float x, float& sin_x, float& cos_x);

}  // namespace attnlab::random::detail
