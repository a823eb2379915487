// core/io/tensor.h — an array read from (or written to) a NumPy, safetensors or text file.
//
// Every reader turns the file's numbers into doubles in row-major (C) order and remembers the
// file's dtype, so that a writer can write the same bytes back. Errors are FileError, whose
// message starts with the path: "emb.npy: dtype complex128 is not supported".
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace core::io {

struct FileError : std::runtime_error {
    using std::runtime_error::runtime_error; // what() = "FILE: what is wrong"
};

// A file's own text (a name, a type) as a message shows it: in double quotes, with quotes,
// backslashes and control characters escaped, so that the message stays one line.
std::string quote_text(const std::string& text);

enum class DType { f16, bf16, f32, f64, i8, i16, i32, i64, u8, u16, u32, u64, boolean };

struct Tensor {                      // values row-major (C order) as double, whatever the file's dtype
    std::vector<std::int64_t> shape; // empty for a scalar
    std::vector<double> values;
    DType dtype = DType::f64;        // the dtype in the file (what a writer writes)
};

struct TensorFile {
    std::map<std::string, Tensor> tensors;
    std::map<std::string, std::string> metadata; // safetensors' __metadata__; empty for .npz
};

// What a reader accepts. A tensor read whole becomes doubles (8 bytes per element), so the
// element count is bounded; bigger files are for the memory-mapped header parsers, which bound
// no element count: their caller decides what it can hold.
constexpr std::int64_t max_tensor_elements = std::int64_t{1} << 25; // 32 Mi elements, 256 MiB of doubles
constexpr int max_tensor_rank = 8;
constexpr std::size_t max_tensors_per_file = 4096;

std::size_t dtype_size(DType t);
// NumPy's names ("float32", "int64", "bool"; "bfloat16").
const char* dtype_name(DType t);

// Elements of a shape; throws FileError ("path: …") when a dimension is negative, the rank is past
// max_tensor_rank or the count is past `max_elements`.
std::int64_t element_count(const std::vector<std::int64_t>& shape, const std::string& path,
                           std::int64_t max_elements = max_tensor_elements);
// "(3, 4)", as NumPy prints a shape.
std::string shape_text(const std::vector<std::int64_t>& shape);

// One element stored at `p` (any alignment) as a double.
double load_value(const unsigned char* p, DType t, bool big_endian);
// `count` elements from `bytes` into `out`; throws FileError naming the element when one is NaN or
// infinite. For the memory-mapped readers too.
void decode_values(const unsigned char* bytes, std::size_t count, DType t, bool big_endian,
                   double* out, const std::vector<std::int64_t>& shape, const std::string& path);
// The values as the bytes of dtype `t`, little-endian. Integers and bools must be whole and in range,
// floats must fit the type (f16/bf16 round to nearest even); else FileError.
std::string encode_values(const std::vector<double>& values, DType t, const std::string& path);

double half_to_double(std::uint16_t h);
double bfloat16_to_double(std::uint16_t b);

// The whole file; FileError when it cannot be read or is larger than `max_bytes`.
std::string read_file_bytes(const std::string& path, std::size_t max_bytes);
// Temp file beside `path`, fsync, rename: a crash leaves the old file or the new one.
void write_file_bytes_atomically(const std::string& path, const std::string& bytes);

// Throws FileError unless values.size() is the element count of the shape.
void check_tensor(const Tensor& t, const std::string& path);

} // namespace core::io
