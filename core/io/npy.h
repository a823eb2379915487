// core/io/npy.h — NumPy's .npy format, header versions 1 to 3.
//
// Reads float16/32/64, signed and unsigned integers and bool, little- or big-endian, C or Fortran
// order. Writes little-endian C order in the tensor's dtype (bfloat16, which NumPy lacks, as float32).
#pragma once

#include "core/io/tensor.h"

#include <cstddef>
#include <string>

namespace core::io {

struct NpyHeader {
    DType dtype = DType::f64;
    std::vector<std::int64_t> shape;
    bool fortran_order = false;
    bool big_endian = false;
    std::size_t data_offset = 0; // where the first element starts
};

// Parses the header at the start of `bytes` (a whole file, e.g. memory-mapped) and checks that the
// data fits in `size` (element counts: see max_tensor_elements).
NpyHeader parse_npy_header(const char* bytes, std::size_t size, const std::string& path);

// A whole .npy file in memory (as an .npz member is) → tensor in C order.
Tensor parse_npy(const char* bytes, std::size_t size, const std::string& path);
// The bytes of a .npy file holding `t` (the exports write them with write_file_bytes_atomically).
std::string npy_bytes(const Tensor& t, const std::string& path);

Tensor read_npy(const std::string& path);

} // namespace core::io
