// core/model/format/gguf.h — the GGUF format of llama.cpp, Ollama and LM Studio: header, metadata and
// tensor table (versions 2 and 3, little-endian).
//
//   "GGUF" u32 version, u64 tensor count, u64 metadata count
//   metadata: string key, u32 value type, value       (a string: u64 length + UTF-8 bytes, no NUL)
//   tensors:  string name, u32 n_dims, n_dims × u64 ne (innermost first), u32 ggml type, u64 offset
//   padding to general.alignment (32 when absent), then the tensor data; offsets count from there.
//
// parse() checks every count, length and offset against the bytes it has, so a truncated or corrupt
// file is one FileError "PATH: …" naming the place, never a crash or a huge allocation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace core::model::gguf {

enum class ValueType : std::uint32_t {
    u8 = 0, i8 = 1, u16 = 2, i16 = 3, u32 = 4, i32 = 5, f32 = 6, boolean = 7, string = 8, array = 9,
    u64 = 10, i64 = 11, f64 = 12,
};
const char* value_type_name(ValueType t); // "u32", "string", "array", …

// A metadata value. Scalars: `bits` holds an integer (two's complement for signed types) or a bool,
// `real` a float, `text` a string. An array keeps its items in the one vector its element type uses.
struct Value {
    ValueType type = ValueType::u8;
    ValueType element = ValueType::u8; // arrays: the items' type
    std::uint64_t bits = 0;
    double real = 0;
    std::string text;
    std::vector<std::uint64_t> ints;  // arrays of integers or bools, as `bits`
    std::vector<double> reals;        // arrays of f32 / f64
    std::vector<std::string> texts;   // arrays of strings
    std::vector<Value> arrays;        // arrays of arrays
    std::size_t size() const;         // an array's item count
};

struct TensorInfo {
    std::string name;               // as the file names it ("blk.0.attn_q.weight")
    std::vector<std::int64_t> shape; // row-major, outermost first: the file's ne reversed
    std::uint32_t type = 0;         // ggml_type
    std::uint64_t offset = 0;       // of its first byte from the file's start
    std::uint64_t bytes = 0;        // its data's size
};

struct File {
    std::string path;
    std::uint32_t version = 0;
    std::map<std::string, Value> metadata;
    std::vector<TensorInfo> tensors; // in the table's order
    std::uint64_t alignment = 32;
    std::uint64_t data_offset = 0;   // where the tensor data starts
};

// Parses a whole file in memory (typically mapped). Throws core::io::FileError "PATH: …": a bad
// magic, a version other than 2 or 3 (a big-endian file says so), a truncated file, a bad value
// type, a count or length past the file's end, a duplicate key or tensor, an unknown tensor type,
// a tensor whose data lies outside the file.
File parse(const unsigned char* bytes, std::size_t size, const std::string& path);

// ggml's tensor types: name ("Q4_K"), values per block and bytes per block; null for an id ggml
// does not define.
struct GgmlType {
    const char* name;
    int block_values;
    int block_bytes;
};
const GgmlType* ggml_type(std::uint32_t id);
std::string ggml_type_name(std::uint32_t id); // "Q4_K", or "type 99"

// A key or tensor name for a message: in double quotes, any byte outside printable ASCII (and '"', '\\')
// as \xNN, so a message stays one line of valid text.
std::string quote_name(const std::string& name);

// Typed getters: throw core::io::FileError "PATH: metadata key "KEY" …" when the key is absent, of
// another type or out of range. The find_ variants give nullopt for an absent key (and still throw
// for a wrong type).
const Value* find(const File& f, const std::string& key);
std::uint64_t get_u64(const File& f, const std::string& key);   // any integer type, ≥ 0
std::int64_t get_i64(const File& f, const std::string& key);    // any integer type
double get_f64(const File& f, const std::string& key);          // f32, f64 or an integer
bool get_bool(const File& f, const std::string& key);
std::string get_string(const File& f, const std::string& key);
std::vector<std::string> get_strings(const File& f, const std::string& key); // array of string
std::vector<float> get_f32s(const File& f, const std::string& key);          // array of f32 / f64
std::vector<std::int32_t> get_i32s(const File& f, const std::string& key);   // array of integers in i32's range
std::optional<std::uint64_t> find_u64(const File& f, const std::string& key);
std::optional<std::int64_t> find_i64(const File& f, const std::string& key);
std::optional<double> find_f64(const File& f, const std::string& key);
std::optional<bool> find_bool(const File& f, const std::string& key);
std::optional<std::string> find_string(const File& f, const std::string& key);
std::optional<std::vector<std::string>> find_strings(const File& f, const std::string& key);
std::optional<std::vector<float>> find_f32s(const File& f, const std::string& key);
std::optional<std::vector<std::int32_t>> find_i32s(const File& f, const std::string& key);

} // namespace core::model::gguf
