// attnlab's public door in one include: the modules of torch.nn the course
// uses, the attention page's pieces (scaled dot-product attention, causal
// streaming, both transformer blocks, positions, the encoder builder,
// additive attention), over xt::xtensor, with PyTorch's names, and
// state_dicts as .npy folders.
#pragma once

#include "attnlab/nn/activation.hpp"
#include "attnlab/nn/additive_attention.hpp"
#include "attnlab/nn/cache.hpp"
#include "attnlab/nn/dropout.hpp"
#include "attnlab/nn/embedding.hpp"
#include "attnlab/nn/encoder.hpp"
#include "attnlab/nn/functional.hpp"
#include "attnlab/nn/linear.hpp"
#include "attnlab/nn/mean_over_time.hpp"
#include "attnlab/nn/module.hpp"
#include "attnlab/nn/multihead_attention.hpp"
#include "attnlab/nn/normalization.hpp"
#include "attnlab/nn/positions.hpp"
#include "attnlab/nn/rnn.hpp"
#include "attnlab/nn/self_attention.hpp"
#include "attnlab/nn/sequential.hpp"
#include "attnlab/nn/transformer_block.hpp"
#include "attnlab/serialize/state_dict.hpp"
#include "attnlab/tensor.hpp"
