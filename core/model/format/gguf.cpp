// core/model/format/gguf.cpp — reading a GGUF file's header, metadata and tensor table with checks.
#include "core/model/format/gguf.h"

#include "core/io/tensor.h"

#include <cstring>
#include <set>

namespace core::model::gguf {

namespace {

using core::io::FileError;

constexpr int max_array_depth = 8;     // nested arrays: llama.cpp writes none; deeper is corrupt
constexpr std::uint32_t max_dims = 4;  // GGML_MAX_DIMS

// ggml_type ids 0 … 39 (gaps: ids ggml removed).
constexpr GgmlType ggml_types[] = {
    {"F32", 1, 4},        {"F16", 1, 2},        {"Q4_0", 32, 18},     {"Q4_1", 32, 20},     {nullptr, 0, 0},
    {nullptr, 0, 0},      {"Q5_0", 32, 22},     {"Q5_1", 32, 24},     {"Q8_0", 32, 34},     {"Q8_1", 32, 36},
    {"Q2_K", 256, 84},    {"Q3_K", 256, 110},   {"Q4_K", 256, 144},   {"Q5_K", 256, 176},   {"Q6_K", 256, 210},
    {"Q8_K", 256, 292},   {"IQ2_XXS", 256, 66}, {"IQ2_XS", 256, 74},  {"IQ3_XXS", 256, 98}, {"IQ1_S", 256, 50},
    {"IQ4_NL", 32, 18},   {"IQ3_S", 256, 110},  {"IQ2_S", 256, 82},   {"IQ4_XS", 256, 136}, {"I8", 1, 1},
    {"I16", 1, 2},        {"I32", 1, 4},        {"I64", 1, 8},        {"F64", 1, 8},        {"IQ1_M", 256, 56},
    {"BF16", 1, 2},       {nullptr, 0, 0},      {nullptr, 0, 0},      {nullptr, 0, 0},      {"TQ1_0", 256, 54},
    {"TQ2_0", 256, 66},   {nullptr, 0, 0},      {nullptr, 0, 0},      {nullptr, 0, 0},      {"MXFP4", 32, 17},
};

// Bytes every value of a type takes at least: bounds a count before anything is allocated.
std::uint64_t least_bytes(ValueType t) {
    switch (t) {
    case ValueType::u8: case ValueType::i8: case ValueType::boolean: return 1;
    case ValueType::u16: case ValueType::i16: return 2;
    case ValueType::u32: case ValueType::i32: case ValueType::f32: return 4;
    case ValueType::u64: case ValueType::i64: case ValueType::f64: case ValueType::string: return 8;
    case ValueType::array: return 12;
    }
    return 1;
}

bool is_integer(ValueType t) {
    return t == ValueType::u8 || t == ValueType::i8 || t == ValueType::u16 || t == ValueType::i16 || t == ValueType::u32 ||
           t == ValueType::i32 || t == ValueType::u64 || t == ValueType::i64;
}

// A cursor over the file's bytes; every read checks there are enough of them.
struct Reader {
    const unsigned char* bytes;
    std::size_t size;
    const std::string& path;
    std::size_t pos = 0;
    std::string where = "the header";

    [[noreturn]] void fail(const std::string& why) const { throw FileError(path + ": " + why + " (" + where + ")"); }
    std::uint64_t left() const { return size - pos; }
    void need(std::uint64_t n) const {
        if (n > left())
            fail("truncated: " + std::to_string(n) + " bytes needed at byte " + std::to_string(pos) + ", the file has " +
                 std::to_string(size));
    }
    std::uint64_t little(int n) { // an n-byte little-endian unsigned integer
        need(n);
        std::uint64_t v = 0;
        for (int i = n - 1; i >= 0; --i) v = v << 8 | bytes[pos + i];
        pos += n;
        return v;
    }
    std::uint32_t u32() { return static_cast<std::uint32_t>(little(4)); }
    std::uint64_t u64() { return little(8); }
    std::string string() {
        const std::uint64_t n = u64();
        need(n);
        std::string s(reinterpret_cast<const char*>(bytes + pos), static_cast<std::size_t>(n));
        pos += n;
        return s;
    }
    // A count of items of at least `least` bytes each, refused when they cannot fit in what is left.
    std::uint64_t count(std::uint64_t least, const char* what) {
        const std::uint64_t n = u64();
        if (n > left() / least)
            fail(std::string(what) + " count " + std::to_string(n) + " cannot fit in the " + std::to_string(left()) +
                 " bytes left");
        return n;
    }
    ValueType value_type() {
        const std::uint32_t t = u32();
        if (t > static_cast<std::uint32_t>(ValueType::f64)) fail("unknown value type " + std::to_string(t));
        return static_cast<ValueType>(t);
    }
};

std::uint64_t sign_extend(std::uint64_t v, int bytes) {
    const int shift = 64 - 8 * bytes;
    return static_cast<std::uint64_t>(static_cast<std::int64_t>(v << shift) >> shift);
}

double read_float(Reader& r, ValueType t) {
    if (t == ValueType::f32) {
        const std::uint32_t b = r.u32();
        float f;
        std::memcpy(&f, &b, 4);
        return f;
    }
    const std::uint64_t b = r.u64();
    double d;
    std::memcpy(&d, &b, 8);
    return d;
}

// An integer or bool scalar as `bits`.
std::uint64_t read_bits(Reader& r, ValueType t) {
    switch (t) {
    case ValueType::u8: return r.little(1);
    case ValueType::i8: return sign_extend(r.little(1), 1);
    case ValueType::u16: return r.little(2);
    case ValueType::i16: return sign_extend(r.little(2), 2);
    case ValueType::u32: return r.little(4);
    case ValueType::i32: return sign_extend(r.little(4), 4);
    case ValueType::boolean: {
        const std::uint64_t b = r.little(1);
        if (b > 1) r.fail("a bool is " + std::to_string(b) + ", not 0 or 1");
        return b;
    }
    default: return r.u64(); // u64, i64
    }
}

Value read_value(Reader& r, ValueType t, int depth);

void read_items(Reader& r, Value& v, std::uint64_t n, int depth) {
    const ValueType e = v.element;
    if (e == ValueType::string) {
        v.texts.reserve(n);
        for (std::uint64_t i = 0; i < n; ++i) v.texts.push_back(r.string());
    } else if (e == ValueType::f32 || e == ValueType::f64) {
        v.reals.reserve(n);
        for (std::uint64_t i = 0; i < n; ++i) v.reals.push_back(read_float(r, e));
    } else if (e == ValueType::array) {
        v.arrays.reserve(n);
        for (std::uint64_t i = 0; i < n; ++i) v.arrays.push_back(read_value(r, e, depth + 1));
    } else {
        v.ints.reserve(n);
        for (std::uint64_t i = 0; i < n; ++i) v.ints.push_back(read_bits(r, e));
    }
}

Value read_value(Reader& r, ValueType t, int depth) {
    Value v;
    v.type = t;
    if (t == ValueType::string) {
        v.text = r.string();
    } else if (t == ValueType::f32 || t == ValueType::f64) {
        v.real = read_float(r, t);
    } else if (t == ValueType::array) {
        if (depth >= max_array_depth) r.fail("arrays nested deeper than " + std::to_string(max_array_depth));
        v.element = r.value_type();
        read_items(r, v, r.count(least_bytes(v.element), "array item"), depth);
    } else {
        v.bits = read_bits(r, t);
    }
    return v;
}

void read_header(Reader& r, File& f) {
    r.need(4);
    if (std::memcmp(r.bytes, "GGUF", 4) != 0) throw FileError(r.path + ": not a GGUF file: it does not begin with \"GGUF\"");
    r.pos = 4;
    f.version = r.u32();
    const std::uint32_t swapped = __builtin_bswap32(f.version);
    if (swapped == 2 || swapped == 3) r.fail("a big-endian GGUF file; attnviz reads little-endian ones");
    if (f.version != 2 && f.version != 3)
        r.fail("GGUF version " + std::to_string(f.version) + " is not supported (attnviz reads versions 2 and 3)");
}

void read_metadata(Reader& r, File& f, std::uint64_t n) {
    for (std::uint64_t i = 0; i < n; ++i) {
        r.where = "metadata entry " + std::to_string(i);
        std::string key = r.string();
        r.where = "metadata key " + quote_name(key);
        if (f.metadata.count(key)) r.fail("a duplicate key");
        const ValueType t = r.value_type();
        f.metadata.emplace(std::move(key), read_value(r, t, 0));
    }
}

std::uint64_t read_alignment(Reader& r, const File& f) {
    if (!find(f, "general.alignment")) return 32;
    const std::uint64_t a = get_u64(f, "general.alignment");
    if (a == 0 || (a & (a - 1)) != 0 || a > (1u << 30)) {
        r.where = "metadata key \"general.alignment\"";
        r.fail("alignment " + std::to_string(a) + " is not a power of two");
    }
    return a;
}

std::vector<std::int64_t> read_shape(Reader& r) {
    const std::uint32_t dims = r.u32();
    if (dims == 0 || dims > max_dims) r.fail(std::to_string(dims) + " dimensions (1 to 4 expected)");
    std::vector<std::int64_t> shape(dims);
    std::uint64_t count = 1;
    for (std::uint32_t d = 0; d < dims; ++d) {
        const std::uint64_t ne = r.u64();
        if (ne > static_cast<std::uint64_t>(INT64_MAX) || (ne != 0 && count > static_cast<std::uint64_t>(INT64_MAX) / ne))
            r.fail("its dimensions are too large");
        count *= ne;
        shape[dims - 1 - d] = static_cast<std::int64_t>(ne);
    }
    return shape;
}

TensorInfo read_tensor(Reader& r, std::uint64_t alignment) {
    TensorInfo t;
    t.name = r.string();
    r.where = "tensor " + quote_name(t.name);
    t.shape = read_shape(r);
    t.type = r.u32();
    const GgmlType* g = ggml_type(t.type);
    if (!g) r.fail("unknown tensor type " + std::to_string(t.type));
    std::uint64_t count = 1;
    for (std::int64_t d : t.shape) count *= static_cast<std::uint64_t>(d);
    if (t.shape.back() % g->block_values != 0)
        r.fail("a row of " + std::to_string(t.shape.back()) + " values is not whole blocks of " + g->name);
    if (count / g->block_values > UINT64_MAX / g->block_bytes) r.fail("its dimensions are too large");
    t.bytes = count / g->block_values * g->block_bytes;
    t.offset = r.u64();
    if (t.offset % alignment != 0) r.fail("offset " + std::to_string(t.offset) + " is not aligned to " + std::to_string(alignment));
    return t;
}

// Places the data after the table and every tensor's bytes inside the file.
void place_tensors(Reader& r, File& f) {
    const std::uint64_t pad = (f.alignment - r.pos % f.alignment) % f.alignment;
    f.data_offset = r.pos + pad;
    if (f.tensors.empty()) return;
    r.where = "the tensor data";
    if (pad > r.left()) r.fail("truncated: the tensor data would start at byte " + std::to_string(f.data_offset));
    const std::uint64_t data_size = r.size - f.data_offset;
    for (TensorInfo& t : f.tensors) {
        if (t.offset > data_size || t.bytes > data_size - t.offset) {
            r.where = "tensor " + quote_name(t.name);
            r.fail("truncated: its " + std::to_string(t.bytes) + " bytes at data offset " + std::to_string(t.offset) +
                   " lie outside the " + std::to_string(data_size) + " bytes of tensor data");
        }
        t.offset += f.data_offset;
    }
}

} // namespace

std::string quote_name(const std::string& name) {
    static const char hex[] = "0123456789abcdef";
    std::string q = "\"";
    for (unsigned char c : name) {
        if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
            q += static_cast<char>(c);
        } else {
            q += "\\x";
            q += hex[c >> 4];
            q += hex[c & 15];
        }
    }
    return q + "\"";
}

const char* value_type_name(ValueType t) {
    static const char* const names[] = {"u8", "i8", "u16", "i16", "u32", "i32", "f32", "bool", "string", "array", "u64", "i64", "f64"};
    const auto i = static_cast<std::uint32_t>(t);
    return i < 13 ? names[i] : "unknown";
}

std::size_t Value::size() const {
    if (type != ValueType::array) return 0;
    if (element == ValueType::string) return texts.size();
    if (element == ValueType::f32 || element == ValueType::f64) return reals.size();
    if (element == ValueType::array) return arrays.size();
    return ints.size();
}

const GgmlType* ggml_type(std::uint32_t id) {
    if (id >= sizeof(ggml_types) / sizeof(ggml_types[0]) || !ggml_types[id].name) return nullptr;
    return &ggml_types[id];
}

std::string ggml_type_name(std::uint32_t id) {
    const GgmlType* g = ggml_type(id);
    return g ? g->name : "type " + std::to_string(id);
}

File parse(const unsigned char* bytes, std::size_t size, const std::string& path) {
    Reader r{bytes, size, path};
    File f;
    f.path = path;
    read_header(r, f);
    const std::uint64_t tensors = r.count(24, "tensor");
    const std::uint64_t keys = r.count(13, "metadata");
    read_metadata(r, f, keys);
    f.alignment = read_alignment(r, f);
    std::set<std::string> names;
    f.tensors.reserve(tensors);
    for (std::uint64_t i = 0; i < tensors; ++i) {
        r.where = "tensor " + std::to_string(i);
        f.tensors.push_back(read_tensor(r, f.alignment));
        if (!names.insert(f.tensors.back().name).second) r.fail("a duplicate tensor name");
    }
    place_tensors(r, f);
    return f;
}

// ---- typed getters ----------------------------------------------------------------------------

namespace {

[[noreturn]] void bad_key(const File& f, const std::string& key, const std::string& why) {
    throw FileError(f.path + ": metadata key " + quote_name(key) + " " + why);
}

const Value& require(const File& f, const std::string& key) {
    const Value* v = find(f, key);
    if (!v) bad_key(f, key, "is missing");
    return *v;
}

[[noreturn]] void wrong_type(const File& f, const std::string& key, const Value& v, const char* wanted) {
    std::string is = value_type_name(v.type);
    if (v.type == ValueType::array) is += " of " + std::string(value_type_name(v.element));
    bad_key(f, key, "is " + is + ", not " + wanted);
}

bool is_signed(ValueType t) {
    return t == ValueType::i8 || t == ValueType::i16 || t == ValueType::i32 || t == ValueType::i64;
}

// An integer's value as int64, refusing a u64 above INT64_MAX.
std::int64_t integer(const File& f, const std::string& key, ValueType t, std::uint64_t bits) {
    if (!is_signed(t) && bits > static_cast<std::uint64_t>(INT64_MAX)) bad_key(f, key, "is too large");
    return static_cast<std::int64_t>(bits);
}

template <class T, class Get>
std::optional<T> if_present(const File& f, const std::string& key, Get get) {
    if (!find(f, key)) return std::nullopt;
    return get(f, key);
}

} // namespace

const Value* find(const File& f, const std::string& key) {
    const auto it = f.metadata.find(key);
    return it == f.metadata.end() ? nullptr : &it->second;
}

std::int64_t get_i64(const File& f, const std::string& key) {
    const Value& v = require(f, key);
    if (!is_integer(v.type)) wrong_type(f, key, v, "an integer");
    return integer(f, key, v.type, v.bits);
}

std::uint64_t get_u64(const File& f, const std::string& key) {
    const Value& v = require(f, key);
    if (!is_integer(v.type)) wrong_type(f, key, v, "an integer");
    if (is_signed(v.type) && static_cast<std::int64_t>(v.bits) < 0) bad_key(f, key, "is negative");
    return v.bits;
}

double get_f64(const File& f, const std::string& key) {
    const Value& v = require(f, key);
    if (v.type == ValueType::f32 || v.type == ValueType::f64) return v.real;
    if (!is_integer(v.type)) wrong_type(f, key, v, "a number");
    return static_cast<double>(integer(f, key, v.type, v.bits));
}

bool get_bool(const File& f, const std::string& key) {
    const Value& v = require(f, key);
    if (v.type != ValueType::boolean) wrong_type(f, key, v, "a bool");
    return v.bits != 0;
}

std::string get_string(const File& f, const std::string& key) {
    const Value& v = require(f, key);
    if (v.type != ValueType::string) wrong_type(f, key, v, "a string");
    return v.text;
}

std::vector<std::string> get_strings(const File& f, const std::string& key) {
    const Value& v = require(f, key);
    if (v.type != ValueType::array || v.element != ValueType::string) wrong_type(f, key, v, "an array of string");
    return v.texts;
}

std::vector<float> get_f32s(const File& f, const std::string& key) {
    const Value& v = require(f, key);
    if (v.type != ValueType::array || (v.element != ValueType::f32 && v.element != ValueType::f64))
        wrong_type(f, key, v, "an array of f32");
    return std::vector<float>(v.reals.begin(), v.reals.end());
}

std::vector<std::int32_t> get_i32s(const File& f, const std::string& key) {
    const Value& v = require(f, key);
    if (v.type != ValueType::array || !is_integer(v.element)) wrong_type(f, key, v, "an array of integers");
    std::vector<std::int32_t> out;
    out.reserve(v.ints.size());
    for (std::uint64_t bits : v.ints) {
        const std::int64_t i = integer(f, key, v.element, bits);
        if (i < INT32_MIN || i > INT32_MAX) bad_key(f, key, "has an item outside i32's range");
        out.push_back(static_cast<std::int32_t>(i));
    }
    return out;
}

std::optional<std::uint64_t> find_u64(const File& f, const std::string& key) { return if_present<std::uint64_t>(f, key, get_u64); }
std::optional<std::int64_t> find_i64(const File& f, const std::string& key) { return if_present<std::int64_t>(f, key, get_i64); }
std::optional<double> find_f64(const File& f, const std::string& key) { return if_present<double>(f, key, get_f64); }
std::optional<bool> find_bool(const File& f, const std::string& key) { return if_present<bool>(f, key, get_bool); }
std::optional<std::string> find_string(const File& f, const std::string& key) {
    return if_present<std::string>(f, key, get_string);
}
std::optional<std::vector<std::string>> find_strings(const File& f, const std::string& key) {
    return if_present<std::vector<std::string>>(f, key, get_strings);
}
std::optional<std::vector<float>> find_f32s(const File& f, const std::string& key) {
    return if_present<std::vector<float>>(f, key, get_f32s);
}
std::optional<std::vector<std::int32_t>> find_i32s(const File& f, const std::string& key) {
    return if_present<std::vector<std::int32_t>>(f, key, get_i32s);
}

} // namespace core::model::gguf
