// core/io/npy.cpp — the .npy header (a Python dict literal) and the data after it.
//
// [SECTION] the header's Python literal
// [SECTION] header
// [SECTION] data
// [SECTION] writing
#include "core/io/npy.h"

#include <cstring>

namespace core::io {

// [SECTION] the header's Python literal --------------------------------------------------------

namespace {

// The few Python literals an .npy header holds: strings, True/False/None, integers, tuples, lists
// and dicts with string keys.
struct PyValue {
    enum class Kind { string, boolean, none, integer, sequence, list, dict } kind = Kind::none;
    std::string text;
    bool flag = false;
    std::int64_t number = 0;
    std::vector<PyValue> items;
    std::vector<std::pair<std::string, PyValue>> members;
};

class PyParser {
public:
    PyParser(const std::string& text, const std::string& path) : s_(text), path_(path) {}

    PyValue parse_all() {
        PyValue v = value(0);
        skip_space();
        if (i_ != s_.size()) fail("unexpected text after the dictionary");
        return v;
    }

private:
    const std::string& s_;
    const std::string& path_;
    std::size_t i_ = 0;

    [[noreturn]] void fail(const std::string& why) const {
        throw FileError(path_ + ": corrupt .npy header (" + why + " at character " + std::to_string(i_ + 1) + ")");
    }
    void skip_space() {
        while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\t' || s_[i_] == '\r')) ++i_;
    }
    bool eat(char c) {
        skip_space();
        if (i_ < s_.size() && s_[i_] == c) {
            ++i_;
            return true;
        }
        return false;
    }
    bool word(const char* w) {
        const std::size_t n = std::strlen(w);
        if (s_.compare(i_, n, w) != 0) return false;
        i_ += n;
        return true;
    }

    PyValue value(int depth) {
        if (depth > 8) fail("nested too deeply");
        skip_space();
        if (i_ >= s_.size()) fail("the header ends early");
        PyValue v;
        const char c = s_[i_];
        if (c == '\'' || c == '"') {
            v.kind = PyValue::Kind::string;
            v.text = string();
        } else if (c == '(' || c == '[') {
            v.kind = c == '(' ? PyValue::Kind::sequence : PyValue::Kind::list;
            ++i_;
            const char close = c == '(' ? ')' : ']';
            while (!eat(close)) {
                v.items.push_back(value(depth + 1));
                if (!eat(',')) {
                    if (!eat(close)) fail(std::string("expected ',' or '") + close + "'");
                    break;
                }
            }
        } else if (c == '{') {
            v.kind = PyValue::Kind::dict;
            ++i_;
            while (!eat('}')) {
                skip_space();
                if (i_ >= s_.size() || (s_[i_] != '\'' && s_[i_] != '"')) fail("expected a quoted key");
                std::string key = string();
                if (!eat(':')) fail("expected ':'");
                v.members.emplace_back(std::move(key), value(depth + 1));
                if (!eat(',')) {
                    if (!eat('}')) fail("expected ',' or '}'");
                    break;
                }
            }
        } else if (word("True")) {
            v.kind = PyValue::Kind::boolean;
            v.flag = true;
        } else if (word("False")) {
            v.kind = PyValue::Kind::boolean;
        } else if (word("None")) {
            v.kind = PyValue::Kind::none;
        } else if ((c >= '0' && c <= '9') || c == '-') {
            v.kind = PyValue::Kind::integer;
            v.number = integer();
        } else {
            fail(std::string("unexpected character '") + c + "'");
        }
        return v;
    }

    std::string string() {
        const char quote = s_[i_++];
        std::string out;
        while (i_ < s_.size() && s_[i_] != quote) {
            if (s_[i_] == '\\') fail("escapes are not supported in a header string");
            out += s_[i_++];
        }
        if (i_ >= s_.size()) fail("a string is not closed");
        ++i_;
        return out;
    }

    std::int64_t integer() {
        const bool negative = s_[i_] == '-';
        if (negative) ++i_;
        if (i_ >= s_.size() || s_[i_] < '0' || s_[i_] > '9') fail("expected a digit");
        std::int64_t v = 0;
        while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') {
            if (v > (INT64_MAX - 9) / 10) fail("an integer is too large");
            v = v * 10 + (s_[i_++] - '0');
        }
        if (i_ < s_.size() && s_[i_] == 'L') ++i_; // Python 2 wrote 3L
        return negative ? -v : v;
    }
};

// [SECTION] header -----------------------------------------------------------------------------

// "<f8" → float64, little-endian. Everything NumPy can store that we cannot is named.
void parse_descr(const std::string& descr, NpyHeader& h, const std::string& path) {
    std::string code = descr;
    if (!code.empty() && std::strchr("<>|=", code[0])) {
        h.big_endian = code[0] == '>';
        code = code.substr(1);
    }
    static const std::pair<const char*, DType> known[] = {
        {"f2", DType::f16}, {"f4", DType::f32}, {"f8", DType::f64}, {"e", DType::f16}, {"f", DType::f32}, {"d", DType::f64},
        {"i1", DType::i8}, {"i2", DType::i16}, {"i4", DType::i32}, {"i8", DType::i64},
        {"u1", DType::u8}, {"u2", DType::u16}, {"u4", DType::u32}, {"u8", DType::u64},
        {"b1", DType::boolean}, {"?", DType::boolean},
    };
    for (const auto& [name, type] : known)
        if (code == name) {
            h.dtype = type;
            return;
        }
    const char kind = code.empty() ? ' ' : code[0];
    const char* what = kind == 'c' ? "complex numbers"
                     : kind == 'O' ? "Python objects"
                     : (kind == 'U' || kind == 'S' || kind == 'a') ? "strings"
                     : (kind == 'M' || kind == 'm') ? "dates or times"
                     : kind == 'V' ? "raw records"
                     : kind == 'f' ? "a float of this size"
                     : "an unknown type";
    throw FileError(path + ": dtype '" + descr + "' (" + what + ") is not supported; attnviz reads float16/32/64, " +
                    "signed and unsigned integers and bool");
}

std::uint32_t little_u32(const unsigned char* p, std::size_t n) {
    std::uint32_t v = 0;
    for (std::size_t k = n; k-- > 0;) v = (v << 8) | p[k];
    return v;
}

const PyValue* find_member(const PyValue& dict, const char* key) {
    for (const auto& [k, v] : dict.members)
        if (k == key) return &v;
    return nullptr;
}

} // namespace

NpyHeader parse_npy_header(const char* bytes, std::size_t size, const std::string& path) {
    const auto* u = reinterpret_cast<const unsigned char*>(bytes);
    if (size < 10 || std::memcmp(bytes, "\x93NUMPY", 6) != 0)
        throw FileError(path + ": not a .npy file (it does not start with \\x93NUMPY)" + (size < 10 ? ", or it is truncated" : ""));
    const int major = u[6], minor = u[7];
    if (major < 1 || major > 3 || minor != 0)
        throw FileError(path + ": .npy format version " + std::to_string(major) + "." + std::to_string(minor) +
                        " is not supported (1.0 to 3.0 are)");
    const std::size_t len_bytes = major == 1 ? 2 : 4;
    if (size < 8 + len_bytes) throw FileError(path + ": truncated .npy header");
    const std::size_t header_len = little_u32(u + 8, len_bytes);
    const std::size_t start = 8 + len_bytes;
    if (header_len > size - start)
        throw FileError(path + ": truncated .npy file (the header says it is " + std::to_string(header_len) + " bytes, " +
                        std::to_string(size - start) + " follow)");
    const std::string text(bytes + start, header_len);
    const PyValue dict = PyParser(text, path).parse_all();
    if (dict.kind != PyValue::Kind::dict) throw FileError(path + ": corrupt .npy header (not a dictionary)");

    NpyHeader h;
    h.data_offset = start + header_len;
    const PyValue* descr = find_member(dict, "descr");
    const PyValue* fortran = find_member(dict, "fortran_order");
    const PyValue* shape = find_member(dict, "shape");
    if (!descr || !fortran || !shape) throw FileError(path + ": corrupt .npy header (it needs 'descr', 'fortran_order' and 'shape')");
    if (descr->kind != PyValue::Kind::string)
        throw FileError(path + ": dtype with named fields (a structured array) is not supported; save a plain numeric array");
    parse_descr(descr->text, h, path);
    if (fortran->kind != PyValue::Kind::boolean) throw FileError(path + ": corrupt .npy header ('fortran_order' is not True or False)");
    h.fortran_order = fortran->flag;
    if (shape->kind != PyValue::Kind::sequence) throw FileError(path + ": corrupt .npy header ('shape' is not a tuple)");
    for (const PyValue& d : shape->items) {
        if (d.kind != PyValue::Kind::integer || d.number < 0) throw FileError(path + ": corrupt .npy header ('shape' holds something other than sizes)");
        h.shape.push_back(d.number);
    }
    const auto count = static_cast<std::uint64_t>(element_count(h.shape, path, INT64_MAX / 8));
    const std::uint64_t need = count * dtype_size(h.dtype);
    if (need > size - h.data_offset)
        throw FileError(path + ": truncated .npy file (shape " + shape_text(h.shape) + " of " + dtype_name(h.dtype) + " needs " +
                        std::to_string(need) + " bytes of data, " + std::to_string(size - h.data_offset) + " follow the header)");
    return h;
}

// [SECTION] data -------------------------------------------------------------------------------

namespace {

// Fortran order stores the first index fastest; reorder so that the last one is.
std::vector<double> fortran_to_c(const std::vector<double>& f, const std::vector<std::int64_t>& shape) {
    std::vector<double> c(f.size());
    const std::size_t rank = shape.size();
    std::vector<std::int64_t> stride(rank, 1), idx(rank, 0);
    for (std::size_t k = 1; k < rank; ++k) stride[k] = stride[k - 1] * shape[k - 1];
    std::int64_t src = 0;
    for (double& out : c) {
        out = f[static_cast<std::size_t>(src)];
        for (std::size_t k = rank; k-- > 0;) { // odometer over the C order, last index fastest
            src += stride[k];
            if (++idx[k] < shape[k]) break;
            src -= stride[k] * shape[k];
            idx[k] = 0;
        }
    }
    return c;
}

} // namespace

Tensor parse_npy(const char* bytes, std::size_t size, const std::string& path) {
    const NpyHeader h = parse_npy_header(bytes, size, path);
    Tensor t;
    t.shape = h.shape;
    t.dtype = h.dtype;
    const auto count = static_cast<std::size_t>(element_count(h.shape, path));
    const std::size_t end = h.data_offset + count * dtype_size(h.dtype);
    if (end != size)
        throw FileError(path + ": " + std::to_string(size - end) + " bytes follow the data of shape " + shape_text(h.shape) +
                        "; the file is not one .npy array");
    t.values.resize(count);
    decode_values(reinterpret_cast<const unsigned char*>(bytes) + h.data_offset, count, h.dtype, h.big_endian, t.values.data(),
                  h.shape, path);
    if (h.fortran_order && h.shape.size() > 1) t.values = fortran_to_c(t.values, h.shape);
    return t;
}

Tensor read_npy(const std::string& path) {
    const std::string bytes = read_file_bytes(path, static_cast<std::size_t>(max_tensor_elements) * 8 + (1u << 20));
    return parse_npy(bytes.data(), bytes.size(), path);
}

// [SECTION] writing ----------------------------------------------------------------------------

namespace {

const char* descr_of(DType t) {
    switch (t) {
    case DType::f16: return "<f2";
    case DType::bf16: return "<f4"; // NumPy has no bfloat16; float32 holds every value exactly
    case DType::f32: return "<f4";
    case DType::f64: return "<f8";
    case DType::i8: return "|i1";
    case DType::i16: return "<i2";
    case DType::i32: return "<i4";
    case DType::i64: return "<i8";
    case DType::u8: return "|u1";
    case DType::u16: return "<u2";
    case DType::u32: return "<u4";
    case DType::u64: return "<u8";
    case DType::boolean: return "|b1";
    }
    return "<f8";
}

} // namespace

std::string npy_bytes(const Tensor& t, const std::string& path) {
    check_tensor(t, path);
    std::string dict = std::string("{'descr': '") + descr_of(t.dtype) + "', 'fortran_order': False, 'shape': " + shape_text(t.shape) + ", }";
    // NumPy pads with spaces and a newline so that the data starts on a 64-byte boundary.
    const bool v1 = (10 + dict.size() + 1 + 63) / 64 * 64 - 10 <= 65535;
    const std::size_t prefix = v1 ? 10 : 12;
    const std::size_t total = (prefix + dict.size() + 1 + 63) / 64 * 64;
    dict.append(total - prefix - dict.size() - 1, ' ');
    dict += '\n';
    std::string out = "\x93NUMPY";
    out += static_cast<char>(v1 ? 1 : 2);
    out += '\0';
    const std::size_t len = dict.size();
    for (std::size_t k = 0; k < (v1 ? 2u : 4u); ++k) out += static_cast<char>((len >> (8 * k)) & 0xff);
    out += dict;
    out += encode_values(t.values, t.dtype == DType::bf16 ? DType::f32 : t.dtype, path);
    return out;
}

} // namespace core::io
