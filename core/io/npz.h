// core/io/npz.h — NumPy's .npz: a zip of .npy files (np.savez stores, np.savez_compressed
// deflates). Key "x" is member "x.npy". Read and written with libzip.
#pragma once

#include "core/io/npy.h"

#include <string>

namespace core::io {

TensorFile parse_npz(const char* bytes, std::size_t size, const std::string& path);
// The bytes of an .npz holding `f` (the exports write them with write_file_bytes_atomically).
std::string npz_bytes(const TensorFile& f, bool compressed, const std::string& path);

TensorFile read_npz(const std::string& path);

} // namespace core::io
