// tests/array_files.h — .npy and .npz files for the tests, written as attnviz's export writes them:
// the format's bytes, then one atomic write.
#pragma once

#include "core/io/npy.h"
#include "core/io/npz.h"

#include <string>

namespace fixtures {

inline void write_npy(const std::string& path, const core::io::Tensor& t) {
    core::io::write_file_bytes_atomically(path, core::io::npy_bytes(t, path));
}

inline void write_npz(const std::string& path, const core::io::TensorFile& f, bool compressed) {
    core::io::write_file_bytes_atomically(path, core::io::npz_bytes(f, compressed, path));
}

} // namespace fixtures
