// Tensor files: every fixture NumPy (or the safetensors writer of make_fixtures.py) wrote reads as
// NumPy says; our writers give bit-equal round trips; bad files are refused with the file's name.
#include "core/io/delimited.h"
#include "core/io/npy.h"
#include "core/io/npz.h"
#include "core/io/safetensors.h"
#include "tests/array_files.h"
#include "tests/fixture_files.h"
#include "tests/thrown.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstring>

using namespace core::io;
using nlohmann::json;

namespace {

const json& expected() {
    static const json e = json::parse(fixtures::read(fixtures::path("expected.json")));
    return e;
}

void check_matches(const Tensor& t, const json& want, const std::string& what) {
    INFO(what);
    CHECK(t.shape == want["shape"].get<std::vector<std::int64_t>>());
    const std::string dtype = want["dtype"];
    const std::map<std::string, std::string> safetensors_names = {
        {"F64", "float64"}, {"F32", "float32"}, {"F16", "float16"}, {"BF16", "bfloat16"}, {"I64", "int64"}, {"I32", "int32"},
        {"I16", "int16"}, {"I8", "int8"}, {"U8", "uint8"}, {"BOOL", "bool"}};
    CHECK(dtype_name(t.dtype) == (safetensors_names.count(dtype) ? safetensors_names.at(dtype) : dtype));
    const auto values = want["values"].get<std::vector<double>>();
    REQUIRE(t.values.size() == values.size());
    for (std::size_t i = 0; i < values.size(); ++i) CHECK(t.values[i] == values[i]); // exact: NumPy's own doubles
}

std::string tensor_error(void (*f)(const std::string&), const std::string& file) { return thrown<FileError>([&] { f(file); }); }

// Each fixture in `dir` is refused by `read` with a message that starts with its path and says `what`.
void check_refused(void (*read)(const std::string&), const std::string& dir,
                   const std::vector<std::pair<std::string, std::string>>& files) {
    for (const auto& [name, what] : files) {
        const std::string file = fixtures::path(dir + "/" + name);
        const std::string e = tensor_error(read, file);
        INFO(e);
        CHECK(e.rfind(file + ": ", 0) == 0);
        CHECK(e.find(what) != std::string::npos);
    }
}

bool same_tensor_bits(const Tensor& a, const Tensor& b) {
    return a.shape == b.shape && a.dtype == b.dtype && a.values.size() == b.values.size() &&
           (a.values.empty() || std::memcmp(a.values.data(), b.values.data(), a.values.size() * sizeof(double)) == 0);
}

} // namespace

TEST_CASE("every .npy fixture reads as NumPy wrote it: each dtype, byte order, memory order, header version") {
    int files = 0;
    for (const auto& [rel, want] : expected().items()) {
        if (rel.rfind("npy/", 0) != 0) continue;
        check_matches(read_npy(fixtures::path(rel)), want, rel);
        ++files;
    }
    CHECK(files == 48); // all that make_fixtures.py writes
}

TEST_CASE("our .npy bytes are NumPy's for little-endian C-order arrays") {
    for (const auto& [rel, want] : expected().items()) {
        const bool little_c = rel.rfind("npy/", 0) == 0 && (rel.find("_le_C") != std::string::npos || rel.find("_1_C") != std::string::npos ||
                                                             rel == "npy/scalar.npy" || rel == "npy/vector.npy" || rel == "npy/empty.npy");
        if (!little_c) continue;
        const std::string& name = rel; // INFO cannot name a structured binding under clang
        INFO(name);
        const std::string file = fixtures::path(rel);
        CHECK(npy_bytes(read_npy(file), file) == fixtures::read(file));
    }
}

TEST_CASE(".npz from np.savez and np.savez_compressed") {
    for (const char* rel : {"npz/savez.npz", "npz/savez_compressed.npz"}) {
        const TensorFile f = read_npz(fixtures::path(rel));
        CHECK(f.tensors.size() == 3);
        for (const char* key : {"x", "W_Q", "tokens_count"}) {
            REQUIRE(f.tensors.count(key) == 1);
            check_matches(f.tensors.at(key), expected()[std::string(rel) + ":" + key], std::string(rel) + ":" + key);
        }
    }
}

TEST_CASE(".safetensors with every dtype and __metadata__") {
    const std::string rel = "safetensors/all_dtypes.safetensors";
    const TensorFile f = read_safetensors(fixtures::path(rel));
    int tensors = 0;
    for (const auto& [key, want] : expected().items()) {
        if (key.rfind(rel + ":", 0) != 0 || key == rel + ":__metadata__") continue;
        const std::string name = key.substr(rel.size() + 1);
        REQUIRE(f.tensors.count(name) == 1);
        check_matches(f.tensors.at(name), want, key);
        ++tensors;
    }
    CHECK(tensors == 11);
    CHECK(f.metadata == expected()[rel + ":__metadata__"].get<std::map<std::string, std::string>>());

    const std::string text = fixtures::read(fixtures::path(rel));
    const SafetensorsHeader h = parse_safetensors_header(text.data(), text.size(), rel);
    REQUIRE(h.entries.size() == 11);
    for (std::size_t i = 0; i < h.entries.size(); ++i) {
        CHECK(h.entries[i].begin >= h.data_offset);
        if (i) CHECK(h.entries[i].begin == h.entries[i - 1].end); // the script packs them in order
    }
    CHECK(h.entries.back().end == text.size());
}

TEST_CASE("round trips through our writers are bit-equal") {
    const std::string dir = fixtures::temp_dir();
    TensorFile all;
    for (const auto& [rel, want] : expected().items()) {
        if (rel.rfind("npy/", 0) != 0) continue;
        const Tensor t = read_npy(fixtures::path(rel));
        fixtures::write_npy(dir + "/t.npy", t);
        const std::string& name = rel; // CHECK_MESSAGE cannot name a structured binding under clang
        CHECK_MESSAGE(same_tensor_bits(read_npy(dir + "/t.npy"), t), name);
        std::string key = rel.substr(4, rel.size() - 8);
        all.tensors[key] = t;
    }
    for (bool compressed : {false, true}) {
        fixtures::write_npz(dir + "/all.npz", all, compressed);
        const TensorFile back = read_npz(dir + "/all.npz");
        REQUIRE(back.tensors.size() == all.tensors.size());
        for (const auto& entry : all.tensors) CHECK_MESSAGE(same_tensor_bits(back.tensors.at(entry.first), entry.second), entry.first);
    }
    const TensorFile st = read_safetensors(fixtures::path("safetensors/all_dtypes.safetensors"));
    write_safetensors(dir + "/st.safetensors", st);
    const TensorFile st_back = read_safetensors(dir + "/st.safetensors");
    CHECK(st_back.metadata == st.metadata);
    for (const auto& entry : st.tensors) CHECK_MESSAGE(same_tensor_bits(st_back.tensors.at(entry.first), entry.second), entry.first);
    CHECK(safetensors_bytes(st_back, "x") == fixtures::read(dir + "/st.safetensors"));
    for (const char* f : {"/t.npy", "/all.npz", "/st.safetensors"}) std::remove((dir + f).c_str());
    ::rmdir(dir.c_str());
}

TEST_CASE("float16 and bfloat16: exact values, rounding to nearest even, overflow refused") {
    auto half_of = [](double v) {
        const std::string b = encode_values({v}, DType::f16, "h");
        return static_cast<std::uint16_t>(static_cast<unsigned char>(b[0]) | static_cast<unsigned char>(b[1]) << 8);
    };
    CHECK(half_of(1.0) == 0x3c00);
    CHECK(half_of(-2.0) == 0xc000);
    CHECK(half_of(65504.0) == 0x7bff);
    CHECK(half_of(std::ldexp(1.0, -24)) == 0x0001);          // the smallest subnormal
    CHECK(half_of(std::ldexp(1.0, -25)) == 0x0000);          // half of it: a tie, to even (zero)
    CHECK(half_of(1.0 + std::ldexp(1.0, -11)) == 0x3c00);    // tie between 1 and 1 + 2^-10: to even
    CHECK(half_of(1.0 + 3 * std::ldexp(1.0, -11)) == 0x3c02); // tie: to even, upwards
    CHECK(half_of(1.0 / 3.0) == 0x3555);
    CHECK(half_of(std::ldexp(1.0, -14) * (1 - std::ldexp(1.0, -12))) == 0x0400); // rounds up into the normals
    CHECK(half_to_double(0x7bff) == 65504.0);
    CHECK(half_to_double(0x0001) == std::ldexp(1.0, -24));
    CHECK(bfloat16_to_double(0x3fc0) == 1.5);
    CHECK_THROWS_AS(encode_values({65520.0}, DType::f16, "h"), FileError);
    CHECK_THROWS_AS(encode_values({1e39}, DType::f32, "h"), FileError);
    CHECK_THROWS_AS(encode_values({0.5}, DType::i32, "h"), FileError);
    CHECK_THROWS_AS(encode_values({256}, DType::u8, "h"), FileError);
    CHECK_THROWS_AS(encode_values({2}, DType::boolean, "h"), FileError);
    CHECK(encode_values({-128}, DType::i8, "h") == "\x80");
}

TEST_CASE("bad tensor files are refused with the file's name and what is wrong") {
    check_refused([](const std::string& p) { read_npy(p); }, "npy", {
        {"bad_complex.npy", "complex numbers) is not supported"},
        {"bad_object.npy", "Python objects) is not supported"},
        {"bad_string.npy", "strings) is not supported"},
        {"bad_structured.npy", "structured array"},
        {"bad_nan.npy", "element [1, 0] is NaN"},
        {"bad_inf.npy", "element [0, 1] is infinite"},
        {"bad_truncated.npy", "truncated"},
        {"bad_corrupt_header.npy", "corrupt .npy header"},
    });
    check_refused([](const std::string& p) { read_safetensors(p); }, "safetensors", {
        {"bad_truncated.safetensors", "truncated"},
        {"bad_f8.safetensors", "dtype \"F8_E4M3\" (8-bit floats), not supported"},
        {"bad_complex.safetensors", "dtype \"C64\", not supported"},
        {"bad_overlap.safetensors", "overlap"},
        {"bad_json.safetensors", "invalid JSON"},
        {"bad_nan.safetensors", "tensor \"a\": element [1] is NaN"},
    });
    const std::string complex_npz = fixtures::path("npz/bad_complex.npz");
    CHECK(tensor_error([](const std::string& p) { read_npz(p); }, complex_npz).find("member \"z.npy\": dtype '<c16' (complex") != std::string::npos);
    CHECK(tensor_error([](const std::string& p) { read_npz(p); }, fixtures::path("npz/bad_truncated.npz")).find("truncated") != std::string::npos);
    CHECK(tensor_error([](const std::string& p) { read_npy(p); }, "/nonexistent/a.npy") == "/nonexistent/a.npy: cannot open: No such file or directory");
}

TEST_CASE("a shape past the limits is refused before anything is allocated") {
    std::string header = "{'descr': '<f8', 'fortran_order': False, 'shape': (100000, 100000), }";
    header.append(118 - header.size(), ' ');
    header += '\n';
    const std::string file = std::string("\x93NUMPY\x01\x00", 8) + char(header.size() & 0xff) + char(header.size() >> 8) + header;
    CHECK_THROWS_WITH(parse_npy(file.data(), file.size(), "big.npy"),
                      doctest::Contains("big.npy: truncated .npy file (shape (100000, 100000) of float64 needs 80000000000 bytes"));
    std::string deep = "{'descr': '<f8', 'fortran_order': False, 'shape': (1,1,1,1,1,1,1,1,1), }\n";
    const std::string deep_file = std::string("\x93NUMPY\x01\x00", 8) + char(deep.size()) + char(0) + deep + std::string(8, '\0');
    CHECK_THROWS_WITH(parse_npy(deep_file.data(), deep_file.size(), "deep.npy"), doctest::Contains("9 dimensions, more than the limit of 8"));
}

TEST_CASE("NumPy reads the files our writers write") {
    const std::string python = fixtures::numpy_python();
    if (python.empty()) {
        MESSAGE("python3 with numpy is not installed: skipped");
        return;
    }
    const std::string dir = fixtures::temp_dir();
    Tensor t;
    t.shape = {2, 3};
    t.values = {0.1, -2.5, 1e-300, 3, 4.25, -0.0};
    fixtures::write_npy(dir + "/a.npy", t);
    TensorFile f;
    f.tensors["x"] = t;
    Tensor h = t;
    h.dtype = DType::f16;
    h.values = {0.5, -2.5, 65504, 3, 4.25, -0.0};
    f.tensors["h"] = h;
    fixtures::write_npz(dir + "/b.npz", f, true);
    const std::string out = fixtures::run_python(python,
        "import numpy as np\n"
        "a = np.load('" + dir + "/a.npy')\n"
        "b = np.load('" + dir + "/b.npz')\n"
        "print(a.dtype, a.shape, repr(a.tolist()))\n"
        "print(sorted(b.files), b['h'].dtype, b['h'].tolist(), (b['x'] == a).all())\n");
    CHECK(out == "float64 (2, 3) [[0.1, -2.5, 1e-300], [3.0, 4.25, -0.0]]\n"
                 "['h', 'x'] float16 [[0.5, -2.5, 65504.0], [3.0, 4.25, -0.0]] True\n");
    for (const char* name : {"/a.npy", "/b.npz"}) std::remove((dir + name).c_str());
    ::rmdir(dir.c_str());
}

TEST_CASE(".csv and .tsv: optional header row, optional column of token names, clear errors") {
    SUBCASE("numbers only") {
        const Table t = parse_delimited("1,2\n3,-4.5\n", ',', "a.csv");
        CHECK(t.column_names.empty());
        CHECK(t.row_names.empty());
        CHECK(t.values.shape == std::vector<std::int64_t>{2, 2});
        CHECK(t.values.values == std::vector<double>{1, 2, 3, -4.5});
    }
    SUBCASE("header and token names, quoted, CRLF") {
        const Table t = parse_delimited("token,\"d,1\",d2\r\nthe,1,0\r\n\"cat \"\"x\"\"\",0,1e-3\r\n", ',', "a.csv");
        CHECK(t.column_names == std::vector<std::string>{"d,1", "d2"});
        CHECK(t.row_names == std::vector<std::string>{"the", "cat \"x\""});
        CHECK(t.values.values == std::vector<double>{1, 0, 0, 1e-3});
    }
    SUBCASE("names without a header; a header without names; tabs") {
        CHECK(parse_delimited("the\t1\t2\ncat\t3\t4\n", '\t', "a.tsv").row_names == std::vector<std::string>{"the", "cat"});
        const Table t = parse_delimited("a\tb\n1\t2\n", '\t', "a.tsv");
        CHECK(t.column_names == std::vector<std::string>{"a", "b"});
        CHECK(t.row_names.empty());
        CHECK(t.values.values == std::vector<double>{1, 2});
    }
    SUBCASE("errors name the line and column") {
        CHECK_THROWS_WITH(parse_delimited("1,2\n3\n", ',', "a.csv"), "a.csv: line 2 has 1 fields, line 1 has 2");
        CHECK_THROWS_WITH(parse_delimited("1,2\n3,nan\n", ',', "a.csv"), "a.csv: line 2, column 2: NaN; every value must be a finite number");
        CHECK_THROWS_WITH(parse_delimited("1,2\n3,1e400\n", ',', "a.csv"), "a.csv: line 2, column 2: 1e400 is too large for a double");
        CHECK_THROWS_WITH(parse_delimited("1,2\n3,-inf\n", ',', "a.csv"), "a.csv: line 2, column 2: -inf is infinite");
        CHECK_THROWS_WITH(parse_delimited("x,y\n1,2\n3,z\n", ',', "a.csv"), "a.csv: line 3, column 2: \"z\" is not a number");
        CHECK_THROWS_WITH(parse_delimited("\n\n", ',', "a.csv"), "a.csv: the file holds no numbers");
        CHECK_THROWS_WITH(parse_delimited("\"open,1\n", ',', "a.csv"), "a.csv: line 1: a quote is not closed");
    }
}

TEST_CASE("64-bit integer extremes survive a round trip through doubles") {
    Tensor t;
    t.shape = {2};
    t.dtype = DType::u64;
    t.values = {0, 18446744073709551615.0}; // the maximum, which a double rounds up to 2^64
    const std::string bytes = npy_bytes(t, "u.npy");
    CHECK(bytes.substr(bytes.size() - 8) == std::string(8, '\xff'));
    CHECK(same_tensor_bits(parse_npy(bytes.data(), bytes.size(), "u.npy"), t));
    t.dtype = DType::i64;
    t.values = {-9223372036854775808.0, 9223372036854775807.0};
    const std::string i = npy_bytes(t, "i.npy");
    CHECK(i.substr(i.size() - 8) == std::string("\xff\xff\xff\xff\xff\xff\xff\x7f", 8));
}
