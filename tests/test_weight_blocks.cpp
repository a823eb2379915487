// ggml's blocks dequantized (core/model/format/blocks.h) against each format's formula written here
// from its layout, and Weights::open_mapped's tensors: rows, row order and bad tables.
#include "core/io/tensor.h"
#include "core/model/format/blocks.h"
#include "core/model/format/weights.h"
#include "tests/fixture_files.h"

#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <random>
#include <vector>

namespace {

using core::model::WeightType;
using Bytes = std::vector<unsigned char>;

// Half-precision bits of a few scales exact in binary16: 0.375, 0.0625, −1.5, 0.25.
struct Half {
    std::uint16_t bits;
    float value;
};
constexpr Half d_half{0x3600, 0.375f}, dmin_half{0x2c00, 0.0625f}, neg_half{0xbe00, -1.5f}, quarter{0x3400, 0.25f};

void put16(Bytes& b, std::size_t at, std::uint16_t v) {
    b[at] = static_cast<unsigned char>(v & 0xff);
    b[at + 1] = static_cast<unsigned char>(v >> 8);
}

std::vector<float> dequantized(WeightType t, const Bytes& b) {
    const auto s = core::model::block_shape(t);
    const std::int64_t n = static_cast<std::int64_t>(b.size()) / s.bytes * s.values;
    std::vector<float> out(static_cast<std::size_t>(n));
    core::model::dequantize(t, b.data(), out.data(), n);
    return out;
}

// The K-quants' 12 bytes of eight 6-bit scales and mins, packed as ggml-common.h describes
// block_q4_K.scales: sub-blocks 0–3 in bytes 0–3 (scale) and 4–7 (min), low 6 bits; sub-blocks 4–7:
// scale low nibble and min high nibble in byte 8 + (j−4), their top two bits in bits 6–7 of byte
// j−4 (scale) and byte j (min).
Bytes pack_scales(const int scale[8], const int min[8]) {
    Bytes s(12, 0);
    for (int j = 0; j < 4; ++j) {
        s[static_cast<std::size_t>(j)] = static_cast<unsigned char>(scale[j] | ((scale[j + 4] >> 4) << 6));
        s[static_cast<std::size_t>(j + 4)] = static_cast<unsigned char>(min[j] | ((min[j + 4] >> 4) << 6));
        s[static_cast<std::size_t>(j + 8)] = static_cast<unsigned char>((scale[j + 4] & 15) | ((min[j + 4] & 15) << 4));
    }
    return s;
}

std::mt19937 block_rng(20260);
int uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(block_rng); }

// A block of 32 nibbles q (the first 16 counting up, the rest random) after d = neg_half, packed
// as Q4_0 and IQ4_NL pack them: byte j holds q[j] low and q[j + 16] high.
Bytes nibble_block(int (&q)[32]) {
    Bytes b(18);
    put16(b, 0, neg_half.bits);
    for (int j = 0; j < 32; ++j) q[j] = j < 16 ? j : uniform(0, 15);
    for (int j = 0; j < 16; ++j) b[static_cast<std::size_t>(2 + j)] = static_cast<unsigned char>(q[j] | (q[j + 16] << 4));
    return b;
}

} // namespace

TEST_CASE("weight blocks: shapes and ggml's names") {
    CHECK(core::model::block_shape(WeightType::q8_0).values == 32);
    CHECK(core::model::block_shape(WeightType::q8_0).bytes == 34);
    CHECK(core::model::block_shape(WeightType::q4_0).bytes == 18);
    CHECK(core::model::block_shape(WeightType::q4_K).bytes == 144);
    CHECK(core::model::block_shape(WeightType::q5_K).bytes == 176);
    CHECK(core::model::block_shape(WeightType::q6_K).values == 256);
    CHECK(core::model::block_shape(WeightType::q6_K).bytes == 210);
    CHECK(core::model::block_shape(WeightType::bf16).bytes == 2);
    CHECK(std::string(core::model::type_name(WeightType::q5_K)) == "Q5_K");
    const std::pair<WeightType, int> legacy[] = {{WeightType::q4_1, 20}, {WeightType::q5_0, 22}, {WeightType::q5_1, 24},
                                                 {WeightType::iq4_nl, 18}, {WeightType::mxfp4, 17}};
    for (const auto& [t, bytes] : legacy) CHECK(core::model::block_shape(t).values == 32);
    for (const auto& [t, bytes] : legacy) CHECK(core::model::block_shape(t).bytes == bytes);
    CHECK(core::model::block_shape(WeightType::q2_K).bytes == 84);
    CHECK(core::model::block_shape(WeightType::q3_K).bytes == 110);
    CHECK(core::model::block_shape(WeightType::iq4_xs).values == 256);
    CHECK(core::model::block_shape(WeightType::iq4_xs).bytes == 136);
    CHECK(std::string(core::model::type_name(WeightType::iq4_xs)) == "IQ4_XS");
    CHECK(std::string(core::model::type_name(WeightType::mxfp4)) == "MXFP4");
    CHECK(std::string(core::model::type_name(WeightType::bf16)) == "BF16");
}

TEST_CASE("weight blocks: F16 and BF16 values, subnormals, infinities and signed zero") {
    const std::vector<std::pair<std::uint16_t, float>> halves = {
        {0x3c00, 1.0f}, {0xc000, -2.0f}, {0x7bff, 65504.0f}, {0x0001, std::ldexp(1.0f, -24)}, {0x03ff, 1023 * std::ldexp(1.0f, -24)},
        {0x0400, std::ldexp(1.0f, -14)}, {0x7c00, INFINITY}, {0x3555, 1365.0f / 4096.0f}};
    Bytes b(halves.size() * 2 + 2);
    for (std::size_t i = 0; i < halves.size(); ++i) put16(b, 2 * i, halves[i].first);
    put16(b, halves.size() * 2, 0x8000);
    const std::vector<float> out = dequantized(WeightType::f16, b);
    for (std::size_t i = 0; i < halves.size(); ++i) CHECK(out[i] == halves[i].second);
    CHECK(std::signbit(out.back()));
    CHECK(out.back() == 0.0f);
    Bytes nan(2);
    put16(nan, 0, 0x7e00);
    CHECK(std::isnan(dequantized(WeightType::f16, nan)[0]));

    Bytes bf(4);
    put16(bf, 0, 0x3fc0); // 1.5
    put16(bf, 2, 0xc2f7); // −123.5
    const std::vector<float> wide = dequantized(WeightType::bf16, bf);
    CHECK(wide[0] == 1.5f);
    CHECK(wide[1] == -123.5f);
}

TEST_CASE("weight blocks: Q8_0 is d times each signed byte") {
    Bytes b(2 * 34);
    std::vector<int> q(64);
    for (std::size_t k = 0; k < 2; ++k) {
        put16(b, 34 * k, k == 0 ? d_half.bits : neg_half.bits);
        for (std::size_t j = 0; j < 32; ++j) {
            q[32 * k + j] = j == 0 ? -128 : j == 1 ? 127 : uniform(-128, 127);
            b[34 * k + 2 + j] = static_cast<unsigned char>(static_cast<std::int8_t>(q[32 * k + j]));
        }
    }
    const std::vector<float> out = dequantized(WeightType::q8_0, b);
    for (std::size_t i = 0; i < 64; ++i) CHECK(out[i] == static_cast<float>(q[i]) * (i < 32 ? d_half.value : neg_half.value));
}

TEST_CASE("weight blocks: Q4_0 is d times (nibble − 8), low nibbles first") {
    int q[32];
    const Bytes b = nibble_block(q);
    const std::vector<float> out = dequantized(WeightType::q4_0, b);
    for (int i = 0; i < 32; ++i) CHECK(out[static_cast<std::size_t>(i)] == static_cast<float>(q[i] - 8) * neg_half.value);
}

TEST_CASE("weight blocks: Q4_K and Q5_K are d·scale·q − dmin·min per 32 values, with 6-bit scales and Q5_K's fifth bit") {
    for (const WeightType t : {WeightType::q4_K, WeightType::q5_K}) {
        CAPTURE(core::model::type_name(t));
        const bool five = t == WeightType::q5_K;
        Bytes b(static_cast<std::size_t>(core::model::block_shape(t).bytes));
        put16(b, 0, d_half.bits);
        put16(b, 2, dmin_half.bits);
        const int scale[8] = {63, 1, 17, 32, 48, 5, 63, 33}, min[8] = {0, 63, 31, 16, 47, 62, 2, 40};
        const Bytes s = pack_scales(scale, min);
        std::copy(s.begin(), s.end(), b.begin() + 4);
        std::vector<int> q(256);
        for (int& v : q) v = uniform(0, five ? 31 : 15);
        // Values 64i … 64i+31 are the low nibbles of bytes 32i … 32i+31 of qs, 64i+32 … the high
        // nibbles of the same bytes; Q5_K's bit 4 of value 64i + 32h + l is bit 2i + h of qh[l].
        const std::size_t qh = 16, qs = five ? 48 : 16;
        for (int i = 0; i < 4; ++i)
            for (int l = 0; l < 32; ++l) {
                const int lo = q[static_cast<std::size_t>(64 * i + l)], hi = q[static_cast<std::size_t>(64 * i + 32 + l)];
                b[qs + static_cast<std::size_t>(32 * i + l)] = static_cast<unsigned char>((lo & 15) | ((hi & 15) << 4));
                if (five) b[qh + static_cast<std::size_t>(l)] |= static_cast<unsigned char>(((lo >> 4) << (2 * i)) | ((hi >> 4) << (2 * i + 1)));
            }
        const std::vector<float> out = dequantized(t, b);
        for (int v = 0; v < 256; ++v) {
            const int sub = v / 32;
            const double want = double{d_half.value} * scale[sub] * q[static_cast<std::size_t>(v)] - double{dmin_half.value} * min[sub];
            CHECK(out[static_cast<std::size_t>(v)] == static_cast<float>(want));
        }
    }
}

TEST_CASE("weight blocks: Q6_K is d·scale·(q − 32) per 16 values, 4 low bits in ql and 2 high bits in qh") {
    Bytes b(210);
    std::vector<int> q(256), scale(16);
    for (int& v : q) v = uniform(0, 63);
    q[0] = 0;
    q[255] = 63;
    for (int& s : scale) s = uniform(-128, 127);
    // Per 128 values (n = 0, 1): value 128n + 32r + l has its low nibble in ql[64n + l + 32(r mod 2)]
    // (low half for r < 2, high half for r ≥ 2) and its top two bits at bits 2r of qh[32n + l].
    for (int n = 0; n < 2; ++n)
        for (int r = 0; r < 4; ++r)
            for (int l = 0; l < 32; ++l) {
                const int v = q[static_cast<std::size_t>(128 * n + 32 * r + l)];
                b[static_cast<std::size_t>(64 * n + l + 32 * (r % 2))] |= static_cast<unsigned char>((v & 15) << (r >= 2 ? 4 : 0));
                b[static_cast<std::size_t>(128 + 32 * n + l)] |= static_cast<unsigned char>((v >> 4) << (2 * r));
            }
    for (int s = 0; s < 16; ++s) b[static_cast<std::size_t>(192 + s)] = static_cast<unsigned char>(static_cast<std::int8_t>(scale[static_cast<std::size_t>(s)]));
    put16(b, 208, quarter.bits);
    const std::vector<float> out = dequantized(WeightType::q6_K, b);
    for (int v = 0; v < 256; ++v) {
        const double want = double{quarter.value} * scale[static_cast<std::size_t>(v / 16)] * (q[static_cast<std::size_t>(v)] - 32);
        CHECK(out[static_cast<std::size_t>(v)] == static_cast<float>(want));
    }
}

TEST_CASE("weight blocks: Q4_1 and Q5_1 are q·d + m, Q5_0 is (q − 16)·d, the fifth bit of value j at bit j of qh") {
    for (const WeightType t : {WeightType::q4_1, WeightType::q5_0, WeightType::q5_1}) {
        CAPTURE(core::model::type_name(t));
        const bool five = t != WeightType::q4_1, with_min = t != WeightType::q5_0;
        Bytes b(static_cast<std::size_t>(core::model::block_shape(t).bytes));
        put16(b, 0, neg_half.bits);
        if (with_min) put16(b, 2, dmin_half.bits);
        const std::size_t qh = with_min ? 4 : 2, qs = qh + (five ? 4 : 0);
        int q[32];
        for (int j = 0; j < 32; ++j) q[j] = j == 0 ? 0 : j == 31 ? (five ? 31 : 15) : uniform(0, five ? 31 : 15);
        for (int j = 0; j < 16; ++j) b[qs + static_cast<std::size_t>(j)] = static_cast<unsigned char>((q[j] & 15) | ((q[j + 16] & 15) << 4));
        if (five)
            for (int j = 0; j < 32; ++j) b[qh + static_cast<std::size_t>(j / 8)] |= static_cast<unsigned char>((q[j] >> 4) << (j % 8));
        const std::vector<float> out = dequantized(t, b);
        for (int i = 0; i < 32; ++i) {
            const float want = with_min ? static_cast<float>(q[i]) * neg_half.value + dmin_half.value : static_cast<float>(q[i] - 16) * neg_half.value;
            CHECK(out[static_cast<std::size_t>(i)] == want);
        }
    }
}

TEST_CASE("weight blocks: Q2_K is (d·scale)·q − dmin·min per 16 values, 2 bits per value, 4-bit scales and mins") {
    Bytes b(84);
    std::vector<int> q(256), scale(16), min(16);
    for (int& v : q) v = uniform(0, 3);
    for (int s = 0; s < 16; ++s) {
        scale[static_cast<std::size_t>(s)] = uniform(0, 15);
        min[static_cast<std::size_t>(s)] = uniform(0, 15);
        b[static_cast<std::size_t>(s)] = static_cast<unsigned char>(scale[static_cast<std::size_t>(s)] | (min[static_cast<std::size_t>(s)] << 4));
    }
    // Value 128n + 32r + l (l < 32) in bits 2r, 2r+1 of qs[32n + l]; sub-block (value / 16).
    for (int v = 0; v < 256; ++v) b[static_cast<std::size_t>(16 + 32 * (v / 128) + v % 32)] |= static_cast<unsigned char>(q[static_cast<std::size_t>(v)] << (2 * (v % 128 / 32)));
    put16(b, 80, d_half.bits);
    put16(b, 82, dmin_half.bits);
    const std::vector<float> out = dequantized(WeightType::q2_K, b);
    for (int v = 0; v < 256; ++v) {
        const auto s = static_cast<std::size_t>(v / 16);
        const float want = d_half.value * static_cast<float>(scale[s]) * static_cast<float>(q[static_cast<std::size_t>(v)]) - dmin_half.value * static_cast<float>(min[s]);
        CHECK(out[static_cast<std::size_t>(v)] == want);
    }
}

TEST_CASE("weight blocks: Q3_K is (d·(scale − 32))·(q − 4), a set bit of hmask taking the 4 back, 6-bit scales in 12 bytes") {
    Bytes b(110);
    std::vector<int> q(256), scale(16);
    for (int& v : q) v = uniform(0, 7);
    for (int& s : scale) s = uniform(0, 63);
    scale[0] = 0;
    scale[15] = 63;
    for (int v = 0; v < 256; ++v) {
        // Low 2 bits as Q2_K's; the third bit at bit (v / 32) of hmask[v mod 32].
        b[static_cast<std::size_t>(32 + 32 * (v / 128) + v % 32)] |= static_cast<unsigned char>((q[static_cast<std::size_t>(v)] & 3) << (2 * (v % 128 / 32)));
        b[static_cast<std::size_t>(v % 32)] |= static_cast<unsigned char>((q[static_cast<std::size_t>(v)] >> 2) << (v / 32));
    }
    // Scale j: low nibble in byte j (j < 8) or the high nibble of byte j − 8; top 2 bits at bits
    // 2·(j / 4) of byte 8 + j mod 4.
    for (int j = 0; j < 16; ++j) {
        const int s = scale[static_cast<std::size_t>(j)];
        b[static_cast<std::size_t>(96 + j % 8)] |= static_cast<unsigned char>((s & 15) << (j < 8 ? 0 : 4));
        b[static_cast<std::size_t>(96 + 8 + j % 4)] |= static_cast<unsigned char>((s >> 4) << (2 * (j / 4)));
    }
    put16(b, 108, quarter.bits);
    const std::vector<float> out = dequantized(WeightType::q3_K, b);
    for (int v = 0; v < 256; ++v) {
        const float dl = quarter.value * static_cast<float>(scale[static_cast<std::size_t>(v / 16)] - 32);
        CHECK(out[static_cast<std::size_t>(v)] == dl * static_cast<float>(q[static_cast<std::size_t>(v)] - 4));
    }
}

namespace {

// ggml's non-linear 4-bit levels (ggml-common.h's kvalues_iq4nl).
constexpr int iq4_level[16] = {-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113};

} // namespace

TEST_CASE("weight blocks: IQ4_NL is d·level, IQ4_XS (d·(scale − 32))·level per 32 values, of 16 non-linear levels") {
    int q[32];
    const Bytes nl = nibble_block(q);
    const std::vector<float> out = dequantized(WeightType::iq4_nl, nl);
    for (int i = 0; i < 32; ++i) CHECK(out[static_cast<std::size_t>(i)] == neg_half.value * static_cast<float>(iq4_level[q[i]]));

    Bytes xs(136);
    put16(xs, 0, quarter.bits);
    const int scale[8] = {0, 63, 32, 17, 48, 5, 40, 33};
    std::uint16_t high = 0;
    for (int i = 0; i < 8; ++i) {
        xs[static_cast<std::size_t>(4 + i / 2)] |= static_cast<unsigned char>((scale[i] & 15) << (4 * (i % 2)));
        high = static_cast<std::uint16_t>(high | ((scale[i] >> 4) << (2 * i)));
    }
    put16(xs, 2, high);
    std::vector<int> v(256);
    for (int& x : v) x = uniform(0, 15);
    for (int i = 0; i < 8; ++i)
        for (int j = 0; j < 16; ++j)
            xs[static_cast<std::size_t>(8 + 16 * i + j)] = static_cast<unsigned char>(v[static_cast<std::size_t>(32 * i + j)] | (v[static_cast<std::size_t>(32 * i + 16 + j)] << 4));
    const std::vector<float> wide = dequantized(WeightType::iq4_xs, xs);
    for (int k = 0; k < 256; ++k) {
        const float dl = quarter.value * static_cast<float>(scale[k / 32] - 32);
        CHECK(wide[static_cast<std::size_t>(k)] == dl * static_cast<float>(iq4_level[v[static_cast<std::size_t>(k)]]));
    }
}

TEST_CASE("weight blocks: MXFP4 is an E2M1 value times 2^(e − 127), low nibbles first, at every exponent") {
    // E2M1: sign bit 3, then exponent bits 1–2 and mantissa bit 0: 0, 0.5, 1, 1.5, 2, 3, 4, 6.
    const float e2m1[8] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};
    for (const int e : {0, 1, 2, 100, 127, 130, 254}) {
        CAPTURE(e);
        Bytes b(17);
        b[0] = static_cast<unsigned char>(e);
        int q[32];
        for (int j = 0; j < 32; ++j) q[j] = j < 16 ? j : uniform(0, 15);
        for (int j = 0; j < 16; ++j) b[static_cast<std::size_t>(1 + j)] = static_cast<unsigned char>(q[j] | (q[j + 16] << 4));
        const std::vector<float> out = dequantized(WeightType::mxfp4, b);
        for (int i = 0; i < 32; ++i) {
            const float magnitude = static_cast<float>(std::ldexp(double{e2m1[q[i] & 7]}, e - 127));
            CHECK(out[static_cast<std::size_t>(i)] == (q[i] & 8 ? -magnitude : magnitude));
        }
    }
}

namespace {

// A file of `bytes`, mapped with the table `table`; the error message, or "" when it opens.
std::string open_error(const Bytes& bytes, const std::vector<core::model::MappedTensor>& table,
                       std::shared_ptr<core::model::Weights>* out = nullptr) {
    const std::string file = fixtures::temp_dir() + "/w.bin";
    std::ofstream(file, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    try {
        auto w = core::model::Weights::open_mapped(file, [&](const unsigned char*, std::size_t size) {
            REQUIRE(size == bytes.size());
            return table;
        });
        if (out) *out = w;
    } catch (const core::io::FileError& e) {
        const std::string what = e.what();
        return what.substr(what.find(": ") + 2);
    }
    return "";
}

} // namespace

TEST_CASE("weights open_mapped: rows in their type and row order — a tensor past the end, in broken blocks or a bad order is one line") {
    // A (3, 32) Q8_0 tensor at offset 4, rows stored in the order 2, 0, 1, and a (2) F16 one after it.
    Bytes bytes(4 + 3 * 34 + 4);
    for (int r = 0; r < 3; ++r) {
        put16(bytes, static_cast<std::size_t>(4 + 34 * r), quarter.bits);
        for (int j = 0; j < 32; ++j) bytes[static_cast<std::size_t>(4 + 34 * r + 2 + j)] = static_cast<unsigned char>(r * 10 + j);
    }
    put16(bytes, 4 + 3 * 34, 0x3c00);
    put16(bytes, 4 + 3 * 34 + 2, 0xc000);
    const core::model::MappedTensor q{"q", {3, 32}, WeightType::q8_0, 4, {2, 0, 1}}, h{"h", {2}, WeightType::f16, 4 + 3 * 34, {}};
    std::shared_ptr<core::model::Weights> w;
    REQUIRE(open_error(bytes, {q, h}, &w) == "");
    CHECK(w->file_bytes() == bytes.size());
    const auto& t = w->require("q", {3, 32});
    CHECK(t.type() == WeightType::q8_0);
    CHECK(t.row_values() == 32);
    std::vector<float> rows(64);
    t.rows(1, 2, rows.data()); // rows 1 and 2: stored rows 0 and 1
    for (int j = 0; j < 32; ++j) {
        CHECK(rows[static_cast<std::size_t>(j)] == 0.25f * static_cast<float>(j));
        CHECK(rows[static_cast<std::size_t>(32 + j)] == 0.25f * static_cast<float>(10 + j));
    }
    t.rows(0, 1, rows.data()); // stored row 2
    CHECK(rows[5] == 0.25f * (20 + 5));
    CHECK_THROWS_AS(t.data(), std::logic_error); // a matrix is read by rows, never converted whole
    const float* half = w->require("h", {2}).data();
    CHECK(half[0] == 1.0f);
    CHECK(half[1] == -2.0f);

    CHECK(open_error(bytes, {{"q", {4, 32}, WeightType::q8_0, 4, {}}}) == "tensor \"q\" lies past the file's end (4 + 136 bytes; the file has 110)");
    CHECK(open_error(bytes, {{"q", {2, 48}, WeightType::q8_0, 4, {}}}) ==
          "tensor \"q\" of type Q8_0 has shape (2, 48): its rows of 48 values are not whole blocks of 32");
    CHECK(open_error(bytes, {{"q", {3, 32}, WeightType::q8_0, 4, {0, 0, 1}}}) == "tensor \"q\"'s row order is not a permutation of its rows");
    CHECK(open_error(bytes, {{"q", {3, 32}, WeightType::q8_0, 4, {0, 1}}}) == "tensor \"q\"'s row order does not have one entry per row");
    CHECK(open_error(bytes, {h, h}) == "tensor \"h\" appears twice");
    CHECK(open_error(bytes, {{"z", {2, 0}, WeightType::f32, 0, {}}}) == "tensor \"z\" has shape (2, 0), empty or too large");
    CHECK_THROWS_WITH_AS(w->require("q", {32, 3}), doctest::Contains("tensor \"q\" has shape (3, 32), the config needs (32, 3)"), core::io::FileError);
}
