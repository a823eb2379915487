// core/io/safetensors.cpp — header checks, reading and writing.
#include "core/io/safetensors.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstring>

namespace core::io {

namespace {

using json = nlohmann::json;

constexpr std::uint64_t max_header_bytes = 100u << 20; // the format's own limit

struct DTypeName {
    const char* name;
    DType type;
};
constexpr DTypeName dtype_names[] = {
    {"F64", DType::f64}, {"F32", DType::f32}, {"F16", DType::f16}, {"BF16", DType::bf16},
    {"I64", DType::i64}, {"I32", DType::i32}, {"I16", DType::i16}, {"I8", DType::i8},
    {"U64", DType::u64}, {"U32", DType::u32}, {"U16", DType::u16}, {"U8", DType::u8}, {"BOOL", DType::boolean},
};

DType parse_dtype(const std::string& s, const std::string& where, const std::string& path) {
    for (const auto& d : dtype_names)
        if (s == d.name) return d.type;
    const bool eight_bit_float = s.rfind("F8", 0) == 0;
    throw FileError(path + ": tensor " + quote_text(where) + " has dtype " + quote_text(s) + (eight_bit_float ? " (8-bit floats)" : "") +
                    ", not supported; attnviz reads F64 F32 F16 BF16 I64 I32 I16 I8 U64 U32 U16 U8 BOOL");
}

const char* dtype_tag(DType t) {
    for (const auto& d : dtype_names)
        if (d.type == t) return d.name;
    return "F64";
}

[[noreturn]] void corrupt(const std::string& path, const std::string& why) {
    throw FileError(path + ": corrupt safetensors header (" + why + ")");
}

std::uint64_t unsigned_member(const json& v, const std::string& what, const std::string& path) {
    if (!v.is_number_unsigned()) corrupt(path, what + " is not a whole number");
    return v.get<std::uint64_t>();
}

SafetensorsEntry parse_entry(const std::string& name, const json& v, std::size_t data_size, const std::string& path) {
    const std::string quoted = "tensor " + quote_text(name);
    if (!v.is_object()) corrupt(path, quoted + " is not an object");
    for (const char* key : {"dtype", "shape", "data_offsets"})
        if (!v.contains(key)) corrupt(path, quoted + " has no \"" + key + "\"");
    if (!v["dtype"].is_string()) corrupt(path, quoted + ": dtype is not a string");
    SafetensorsEntry e;
    e.name = name;
    e.dtype = parse_dtype(v["dtype"].get<std::string>(), name, path);
    const json& shape = v["shape"];
    if (!shape.is_array()) corrupt(path, quoted + ": shape is not an array");
    for (const json& d : shape) {
        const std::uint64_t dim = unsigned_member(d, quoted + ": a dimension", path);
        if (dim > static_cast<std::uint64_t>(INT64_MAX)) corrupt(path, quoted + ": a dimension is too large");
        e.shape.push_back(static_cast<std::int64_t>(dim));
    }
    const json& offsets = v["data_offsets"];
    if (!offsets.is_array() || offsets.size() != 2) corrupt(path, quoted + ": data_offsets is not [begin, end]");
    const std::uint64_t begin = unsigned_member(offsets[0], quoted + ": data_offsets[0]", path);
    const std::uint64_t end = unsigned_member(offsets[1], quoted + ": data_offsets[1]", path);
    if (begin > end || end > data_size)
        throw FileError(path + ": truncated or corrupt: " + quoted + " has bytes " + std::to_string(begin) + " to " +
                        std::to_string(end) + ", the data section has " + std::to_string(data_size));
    const auto count = static_cast<std::uint64_t>(element_count(e.shape, path + ": " + quoted, INT64_MAX / 8));
    if (end - begin != count * dtype_size(e.dtype))
        corrupt(path, quoted + ": shape " + shape_text(e.shape) + " of " + dtype_tag(e.dtype) + " needs " +
                          std::to_string(count * dtype_size(e.dtype)) + " bytes, data_offsets give " + std::to_string(end - begin));
    e.begin = static_cast<std::size_t>(begin);
    e.end = static_cast<std::size_t>(end);
    return e;
}

} // namespace

SafetensorsHeader parse_safetensors_header(const char* bytes, std::size_t size, const std::string& path) {
    if (size < 8) throw FileError(path + ": truncated (a safetensors file starts with an 8-byte header length)");
    std::uint64_t n = 0;
    for (int k = 7; k >= 0; --k) n = (n << 8) | static_cast<unsigned char>(bytes[k]);
    if (n > max_header_bytes) corrupt(path, "it claims " + std::to_string(n) + " bytes, more than the format's 100 MB");
    if (n > size - 8) throw FileError(path + ": truncated (the header claims " + std::to_string(n) + " bytes, " + std::to_string(size - 8) + " follow)");
    json root;
    try {
        root = json::parse(bytes + 8, bytes + 8 + n);
    } catch (const json::exception& e) {
        std::string what = e.what();
        const auto cut = what.find("] ");
        corrupt(path, "invalid JSON: " + (cut == std::string::npos ? what : what.substr(cut + 2)));
    }
    if (!root.is_object()) corrupt(path, "not a JSON object");
    if (root.size() > max_tensors_per_file + 1) corrupt(path, "more than " + std::to_string(max_tensors_per_file) + " tensors");
    SafetensorsHeader h;
    h.data_offset = static_cast<std::size_t>(8 + n);
    const std::size_t data_size = size - h.data_offset;
    for (const auto& [key, value] : root.items()) {
        if (key == "__metadata__") {
            if (!value.is_object()) corrupt(path, "__metadata__ is not an object");
            for (const auto& [mk, mv] : value.items()) {
                if (!mv.is_string()) corrupt(path, "__metadata__ " + quote_text(mk) + " is not a string");
                h.metadata[mk] = mv.get<std::string>();
            }
            continue;
        }
        h.entries.push_back(parse_entry(key, value, data_size, path));
    }
    std::sort(h.entries.begin(), h.entries.end(), [](const auto& a, const auto& b) { return a.begin < b.begin || (a.begin == b.begin && a.end < b.end); });
    for (std::size_t i = 1; i < h.entries.size(); ++i)
        if (h.entries[i].begin < h.entries[i - 1].end)
            corrupt(path, "tensors " + quote_text(h.entries[i - 1].name) + " and " + quote_text(h.entries[i].name) + " overlap");
    for (auto& e : h.entries) {
        e.begin += h.data_offset;
        e.end += h.data_offset;
    }
    return h;
}

TensorFile parse_safetensors(const char* bytes, std::size_t size, const std::string& path) {
    const SafetensorsHeader h = parse_safetensors_header(bytes, size, path);
    TensorFile f;
    f.metadata = h.metadata;
    std::int64_t total = 0;
    for (const SafetensorsEntry& e : h.entries) {
        Tensor t;
        t.shape = e.shape;
        t.dtype = e.dtype;
        const std::string where = path + ": tensor \"" + e.name + "\"";
        const std::int64_t count = element_count(e.shape, where);
        total += count;
        if (total > max_tensor_elements)
            throw FileError(path + ": the tensors hold more than " + std::to_string(max_tensor_elements) + " elements, past the limit");
        t.values.resize(static_cast<std::size_t>(count));
        decode_values(reinterpret_cast<const unsigned char*>(bytes) + e.begin, t.values.size(), e.dtype, false, t.values.data(), e.shape, where);
        f.tensors[e.name] = std::move(t);
    }
    return f;
}

std::string safetensors_bytes(const TensorFile& f, const std::string& path) {
    json header = json::object();
    std::string data;
    for (const auto& [name, t] : f.tensors) {
        if (name == "__metadata__") throw FileError(path + ": a tensor cannot be named __metadata__");
        check_tensor(t, path + ": tensor \"" + name + "\"");
        const std::size_t begin = data.size();
        data += encode_values(t.values, t.dtype, path + ": tensor \"" + name + "\"");
        header[name] = {{"dtype", dtype_tag(t.dtype)}, {"shape", t.shape}, {"data_offsets", {begin, data.size()}}};
    }
    if (!f.metadata.empty()) header["__metadata__"] = f.metadata;
    std::string text = header.dump();
    text.append((8 - text.size() % 8) % 8, ' '); // the data starts 8-byte aligned
    std::string out(8, '\0');
    for (int k = 0; k < 8; ++k) out[static_cast<std::size_t>(k)] = static_cast<char>((static_cast<std::uint64_t>(text.size()) >> (8 * k)) & 0xff);
    return out + text + data;
}

TensorFile read_safetensors(const std::string& path) {
    const std::string bytes = read_file_bytes(path, static_cast<std::size_t>(max_tensor_elements) * 8 + max_header_bytes);
    return parse_safetensors(bytes.data(), bytes.size(), path);
}

void write_safetensors(const std::string& path, const TensorFile& f) {
    write_file_bytes_atomically(path, safetensors_bytes(f, path));
}

} // namespace core::io
