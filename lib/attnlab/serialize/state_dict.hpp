// Weights in and out: a state_dict as a folder of .npy files, one per key
// ("out_proj.weight" -> out_proj.weight.npy), float32, C order, read and
// written by xtensor's own xnpy. A model trained in PyTorch comes in as
//
//   for k, v in model.state_dict().items(): numpy.save(f"{folder}/{k}.npy", v.numpy())
//
// and numpy.load reads what save_state_dict writes.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "attnlab/nn/module.hpp"

namespace attnlab {

/// The keys, shapes and values of every parameter in a flat buffer (a whole
/// model's state_dict), in declaration order.
std::vector<nn::NamedParameter> state_dict(kernels::Parameters& params);

/// Writes each entry to folder/<name>.npy (float32, C order, numpy's format
/// 1.0), creating the folder if needed. Each file is written to a temporary
/// name and renamed, so an interrupted save leaves whole files only. Refuses
/// (std::invalid_argument, before writing anything) a path that exists and is
/// not a folder, and a folder holding .npy files that are not keys of this
/// state, naming them (a later load would refuse them as extra keys).
/// Throws std::runtime_error naming the file when a write fails.
void save_state_dict(const std::vector<nn::NamedParameter>& state, const std::filesystem::path& folder);
void save_state_dict(kernels::Parameters& params, const std::filesystem::path& folder);
void save_state_dict(const nn::Module& module, const std::filesystem::path& folder);

/// Reads folder/<name>.npy into every entry, as PyTorch's load_state_dict
/// (strict=True) does. Refuses, with std::invalid_argument naming the folder
/// and the key(s): a missing key (its file is absent), an extra key (a .npy
/// file no parameter is called), a wrong shape (the shape given and the
/// one expected), a dtype other than float32 ('<f4'), or an unreadable file.
/// Everything is checked and read before any value is written, so a refused
/// load leaves the parameters as they were.
void load_state_dict(const std::vector<nn::NamedParameter>& state, const std::filesystem::path& folder);
void load_state_dict(kernels::Parameters& params, const std::filesystem::path& folder);
void load_state_dict(const nn::Module& module, const std::filesystem::path& folder);

}  // namespace attnlab
