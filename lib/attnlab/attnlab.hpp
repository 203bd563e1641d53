// attnlab's public door in one include: the modules of torch.nn the course
// uses, over xt::xtensor, with PyTorch's names, and state_dicts as .npy folders.
#pragma once

#include "attnlab/nn/activation.hpp"
#include "attnlab/nn/dropout.hpp"
#include "attnlab/nn/embedding.hpp"
#include "attnlab/nn/linear.hpp"
#include "attnlab/nn/module.hpp"
#include "attnlab/nn/multihead_attention.hpp"
#include "attnlab/nn/normalization.hpp"
#include "attnlab/nn/rnn.hpp"
#include "attnlab/serialize/state_dict.hpp"
#include "attnlab/tensor.hpp"
