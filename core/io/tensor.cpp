// core/io/tensor.cpp — dtypes, byte order and the checks every tensor reader shares.
//
// [SECTION] dtypes and shapes
// [SECTION] small floats (float16, bfloat16)
// [SECTION] decoding bytes to doubles
// [SECTION] encoding doubles to bytes
// [SECTION] whole files
#include "core/io/tensor.h"

#include "core/io/files.h"

#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the readers assume a little-endian host");

namespace core::io {

std::string quote_text(const std::string& text) {
    static const char hex[] = "0123456789abcdef";
    std::string q = "\"";
    for (const unsigned char c : text) {
        if (c == '"' || c == '\\') {
            q += '\\';
            q += static_cast<char>(c);
        } else if (c == '\n' || c == '\r' || c == '\t') {
            q += c == '\n' ? "\\n" : c == '\r' ? "\\r" : "\\t";
        } else if (c < 0x20 || c == 0x7f) {
            q += "\\x";
            q += hex[c >> 4];
            q += hex[c & 15];
        } else {
            q += static_cast<char>(c);
        }
    }
    return q + "\"";
}

// [SECTION] dtypes and shapes ------------------------------------------------------------------

std::size_t dtype_size(DType t) {
    switch (t) {
    case DType::i8: case DType::u8: case DType::boolean: return 1;
    case DType::f16: case DType::bf16: case DType::i16: case DType::u16: return 2;
    case DType::f32: case DType::i32: case DType::u32: return 4;
    case DType::f64: case DType::i64: case DType::u64: return 8;
    }
    return 8;
}

const char* dtype_name(DType t) {
    switch (t) {
    case DType::f16: return "float16";
    case DType::bf16: return "bfloat16";
    case DType::f32: return "float32";
    case DType::f64: return "float64";
    case DType::i8: return "int8";
    case DType::i16: return "int16";
    case DType::i32: return "int32";
    case DType::i64: return "int64";
    case DType::u8: return "uint8";
    case DType::u16: return "uint16";
    case DType::u32: return "uint32";
    case DType::u64: return "uint64";
    case DType::boolean: return "bool";
    }
    return "?";
}

std::string shape_text(const std::vector<std::int64_t>& shape) {
    std::string s = "(";
    for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + (shape.size() == 1 ? ",)" : ")");
}

std::int64_t element_count(const std::vector<std::int64_t>& shape, const std::string& path, std::int64_t max_elements) {
    if (shape.size() > static_cast<std::size_t>(max_tensor_rank))
        throw FileError(path + ": the array has " + std::to_string(shape.size()) + " dimensions, more than the limit of " +
                        std::to_string(max_tensor_rank));
    std::int64_t count = 1;
    for (std::int64_t d : shape) {
        if (d < 0) throw FileError(path + ": shape " + shape_text(shape) + " has a negative dimension");
        if (d == 0) return 0;
        if (d > max_elements || count > max_elements / d)
            throw FileError(path + ": shape " + shape_text(shape) + " has more than " + std::to_string(max_elements) +
                            " elements, past the limit");
        count *= d;
    }
    return count;
}

void check_tensor(const Tensor& t, const std::string& path) {
    const std::int64_t n = element_count(t.shape, path);
    if (static_cast<std::int64_t>(t.values.size()) != n)
        throw FileError(path + ": shape " + shape_text(t.shape) + " needs " + std::to_string(n) + " values, the tensor has " +
                        std::to_string(t.values.size()));
}

// [SECTION] small floats (float16, bfloat16) --------------------------------------------------

namespace {

// An IEEE binary format with `mant_bits` of fraction and exponent bias `bias`.
struct SmallFloat {
    int mant_bits;
    int bias;
    int exp_max; // all-ones exponent field
};
constexpr SmallFloat half_format{10, 15, 31};
constexpr SmallFloat bf16_format{7, 127, 255};

double small_float_to_double(std::uint32_t bits, SmallFloat f) {
    const std::uint32_t mant = bits & ((1u << f.mant_bits) - 1);
    const int exp = static_cast<int>((bits >> f.mant_bits) & static_cast<std::uint32_t>(f.exp_max));
    const bool negative = (bits >> (f.mant_bits + (f.exp_max == 31 ? 5 : 8))) & 1u;
    double v;
    if (exp == 0) v = std::ldexp(static_cast<double>(mant), 1 - f.bias - f.mant_bits);
    else if (exp == f.exp_max) v = mant ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
    else v = std::ldexp(static_cast<double>(mant | (1u << f.mant_bits)), exp - f.bias - f.mant_bits);
    return negative ? -v : v;
}

// Round to nearest, ties to even; false when the value is too large for the format.
bool double_to_small_float(double v, SmallFloat f, std::uint32_t& bits) {
    const int exp_bits = f.exp_max == 31 ? 5 : 8;
    const std::uint32_t sign = std::signbit(v) ? (1u << (f.mant_bits + exp_bits)) : 0u;
    const double a = std::fabs(v);
    const int min_exp = 1 - f.bias; // exponent of the smallest normal number
    std::uint32_t magnitude;
    if (a == 0) {
        magnitude = 0;
    } else if (std::ilogb(a) < min_exp) { // subnormal; rounding up to 2^min_exp gives the right bits too
        magnitude = static_cast<std::uint32_t>(std::nearbyint(std::ldexp(a, f.mant_bits - min_exp)));
    } else {
        int e = std::ilogb(a);
        double scaled = std::nearbyint(std::ldexp(a, f.mant_bits - e)); // in [2^m, 2^(m+1)]
        if (scaled == std::ldexp(1.0, f.mant_bits + 1)) {
            ++e;
            scaled /= 2;
        }
        if (e + f.bias >= f.exp_max) return false;
        magnitude = (static_cast<std::uint32_t>(e + f.bias) << f.mant_bits) |
                    (static_cast<std::uint32_t>(scaled) - (1u << f.mant_bits));
    }
    bits = sign | magnitude;
    return true;
}

} // namespace

double half_to_double(std::uint16_t h) { return small_float_to_double(h, half_format); }
double bfloat16_to_double(std::uint16_t b) { return small_float_to_double(b, bf16_format); }

// [SECTION] decoding bytes to doubles ----------------------------------------------------------

namespace {

template <typename U>
U load_uint(const unsigned char* p, bool big_endian) {
    U u;
    std::memcpy(&u, p, sizeof(U));
    if (big_endian) {
        if constexpr (sizeof(U) == 2) u = __builtin_bswap16(u);
        else if constexpr (sizeof(U) == 4) u = __builtin_bswap32(u);
        else if constexpr (sizeof(U) == 8) u = __builtin_bswap64(u);
    }
    return u;
}

template <typename T, typename U>
T load_as(const unsigned char* p, bool big_endian) {
    const U u = load_uint<U>(p, big_endian);
    T t;
    std::memcpy(&t, &u, sizeof(T));
    return t;
}

// "[2, 3]": the position of element `flat` in an array of `shape`.
std::string index_text(std::size_t flat, const std::vector<std::int64_t>& shape) {
    std::vector<std::int64_t> idx(shape.size());
    for (std::size_t k = shape.size(); k-- > 0;) {
        const auto d = static_cast<std::size_t>(shape[k]);
        idx[k] = static_cast<std::int64_t>(flat % d);
        flat /= d;
    }
    std::string s = "[";
    for (std::size_t k = 0; k < idx.size(); ++k) s += (k ? ", " : "") + std::to_string(idx[k]);
    return s + "]";
}

template <typename Load>
void decode_with(const unsigned char* bytes, std::size_t count, std::size_t size, double* out, Load load) {
    for (std::size_t i = 0; i < count; ++i) out[i] = load(bytes + i * size);
}

} // namespace

double load_value(const unsigned char* p, DType t, bool big_endian) {
    switch (t) {
    case DType::f16: return half_to_double(load_uint<std::uint16_t>(p, big_endian));
    case DType::bf16: return bfloat16_to_double(load_uint<std::uint16_t>(p, big_endian));
    case DType::f32: return load_as<float, std::uint32_t>(p, big_endian);
    case DType::f64: return load_as<double, std::uint64_t>(p, big_endian);
    case DType::i8: return static_cast<std::int8_t>(*p);
    case DType::i16: return load_as<std::int16_t, std::uint16_t>(p, big_endian);
    case DType::i32: return load_as<std::int32_t, std::uint32_t>(p, big_endian);
    case DType::i64: return static_cast<double>(load_as<std::int64_t, std::uint64_t>(p, big_endian));
    case DType::u8: return *p;
    case DType::u16: return load_uint<std::uint16_t>(p, big_endian);
    case DType::u32: return load_uint<std::uint32_t>(p, big_endian);
    case DType::u64: return static_cast<double>(load_uint<std::uint64_t>(p, big_endian));
    case DType::boolean: return *p ? 1.0 : 0.0;
    }
    return 0;
}

void decode_values(const unsigned char* bytes, std::size_t count, DType t, bool big_endian, double* out,
                   const std::vector<std::int64_t>& shape, const std::string& path) {
    const std::size_t size = dtype_size(t);
    // The common little-endian floats get a loop of their own; the rest go through load_value.
    if (t == DType::f32 && !big_endian) decode_with(bytes, count, 4, out, [](const unsigned char* p) { return double(load_as<float, std::uint32_t>(p, false)); });
    else if (t == DType::f64 && !big_endian) { if (count) std::memcpy(out, bytes, count * 8); }
    else decode_with(bytes, count, size, out, [&](const unsigned char* p) { return load_value(p, t, big_endian); });
    if (t != DType::f16 && t != DType::bf16 && t != DType::f32 && t != DType::f64) return;
    for (std::size_t i = 0; i < count; ++i)
        if (!std::isfinite(out[i]))
            throw FileError(path + ": element " + index_text(i, shape) + " is " + (std::isnan(out[i]) ? "NaN" : "infinite") +
                            "; every value must be a finite number");
}

// [SECTION] encoding doubles to bytes ----------------------------------------------------------

namespace {

template <typename U>
void append(std::string& out, U u) {
    char b[sizeof(U)];
    std::memcpy(b, &u, sizeof(U));
    out.append(b, sizeof(U));
}

template <typename I>
bool fits_integer(double v) {
    // The bounds are powers of two, exact as doubles: [min, max + 1). A 64-bit maximum read as a
    // double rounds up to max + 1, so that one is taken as the maximum, for round trips.
    const double lo = static_cast<double>(std::numeric_limits<I>::min());
    const double hi = std::ldexp(1.0, std::numeric_limits<I>::digits);
    return v == std::trunc(v) && v >= lo && (v < hi || (sizeof(I) == 8 && v == hi));
}

template <typename I>
void append_integer(std::string& out, double v) {
    const double hi = std::ldexp(1.0, std::numeric_limits<I>::digits);
    append(out, v >= hi ? std::numeric_limits<I>::max() : static_cast<I>(v));
}

} // namespace

std::string encode_values(const std::vector<double>& values, DType t, const std::string& path) {
    std::string out;
    out.reserve(values.size() * dtype_size(t));
    for (std::size_t i = 0; i < values.size(); ++i) {
        const double v = values[i];
        auto refuse = [&](const char* why) {
            throw FileError(path + ": value " + json_number(v) + " at position " + std::to_string(i) + " " + why + " " + dtype_name(t));
        };
        // ±∞ in float64 is a masked score of an exported scenario ("scaled"); NaN is never written.
        if (!std::isfinite(v) && !(t == DType::f64 && std::isinf(v))) refuse("is not finite, cannot be written as");
        std::uint32_t bits = 0;
        switch (t) {
        case DType::f16:
        case DType::bf16:
            if (!double_to_small_float(v, t == DType::f16 ? half_format : bf16_format, bits)) refuse("is too large for");
            append(out, static_cast<std::uint16_t>(bits));
            break;
        case DType::f32: {
            const float f = static_cast<float>(v);
            if (!std::isfinite(f)) refuse("is too large for");
            append(out, f);
            break;
        }
        case DType::f64: append(out, v); break;
#define ATTNVIZ_INT_CASE(tag, I)                       \
    case DType::tag:                                   \
        if (!fits_integer<I>(v)) refuse("does not fit"); \
        append_integer<I>(out, v);                     \
        break;
        ATTNVIZ_INT_CASE(i8, std::int8_t)
        ATTNVIZ_INT_CASE(i16, std::int16_t)
        ATTNVIZ_INT_CASE(i32, std::int32_t)
        ATTNVIZ_INT_CASE(i64, std::int64_t)
        ATTNVIZ_INT_CASE(u8, std::uint8_t)
        ATTNVIZ_INT_CASE(u16, std::uint16_t)
        ATTNVIZ_INT_CASE(u32, std::uint32_t)
        ATTNVIZ_INT_CASE(u64, std::uint64_t)
#undef ATTNVIZ_INT_CASE
        case DType::boolean:
            if (v != 0 && v != 1) refuse("is neither 0 nor 1, cannot be written as");
            out.push_back(v != 0 ? '\1' : '\0');
            break;
        }
    }
    return out;
}

// [SECTION] whole files ------------------------------------------------------------------------

std::string read_file_bytes(const std::string& path, std::size_t max_bytes) {
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    if (!in) throw FileError(path + ": cannot open: " + std::strerror(errno));
    const std::streamoff size = in.tellg();
    if (size < 0) throw FileError(path + ": cannot read");
    if (static_cast<std::uint64_t>(size) > max_bytes)
        throw FileError(path + ": the file has " + std::to_string(size) + " bytes, more than the limit of " + std::to_string(max_bytes));
    std::string bytes(static_cast<std::size_t>(size), '\0');
    in.seekg(0);
    if (!in.read(bytes.data(), size)) throw FileError(path + ": cannot read");
    return bytes;
}

void write_file_bytes_atomically(const std::string& path, const std::string& bytes) {
    try {
        write_file_atomically(path, bytes);
    } catch (const std::runtime_error& e) {
        throw FileError(e.what());
    }
}

} // namespace core::io
