// The GGUF reader on files written byte by byte here: every value type, nested arrays, the alignment
// and data offset, both versions; and every kind of bad file refused with one line naming the file
// and the place.
#include "core/io/tensor.h"
#include "core/model/format/gguf.h"

#include <doctest/doctest.h>

#include <cstring>
#include <string>
#include <vector>

namespace {

using namespace core::model::gguf;

// A GGUF file built in memory, little-endian as the format has it.
struct FileBytes {
    std::vector<unsigned char> b;
    FileBytes& raw(std::uint64_t v, int n) {
        for (int i = 0; i < n; ++i) b.push_back(static_cast<unsigned char>(i < 8 ? v >> (8 * i) : 0)); // n > 8: zeros after v
        return *this;
    }
    FileBytes& u32(std::uint32_t v) { return raw(v, 4); }
    FileBytes& u64(std::uint64_t v) { return raw(v, 8); }
    FileBytes& f32(float f) {
        std::uint32_t u;
        std::memcpy(&u, &f, 4);
        return u32(u);
    }
    FileBytes& str(const std::string& s) {
        u64(s.size());
        b.insert(b.end(), s.begin(), s.end());
        return *this;
    }
    FileBytes& key(const std::string& k, ValueType t) { return str(k).u32(static_cast<std::uint32_t>(t)); }
    FileBytes& pad(std::size_t alignment) {
        while (b.size() % alignment) b.push_back(0);
        return *this;
    }
};

FileBytes gguf_header(std::uint32_t version, std::uint64_t tensors, std::uint64_t keys) {
    FileBytes x;
    x.b = {'G', 'G', 'U', 'F'};
    return x.u32(version).u64(tensors).u64(keys);
}

// Every value type, a nested array, alignment 64, and two tensors: an F32 (2, 3) and a Q8_0 (1, 32).
FileBytes every_type(std::uint32_t version) {
    FileBytes x = gguf_header(version, 2, 16);
    x.key("general.architecture", ValueType::string).str("llama");
    x.key("general.alignment", ValueType::u32).u32(64);
    x.key("a.u8", ValueType::u8).raw(200, 1);
    x.key("a.i8", ValueType::i8).raw(0xFE, 1);
    x.key("a.u16", ValueType::u16).raw(60000, 2);
    x.key("a.i16", ValueType::i16).raw(0x8000, 2);
    x.key("a.u32", ValueType::u32).u32(4000000000u);
    x.key("a.i32", ValueType::i32).u32(0xFFFFFFFFu);
    x.key("a.u64", ValueType::u64).u64(1ull << 40);
    x.key("a.i64", ValueType::i64).u64(static_cast<std::uint64_t>(-5ll));
    x.key("a.f32", ValueType::f32).f32(0.25f);
    x.key("a.f64", ValueType::f64).raw(0x3FF8000000000000ull, 8); // 1.5
    x.key("a.bool", ValueType::boolean).raw(1, 1);
    x.key("a.strings", ValueType::array).u32(8).u64(3).str("a").str("").str("é");
    x.key("a.ints", ValueType::array).u32(5).u64(2).u32(7).u32(static_cast<std::uint32_t>(-9));
    x.key("a.nested", ValueType::array).u32(9).u64(2);
    x.u32(6).u64(2).f32(1).f32(2);  // [1.0, 2.0]
    x.u32(8).u64(1).str("x");       // ["x"]
    x.str("w").u32(2).u64(3).u64(2).u32(0).u64(0);     // ne (3, 2): shape (2, 3), F32 at 0
    x.str("q").u32(2).u64(32).u64(1).u32(8).u64(64);   // ne (32, 1): shape (1, 32), Q8_0 at 64
    x.pad(64);
    for (int i = 0; i < 6; ++i) x.f32(static_cast<float>(i));
    x.pad(64);
    for (int i = 0; i < 34; ++i) x.raw(i, 1);
    return x;
}

File parse_bytes(const FileBytes& x, const std::string& path = "m.gguf") { return parse(x.b.data(), x.b.size(), path); }

std::string refusal(const FileBytes& x) {
    try {
        parse_bytes(x);
    } catch (const core::io::FileError& e) {
        return e.what();
    }
    return "(parsed)";
}

} // namespace

TEST_CASE("gguf: every value type, a nested array, the alignment and the tensor table of a v3 file") {
    const FileBytes x = every_type(3);
    const File f = parse_bytes(x);
    CHECK(f.version == 3);
    CHECK(get_string(f, "general.architecture") == "llama");
    CHECK(get_u64(f, "a.u8") == 200);
    CHECK(get_i64(f, "a.i8") == -2);
    CHECK(get_u64(f, "a.u16") == 60000);
    CHECK(get_i64(f, "a.i16") == -32768);
    CHECK(get_u64(f, "a.u32") == 4000000000u);
    CHECK(get_i64(f, "a.i32") == -1);
    CHECK(get_u64(f, "a.u64") == (1ull << 40));
    CHECK(get_i64(f, "a.i64") == -5);
    CHECK(get_f64(f, "a.f32") == 0.25);
    CHECK(get_f64(f, "a.f64") == 1.5);
    CHECK(get_f64(f, "a.u32") == 4000000000.0);
    CHECK(get_bool(f, "a.bool"));
    CHECK(get_strings(f, "a.strings") == std::vector<std::string>{"a", "", "é"});
    CHECK(get_i32s(f, "a.ints") == std::vector<std::int32_t>{7, -9});
    const Value& nested = *find(f, "a.nested");
    REQUIRE(nested.size() == 2);
    CHECK(nested.arrays[0].reals == std::vector<double>{1.0, 2.0});
    CHECK(nested.arrays[1].texts == std::vector<std::string>{"x"});
    CHECK(!find_u64(f, "absent"));
    CHECK(find_f64(f, "a.f32") == 0.25);
    CHECK(f.alignment == 64);
    REQUIRE(f.tensors.size() == 2);
    CHECK(f.data_offset % 64 == 0);
    CHECK(f.tensors[0].name == "w");
    CHECK(f.tensors[0].shape == std::vector<std::int64_t>{2, 3});
    CHECK(f.tensors[0].type == 0);
    CHECK(f.tensors[0].offset == f.data_offset);
    CHECK(f.tensors[0].bytes == 24);
    float w5;
    std::memcpy(&w5, x.b.data() + f.tensors[0].offset + 20, 4);
    CHECK(w5 == 5.0f);
    CHECK(f.tensors[1].shape == std::vector<std::int64_t>{1, 32});
    CHECK(ggml_type_name(f.tensors[1].type) == "Q8_0");
    CHECK(f.tensors[1].offset == f.data_offset + 64);
    CHECK(f.tensors[1].bytes == 34);
    CHECK(x.b[f.tensors[1].offset + 33] == 33);
}

TEST_CASE("gguf: a v2 file reads the same — without general.alignment the data is 32-aligned") {
    CHECK(parse_bytes(every_type(2)).version == 2);
    FileBytes x = gguf_header(3, 1, 1);
    x.key("general.architecture", ValueType::string).str("gpt2");
    x.str("t").u32(1).u64(4).u32(1).u64(0).pad(32).raw(0, 8);
    const File f = parse_bytes(x);
    CHECK(f.alignment == 32);
    CHECK(f.data_offset == x.b.size() - 8);
    CHECK(ggml_type_name(f.tensors[0].type) == "F16");
}

TEST_CASE("gguf: every truncation of a file is one line naming the file, never a crash") {
    const FileBytes whole = every_type(3);
    for (std::size_t n = 0; n < whole.b.size(); ++n) {
        CAPTURE(n);
        FileBytes cut;
        cut.b.assign(whole.b.begin(), whole.b.begin() + static_cast<std::ptrdiff_t>(n));
        const std::string what = refusal(cut);
        CHECK(what.rfind("m.gguf: ", 0) == 0);
        CHECK(what.find('\n') == std::string::npos);
    }
    FileBytes short_by_one{std::vector<unsigned char>(whole.b.begin(), whole.b.end() - 1)};
    CHECK(refusal(short_by_one) ==
          "m.gguf: truncated: its 34 bytes at data offset 64 lie outside the 97 bytes of tensor data (tensor \"q\")");
}

TEST_CASE("gguf: bad magic, versions and endianness are one line each") {
    FileBytes magic = every_type(3);
    magic.b[0] = 'X';
    CHECK(refusal(magic) == "m.gguf: not a GGUF file: it does not begin with \"GGUF\"");
    CHECK(refusal(every_type(1)) == "m.gguf: GGUF version 1 is not supported (attnviz reads versions 2 and 3) (the header)");
    CHECK(refusal(every_type(4)) == "m.gguf: GGUF version 4 is not supported (attnviz reads versions 2 and 3) (the header)");
    CHECK(refusal(every_type(0x03000000)) == "m.gguf: a big-endian GGUF file; attnviz reads little-endian ones (the header)");
}

TEST_CASE("gguf: huge counts and lengths are refused before anything is allocated") {
    CHECK(refusal(gguf_header(3, 1ull << 60, 0)) == "m.gguf: tensor count 1152921504606846976 cannot fit in the 8 bytes left (the header)");
    CHECK(refusal(gguf_header(3, 0, ~0ull)) == "m.gguf: metadata count 18446744073709551615 cannot fit in the 0 bytes left (the header)");
    FileBytes key = gguf_header(3, 0, 1);
    key.u64(~0ull).u64(0);
    CHECK(refusal(key) == "m.gguf: truncated: 18446744073709551615 bytes needed at byte 32, the file has 40 (metadata entry 0)");
    FileBytes array = gguf_header(3, 0, 1);
    array.key("k", ValueType::array).u32(8).u64(1ull << 62);
    CHECK(refusal(array) == "m.gguf: array item count 4611686018427387904 cannot fit in the 0 bytes left (metadata key \"k\")");
    FileBytes deep = gguf_header(3, 0, 1);
    deep.key("k", ValueType::array);
    for (int i = 0; i < 100; ++i) deep.u32(9).u64(1);
    CHECK(refusal(deep) == "m.gguf: arrays nested deeper than 8 (metadata key \"k\")");
}

TEST_CASE("gguf: bad values and tensors name the key or the tensor") {
    FileBytes type = gguf_header(3, 0, 1);
    type.key("k", static_cast<ValueType>(13)).u32(0);
    CHECK(refusal(type) == "m.gguf: unknown value type 13 (metadata key \"k\")");
    FileBytes twice = gguf_header(3, 0, 2);
    twice.key("k", ValueType::u8).raw(1, 1).key("k", ValueType::u8).raw(1, 1);
    CHECK(refusal(twice) == "m.gguf: a duplicate key (metadata key \"k\")");
    FileBytes align = gguf_header(3, 0, 1);
    align.key("general.alignment", ValueType::u32).u32(48);
    CHECK(refusal(align) == "m.gguf: alignment 48 is not a power of two (metadata key \"general.alignment\")");
    FileBytes unknown = gguf_header(3, 1, 0);
    unknown.str("t").u32(1).u64(4).u32(4).u64(0).pad(32).raw(0, 16);
    CHECK(refusal(unknown) == "m.gguf: unknown tensor type 4 (tensor \"t\")");
    FileBytes outside = gguf_header(3, 1, 0);
    outside.str("t").u32(1).u64(4).u32(0).u64(32).pad(32).raw(0, 16);
    CHECK(refusal(outside) == "m.gguf: truncated: its 16 bytes at data offset 32 lie outside the 16 bytes of tensor data (tensor \"t\")");
    FileBytes blocks = gguf_header(3, 1, 0);
    blocks.str("t").u32(1).u64(30).u32(8).u64(0);
    CHECK(refusal(blocks) == "m.gguf: a row of 30 values is not whole blocks of Q8_0 (tensor \"t\")");
    FileBytes dims = gguf_header(3, 1, 0);
    dims.str("t").u32(5).u64(0);
    CHECK(refusal(dims) == "m.gguf: 5 dimensions (1 to 4 expected) (tensor \"t\")");
    FileBytes big = gguf_header(3, 1, 0);
    big.str("t").u32(2).u64(1ull << 40).u64(1ull << 40);
    CHECK(refusal(big) == "m.gguf: its dimensions are too large (tensor \"t\")");
}

TEST_CASE("gguf: the typed getters name the file and the key when it is absent or of another type") {
    const File f = parse_bytes(every_type(3));
    const auto message = [&](auto get, const char* key) {
        try {
            get(f, key);
        } catch (const core::io::FileError& e) {
            return std::string(e.what());
        }
        return std::string("(read)");
    };
    CHECK(message(get_u64, "nope") == "m.gguf: metadata key \"nope\" is missing");
    CHECK(message(get_u64, "a.i8") == "m.gguf: metadata key \"a.i8\" is negative");
    CHECK(message(get_string, "a.u8") == "m.gguf: metadata key \"a.u8\" is u8, not a string");
    CHECK(message(get_strings, "a.ints") == "m.gguf: metadata key \"a.ints\" is array of i32, not an array of string");
    CHECK(message(get_f32s, "a.strings") == "m.gguf: metadata key \"a.strings\" is array of string, not an array of f32");
    CHECK(message(get_bool, "a.f32") == "m.gguf: metadata key \"a.f32\" is f32, not a bool");
    CHECK(message(find_u64, "a.string") == "(read)");
    CHECK(message(find_u64, "a.strings") == "m.gguf: metadata key \"a.strings\" is array of string, not an integer");
}
