// core/io/safetensors.h — the safetensors format: an 8-byte little-endian header length, a JSON
// header {"name": {"dtype": "F32", "shape": [2, 3], "data_offsets": [begin, end]}, …,
// "__metadata__": {"key": "value"}}, then the tensors' little-endian bytes.
//
// Reads F64 F32 F16 BF16 I64 I32 I16 I8 U64 U32 U16 U8 BOOL; writes the tensor's own dtype.
#pragma once

#include "core/io/tensor.h"

#include <cstddef>
#include <string>
#include <vector>

namespace core::io {

struct SafetensorsEntry {
    std::string name;
    DType dtype = DType::f32;
    std::vector<std::int64_t> shape;
    std::size_t begin = 0; // byte offsets in the whole file (not in the data section), begin <= end
    std::size_t end = 0;
};

struct SafetensorsHeader {
    std::vector<SafetensorsEntry> entries; // in the order of their bytes in the file
    std::map<std::string, std::string> metadata;
    std::size_t data_offset = 0;           // 8 + header length
};

// Parses and checks the header of a whole file in memory (e.g. memory-mapped): every tensor's bytes
// lie inside the file, match its dtype and shape, and no two overlap (element counts: see
// max_tensor_elements).
SafetensorsHeader parse_safetensors_header(const char* bytes, std::size_t size, const std::string& path);

TensorFile parse_safetensors(const char* bytes, std::size_t size, const std::string& path);
std::string safetensors_bytes(const TensorFile& f, const std::string& path);

TensorFile read_safetensors(const std::string& path);
void write_safetensors(const std::string& path, const TensorFile& f);

} // namespace core::io
