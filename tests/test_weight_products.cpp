// Products with weights in their stored type (core/model/weight_product.h) against a product in
// double of the same weights read as float32, and forwards on 16-bit checkpoints against their F32
// copies (tests/fixtures/make_checkpoints.py writes both).
#include "core/kernels.h"
#include "core/model/format/checkpoint.h"
#include "core/model/format/weights.h"
#include "core/model/weight_product.h"
#include "tests/checkpoint_fixtures.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace {

using core::model::Layout;
using core::model::WeightType;
using RawBytes = std::vector<unsigned char>;

// Random blocks of type t for `values` values: random payload bytes, and each block's f16 scales
// set to small normal numbers (never NaN or infinity).
RawBytes random_blocks(WeightType t, std::int64_t values, std::mt19937& rng) {
    const auto s = core::model::block_shape(t);
    RawBytes b(static_cast<std::size_t>(values / s.values * s.bytes));
    for (auto& byte : b) byte = static_cast<unsigned char>(rng() & 0xff);
    auto half = [&](std::size_t at) { // sign, exponent 10 … 13 (2⁻⁵ … 2⁻²), any mantissa
        const auto h = static_cast<std::uint16_t>((rng() & 0x83ffu) | ((10u + rng() % 4) << 10));
        b[at] = static_cast<unsigned char>(h & 0xff);
        b[at + 1] = static_cast<unsigned char>(h >> 8);
    };
    for (std::size_t at = 0; at < b.size(); at += static_cast<std::size_t>(s.bytes)) {
        if (t == WeightType::f16 || t == WeightType::q8_0 || t == WeightType::q4_0 || t == WeightType::q5_0 || t == WeightType::iq4_nl ||
            t == WeightType::iq4_xs)
            half(at);
        if (t == WeightType::bf16) b[at + 1] = static_cast<unsigned char>(0x3c + rng() % 4 + (rng() & 0x80)); // |v| in 2⁻⁷ … 2⁻⁴·2
        if (t == WeightType::q4_K || t == WeightType::q5_K || t == WeightType::q4_1 || t == WeightType::q5_1) { half(at); half(at + 2); }
        if (t == WeightType::q6_K) half(at + 208);
        if (t == WeightType::q2_K) { half(at + 80); half(at + 82); }
        if (t == WeightType::q3_K) half(at + 108);
        if (t == WeightType::mxfp4) b[at] = static_cast<unsigned char>(120 + rng() % 8); // scales 2⁻⁸ … 2⁻¹
        if (t == WeightType::f32) {
            const float v = std::uniform_real_distribution<float>(-1, 1)(rng);
            std::memcpy(&b[at], &v, 4);
        }
    }
    return b;
}

struct Mapped {
    std::shared_ptr<core::model::Weights> weights;
    const core::model::Weights::Tensor* W;
};

// A (rows, cols) tensor of type t, stored in reverse row order, in a mapped file.
Mapped mapped(WeightType t, std::int64_t rows, std::int64_t cols, std::mt19937& rng) {
    const RawBytes b = random_blocks(t, rows * cols, rng);
    const std::string file = fixtures::temp_dir() + "/w.bin";
    std::ofstream(file, std::ios::binary).write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
    std::vector<std::int32_t> order(static_cast<std::size_t>(rows));
    for (std::int64_t r = 0; r < rows; ++r) order[static_cast<std::size_t>(r)] = static_cast<std::int32_t>(rows - 1 - r);
    auto w = core::model::Weights::open_mapped(file, [&](const unsigned char*, std::size_t) {
        return std::vector<core::model::MappedTensor>{{"w", {rows, cols}, t, 0, order}};
    });
    return {w, &w->require("w", {rows, cols})};
}

// y (m, n) = x (m, k) · W, in double, from W's float32 values (rows()), and Σ |x||w| per entry.
void product_reference(const std::vector<float>& x, std::int64_t m, const core::model::Weights::Tensor& W, Layout layout,
               std::vector<double>& y, std::vector<double>& size) {
    const std::int64_t rows = W.shape()[0], cols = W.shape()[1];
    std::vector<float> w(static_cast<std::size_t>(rows * cols)); // (rows, cols)
    W.rows(0, rows, w.data());
    const std::int64_t k = layout == Layout::out_in ? cols : rows, n = layout == Layout::out_in ? rows : cols;
    y.assign(static_cast<std::size_t>(m * n), 0.0);
    size = y;
    for (std::int64_t i = 0; i < m; ++i)
        for (std::int64_t j = 0; j < n; ++j)
            for (std::int64_t d = 0; d < k; ++d) {
                const double a = x[static_cast<std::size_t>(i * k + d)];
                const double b = w[static_cast<std::size_t>(layout == Layout::out_in ? j * k + d : d * n + j)];
                y[static_cast<std::size_t>(i * n + j)] += a * b;
                size[static_cast<std::size_t>(i * n + j)] += std::abs(a * b);
            }
}

// The largest |y − ref| / Σ|x||w| over the entries.
double worst(const std::vector<float>& y, const std::vector<double>& ref, const std::vector<double>& size) {
    double e = 0;
    for (std::size_t i = 0; i < y.size(); ++i) e = std::max(e, std::abs(y[i] - ref[i]) / std::max(size[i], 1e-30));
    return e;
}

} // namespace

TEST_CASE("weight products: every type, both layouts, several panels, equal a product of the float32 weights to float32 rounding") {
    std::mt19937 rng(77);
    for (const WeightType t : {WeightType::f32, WeightType::f16, WeightType::bf16, WeightType::q8_0, WeightType::q4_0, WeightType::q4_K,
                               WeightType::q5_K, WeightType::q6_K, WeightType::q4_1, WeightType::q5_0, WeightType::q5_1, WeightType::q2_K,
                               WeightType::q3_K, WeightType::iq4_nl, WeightType::iq4_xs, WeightType::mxfp4}) {
        const bool one_value = core::model::block_shape(t).values == 1;
        for (const Layout layout : {Layout::out_in, Layout::in_out}) {
            if (layout == Layout::in_out && !one_value) continue; // ggml stores every matrix (out, in)
            for (const std::int64_t m : {1, 5, 70}) {
                const std::string type = core::model::type_name(t);
                CAPTURE(type);
                CAPTURE(layout == Layout::out_in);
                CAPTURE(m);
                // (n, k) = (600, 512) out_in, or (512, 600) in_out: several panels and a part of one.
                const std::int64_t k = 512, n = 600;
                const Mapped w = layout == Layout::out_in ? mapped(t, n, k, rng) : mapped(t, k, n, rng);
                REQUIRE(n > 3 * core::model::panel_columns);
                std::vector<float> x(static_cast<std::size_t>(m * k));          // (m, k)
                for (float& v : x) v = std::uniform_real_distribution<float>(-1, 1)(rng);
                std::vector<double> ref, size;
                product_reference(x, m, *w.W, layout, ref, size);
                std::vector<float> y(static_cast<std::size_t>(m * n), 0.0f);     // (m, n)
                core::model::product({x.data(), k, m, w.W, layout, y.data(), n});
                CHECK(worst(y, ref, size) < 2e-6);
                // Columns 70 … 469 alone, accumulated onto y: twice the reference there.
                core::model::product_columns({x.data(), k, m, w.W, layout, y.data() + 70, n, true}, 70, 470);
                for (std::int64_t i = 0; i < m; ++i)
                    for (std::int64_t j = 0; j < n; ++j) {
                        const auto at = static_cast<std::size_t>(i * n + j);
                        const double want = (j >= 70 && j < 470 ? 2 : 1) * ref[at];
                        if (std::abs(y[at] - want) > 4e-6 * size[at] + 1e-30) FAIL_CHECK("entry " << i << ", " << j << ": " << y[at] << " not " << want);
                    }
            }
        }
    }
}

TEST_CASE("weight products: one row times F16 or BF16 weights (out, in), the dot products over rows as they lie, at any depth") {
    std::mt19937 rng(78);
    for (const WeightType t : {WeightType::f16, WeightType::bf16}) {
        for (const std::int64_t k : {1, 7, 8, 33, 1001}) { // the 32-wide steps, the 8-wide ones and the tail
            const std::string type = core::model::type_name(t);
            CAPTURE(type);
            CAPTURE(k);
            const std::int64_t n = 300;
            const Mapped w = mapped(t, n, k, rng);
            std::vector<float> x(static_cast<std::size_t>(k)); // (1, k)
            for (float& v : x) v = std::uniform_real_distribution<float>(-1, 1)(rng);
            std::vector<double> ref, size;
            product_reference(x, 1, *w.W, Layout::out_in, ref, size);
            std::vector<float> y(static_cast<std::size_t>(n), 0.0f);
            core::model::product({x.data(), k, 1, w.W, Layout::out_in, y.data(), n});
            CHECK(worst(y, ref, size) < 2e-6);
            std::vector<float> again(y);
            core::model::product({x.data(), k, 1, w.W, Layout::out_in, again.data(), n});
            CHECK(again == y); // a fixed order: the same bits every time
        }
    }
}

TEST_CASE("weight products: several rows times 16-bit or block weights (out, in), widened as multiplied, at any depth, row count and column range") {
    std::mt19937 rng(79);
    using Shapes = std::vector<std::pair<std::int64_t, std::int64_t>>; // (m, k)
    // Depths: under one widened step of 512, its tail, several packed blocks of 2048 (whole blocks of
    // the type). Rows: a panel of 16, of 32 and a part, past a block of 128. Columns: 14 to a tile,
    // and 3 left over.
    const Shapes sixteen{{3, 1}, {17, 15}, {33, 600}, {130, 17}, {300, 5000}}, blocks{{3, 256}, {33, 768}, {130, 2560}};
    for (const WeightType t : {WeightType::f16, WeightType::bf16, WeightType::q8_0, WeightType::q4_0, WeightType::q4_K, WeightType::q6_K,
                               WeightType::q3_K, WeightType::mxfp4}) {
        for (const auto& shape : core::model::block_shape(t).values == 1 ? sixteen : blocks) {
            const std::int64_t m = shape.first, k = shape.second;
            const std::string type = core::model::type_name(t);
            CAPTURE(type);
            CAPTURE(m);
            CAPTURE(k);
            const std::int64_t n = 45;
            const Mapped w = mapped(t, n, k, rng);
            std::vector<float> x(static_cast<std::size_t>(m * k)); // (m, k)
            for (float& v : x) v = std::uniform_real_distribution<float>(-1, 1)(rng);
            std::vector<double> ref, size;
            product_reference(x, m, *w.W, Layout::out_in, ref, size);
            std::vector<float> y(static_cast<std::size_t>(m * n), 0.0f); // (m, n)
            core::model::product({x.data(), k, m, w.W, Layout::out_in, y.data(), n});
            CHECK(worst(y, ref, size) < 2e-6);
            // One thread over every column, and rows 1 … 2 alone: the same bits.
            std::vector<float> one(y.size(), 0.0f), two(static_cast<std::size_t>(2 * n), 0.0f);
            core::model::product_columns({x.data(), k, m, w.W, Layout::out_in, one.data(), n}, 0, n);
            CHECK(one == y);
            core::model::product({x.data() + k, k, 2, w.W, Layout::out_in, two.data(), n});
            CHECK(std::equal(two.begin(), two.end(), y.begin() + n));
        }
    }
}

namespace {

// Logits, hidden states and attention of one forward.
core::model::ForwardResult forward_of(const std::string& name, const std::vector<int>& ids) {
    const auto m = core::model::open_model(fixtures::checkpoints() + "/" + name);
    core::model::ForwardOptions o;
    o.logits = core::model::Logits::all;
    return m.model->forward(ids, o);
}

} // namespace

TEST_CASE("weight products: a forward on 16-bit weights equals the forward on their F32 copy, with no matrix converted whole") {
    NEED_CHECKPOINTS();
    for (const char* name : {"llama_gqa", "qwen2", "gemma3_text", "phi3", "gpt2_f16", "bert_bf16"}) {
        CAPTURE(name);
        const std::vector<int> ids = {3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5};
        const core::model::ForwardResult half = forward_of(name, ids), full = forward_of(std::string(name) + "_f32", ids);
        REQUIRE(half.logits.size() == full.logits.size());
        REQUIRE(half.logits.size() > 0);
        CHECK(fixtures::max_diff(half.logits.data(), full.logits.data(), static_cast<std::size_t>(full.logits.size())) < 1e-4);
        CHECK(fixtures::max_diff(half.hidden.data(), full.hidden.data(), static_cast<std::size_t>(full.hidden.size())) < 1e-4);
        const std::vector<float> a = half.maps.all(), b = full.maps.all();
        REQUIRE(a.size() == b.size());
        CHECK(fixtures::max_diff(a.data(), b.data(), b.size()) < 1e-5);
        // The architectures read 16-bit matrices by rows: converting one whole is refused.
        const auto m = core::model::open_model(fixtures::checkpoints() + "/" + name);
        CHECK_THROWS_AS(m.model->unembedding().weight->data(), std::logic_error);
    }
}

namespace {

// y (m, n) = x (m, k) · Wᵀ for W (n, k) in the order core/model/block_dot.h states for a level with
// `lanes` lanes: lane l sums depths d ≡ l (mod lanes) in order (std::fma where `fused`, else a
// rounded product then a sum), then the lanes added in halves.
std::vector<float> lane_order(const std::vector<float>& x, std::int64_t m, const core::model::Weights::Tensor& W, int lanes, bool fused) {
    const std::int64_t n = W.shape()[0], k = W.shape()[1];
    std::vector<float> w(static_cast<std::size_t>(n * k)); // (n, k)
    W.rows(0, n, w.data());
    std::vector<float> y(static_cast<std::size_t>(m * n));
    for (std::int64_t i = 0; i < m; ++i)
        for (std::int64_t j = 0; j < n; ++j) {
            std::vector<float> lane(static_cast<std::size_t>(lanes), 0.0f);
            for (std::int64_t d = 0; d < k; ++d) {
                const float a = w[static_cast<std::size_t>(j * k + d)], b = x[static_cast<std::size_t>(i * k + d)];
                float& s = lane[static_cast<std::size_t>(d % lanes)];
                if (fused) s = std::fma(a, b, s);
                else {
                    const float product = a * b;
                    s = s + product;
                }
            }
            for (int half = lanes / 2; half > 0; half /= 2)
                for (int l = 0; l < half; ++l) lane[static_cast<std::size_t>(l)] += lane[static_cast<std::size_t>(l + half)];
            y[static_cast<std::size_t>(i * n + j)] = lane[0];
        }
    return y;
}

// ggml's MXFP4 blocks `ggml` (scale byte, then byte j holding value j low and j + 16 high) laid out as
// the Hub's gpt-oss checkpoints hold them: the scales apart, and byte j of a block's 16 holding value
// 2j low and 2j + 1 high.
void hub_mxfp4(const RawBytes& ggml, RawBytes& values, RawBytes& scales) {
    const std::size_t blocks = ggml.size() / 17;
    values.assign(16 * blocks, 0);
    scales.assign(blocks, 0);
    for (std::size_t i = 0; i < blocks; ++i) {
        const unsigned char* b = &ggml[17 * i];
        const auto value = [&](int v) { return v < 16 ? b[1 + v] & 0x0f : b[1 + v - 16] >> 4; };
        scales[i] = b[0];
        for (int j = 0; j < 16; ++j) values[16 * i + static_cast<std::size_t>(j)] = static_cast<unsigned char>(value(2 * j) | value(2 * j + 1) << 4);
    }
}

} // namespace

TEST_CASE("weight products: block weights at every level, 1, 2, 3 or 5 rows give each row the bits it has among 50, in the level's order") {
    std::mt19937 rng(80);
    const std::vector<std::string> levels = core::kernel_builds();
    const std::string before = core::kernel_build();
    for (const std::string& level : levels) {
        REQUIRE(core::use_kernel_build(level));
        const int lanes = level == "x86-64-v4" ? 16 : level == "x86-64-v3" ? 8 : 4;
        for (const WeightType t : {WeightType::q8_0, WeightType::q4_0, WeightType::q4_1, WeightType::q5_0, WeightType::q5_1, WeightType::q2_K,
                                   WeightType::q3_K, WeightType::q4_K, WeightType::q5_K, WeightType::q6_K, WeightType::iq4_nl,
                                   WeightType::iq4_xs, WeightType::mxfp4}) {
            const std::int64_t values = core::model::block_shape(t).values;
            // Depths: one block, and an odd count of blocks past one dequantized chunk of 512. Widths: odd,
            // and past one block of 48 weight rows (x86-64-v3's) with a part of a tile left over.
            for (const auto& shape : std::vector<std::pair<std::int64_t, std::int64_t>>{{values, 7}, {values * (values == 32 ? 19 : 3), 53}}) {
                const std::int64_t k = shape.first, n = shape.second;
                const std::string type = core::model::type_name(t);
                CAPTURE(level);
                CAPTURE(type);
                CAPTURE(k);
                const Mapped w = mapped(t, n, k, rng);
                const std::int64_t all = 50; // past a pass of 48 rows
                std::vector<float> x(static_cast<std::size_t>(all * k)); // (all, k)
                for (float& v : x) v = std::uniform_real_distribution<float>(-1, 1)(rng);
                std::vector<float> y(static_cast<std::size_t>(all * n), 0.0f); // (all, n)
                core::model::product({x.data(), k, all, w.W, Layout::out_in, y.data(), n});
                CHECK(y == lane_order(x, all, *w.W, lanes, level != "generic"));
                for (const std::int64_t m : {1, 2, 3, 5}) {
                    CAPTURE(m);
                    const std::int64_t first = 49 - m; // rows first … 48: across the end of the first pass of 48
                    std::vector<float> few(static_cast<std::size_t>(m * n), 0.0f);
                    core::model::product({x.data() + first * k, k, m, w.W, Layout::out_in, few.data(), n});
                    CHECK(std::equal(few.begin(), few.end(), y.begin() + first * n));
                    // Columns 2 … n−2 alone on this thread, added onto those rows: each the sum of the two.
                    std::vector<float> added(few);
                    core::model::product_columns({x.data() + first * k, k, m, w.W, Layout::out_in, added.data() + 2, n, true}, 2, n - 2);
                    for (std::int64_t i = 0; i < m; ++i)
                        for (std::int64_t j = 0; j < n; ++j) {
                            const float one = few[static_cast<std::size_t>(i * n + j)];
                            CHECK(added[static_cast<std::size_t>(i * n + j)] == (j >= 2 && j < n - 2 ? one + one : one));
                        }
                }
            }
        }
    }
    REQUIRE(core::use_kernel_build(before));
}

TEST_CASE("weight products: MXFP4 with its scales apart (the Hub's gpt-oss layout), read in place, equals ggml's blocks of the same values bit for bit") {
    std::mt19937 rng(97);
    const std::int64_t E = 3, n = 45, k = 768; // (E, n, k): three experts' (out, in) matrices
    const RawBytes ggml = random_blocks(WeightType::mxfp4, E * n * k, rng);
    const std::string file = fixtures::temp_dir() + "/mxfp4.bin";
    std::ofstream(file, std::ios::binary).write(reinterpret_cast<const char*>(ggml.data()), static_cast<std::streamsize>(ggml.size()));
    const auto w = core::model::Weights::open_mapped(file, [&](const unsigned char*, std::size_t) {
        return std::vector<core::model::MappedTensor>{{"w", {E, n, k}, WeightType::mxfp4, 0, {}}};
    });
    RawBytes values, scales;
    hub_mxfp4(ggml, values, scales);
    const auto hub = core::model::Weights::Tensor::mxfp4_pairs({E, n, k}, values.data(), scales.data(), "hub");
    CHECK(hub->type() == WeightType::mxfp4);
    for (std::int64_t e = 0; e < E; ++e) {
        CAPTURE(e);
        const auto &ours = hub->part(e), &theirs = w->require("w", {E, n, k}).part(e);
        std::vector<float> a(static_cast<std::size_t>(n * k)), b(a.size());
        ours.rows(0, n, a.data());
        theirs.rows(0, n, b.data());
        CHECK(a == b);
        std::vector<float> some(64), want(64); // row 7, values 128 … 191: a column range of whole blocks
        ours.columns(7, 1, 128, 64, some.data());
        theirs.columns(7, 1, 128, 64, want.data());
        CHECK(some == want);
        for (const std::int64_t m : {1, 2, 33}) { // ggml's blocks dequantized in registers (1, 2) or into L1 (33); the Hub's into L1
            CAPTURE(m);
            std::vector<float> x(static_cast<std::size_t>(m * k)), y(static_cast<std::size_t>(m * n)), z(y.size());
            for (float& v : x) v = std::uniform_real_distribution<float>(-1, 1)(rng);
            core::model::product({x.data(), k, m, &ours, Layout::out_in, y.data(), n});
            core::model::product({x.data(), k, m, &theirs, Layout::out_in, z.data(), n});
            CHECK(y == z);
        }
    }
}
