// The fast products (core/model/fast_product.h) against their arithmetic done here: the activations
// quantized per block of 32 (d = max|x| / 127, round half to even), each block's integer dot product
// with the Q8_0 weights, acc = fma(Σ, d_w · d_x, acc) over the blocks in order: equal to the bit.
#include "core/kernels.h"
#include "core/model/fast_product.h"
#include "core/model/format/weights.h"
#include "core/model/weight_product.h"
#include "tests/checkpoint_fixtures.h"
#include "tests/cli_run.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <random>
#include <thread>
#include <vector>

namespace {

using core::model::Layout;
using Index = std::int64_t;

// A Q8_0 matrix (rows, k): its int8 values and scales as the test knows them, and the same bytes
// in a mapped file, stored in reverse row order.
struct Q8Matrix {
    Index rows, k;
    std::vector<std::int8_t> q; // (rows, k)
    std::vector<float> d;       // (rows, k / 32)
    std::shared_ptr<core::model::Weights> weights;
    const core::model::Weights::Tensor* W = nullptr;
};

Q8Matrix q8_matrix(Index rows, Index k, std::mt19937& rng) {
    Q8Matrix m{rows, k, std::vector<std::int8_t>(static_cast<std::size_t>(rows * k)), std::vector<float>(static_cast<std::size_t>(rows * k / 32)), {}, {}};
    std::vector<unsigned char> file(static_cast<std::size_t>(rows * k / 32 * 34));
    for (Index r = 0; r < rows; ++r)
        for (Index b = 0; b < k / 32; ++b) {
            const auto half = static_cast<std::uint16_t>((rng() & 0x83ffu) | ((9u + rng() % 5) << 10)); // ± 2⁻⁶ … 2⁻²
            m.d[static_cast<std::size_t>(r * (k / 32) + b)] = core::model::half_to_float(half);
            unsigned char* block = &file[static_cast<std::size_t>(((rows - 1 - r) * (k / 32) + b) * 34)];
            std::memcpy(block, &half, 2);
            for (int e = 0; e < 32; ++e) {
                const auto v = static_cast<std::int8_t>(static_cast<int>(rng() % 255) - 127);
                m.q[static_cast<std::size_t>(r * k + b * 32 + e)] = v;
                block[2 + e] = static_cast<unsigned char>(v);
            }
        }
    const std::string path = fixtures::temp_dir() + "/q8.bin";
    std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(file.data()), static_cast<std::streamsize>(file.size()));
    std::vector<std::int32_t> order(static_cast<std::size_t>(rows));
    for (Index r = 0; r < rows; ++r) order[static_cast<std::size_t>(r)] = static_cast<std::int32_t>(rows - 1 - r);
    m.weights = core::model::Weights::open_mapped(path, [&](const unsigned char*, std::size_t) {
        return std::vector<core::model::MappedTensor>{{"w", {rows, k}, core::model::WeightType::q8_0, 0, order}};
    });
    m.W = &m.weights->require("w", {rows, k});
    return m;
}

// y (m, n) = x (m, k) · Wᵀ in the fast products' arithmetic, written out scalar.
std::vector<float> reference(const std::vector<float>& x, Index m, const Q8Matrix& W) {
    const Index k = W.k, blocks = k / 32;
    std::vector<std::int8_t> q(x.size());
    std::vector<float> d(static_cast<std::size_t>(m * blocks));
    for (Index i = 0; i < m; ++i)
        for (Index b = 0; b < blocks; ++b) {
            float amax = 0;
            for (int e = 0; e < 32; ++e) amax = std::max(amax, std::abs(x[static_cast<std::size_t>(i * k + b * 32 + e)]));
            const float inverse = amax > 0 ? 127.0f / amax : 0.0f;
            for (int e = 0; e < 32; ++e) {
                const auto at = static_cast<std::size_t>(i * k + b * 32 + e);
                q[at] = static_cast<std::int8_t>(std::nearbyint(x[at] * inverse));
            }
            d[static_cast<std::size_t>(i * blocks + b)] = amax / 127.0f;
        }
    std::vector<float> y(static_cast<std::size_t>(m * W.rows));
    for (Index i = 0; i < m; ++i)
        for (Index j = 0; j < W.rows; ++j) {
            float acc = 0;
            for (Index b = 0; b < blocks; ++b) {
                int sum = 0;
                for (int e = 0; e < 32; ++e) sum += q[static_cast<std::size_t>(i * k + b * 32 + e)] * W.q[static_cast<std::size_t>(j * k + b * 32 + e)];
                acc = std::fma(static_cast<float>(sum), W.d[static_cast<std::size_t>(j * blocks + b)] * d[static_cast<std::size_t>(i * blocks + b)], acc);
            }
            y[static_cast<std::size_t>(i * W.rows + j)] = acc;
        }
    return y;
}

} // namespace

TEST_CASE("fast products: Q8_0 weights times int8 activations equal the same arithmetic written out, to the bit") {
    if (!core::model::fast::available()) {
        MESSAGE("skipped: " << core::model::fast::unavailable_reason());
        return;
    }
    std::mt19937 rng(5);
    for (const Index k : {32, 96, 800})
        for (const Index m : {1, 3, 8, 13}) {
            CAPTURE(k);
            CAPTURE(m);
            const Index n = 165; // two panels of 64 and a part of a group of 16
            const Q8Matrix W = q8_matrix(n, k, rng);
            std::vector<float> x(static_cast<std::size_t>(m * k)); // (m, k); row 0's last block all zero
            for (float& v : x) v = std::normal_distribution<float>(0, 1)(rng);
            if (k > 32) std::fill_n(x.begin() + k - 32, 32, 0.0f);
            const std::vector<float> want = reference(x, m, W);
            std::vector<float> y(static_cast<std::size_t>(m * n), -1.0f);
            {
                const core::model::FastScope fast(true);
                core::model::product({x.data(), k, m, W.W, Layout::out_in, y.data(), n});
            }
            CHECK(y == want);
            // Columns 20 … 150 alone, told by the product itself (as a helper thread's job is), added on.
            core::model::product_columns({x.data(), k, m, W.W, Layout::out_in, y.data() + 20, n, true, true}, 20, 150);
            int wrong = 0;
            for (Index i = 0; i < m; ++i)
                for (Index j = 0; j < n; ++j) {
                    const auto at = static_cast<std::size_t>(i * n + j);
                    wrong += y[at] != (j >= 20 && j < 150 ? want[at] + want[at] : want[at]);
                }
            CHECK(wrong == 0);
            // Without the scope or the flag the same product is the exact one, which differs.
            core::model::product({x.data(), k, m, W.W, Layout::out_in, y.data(), n});
            CHECK(y != want);
        }
}

TEST_CASE("fast products: the scope holds on its own thread only while it lives, and other types stay exact") {
    CHECK_FALSE(core::model::FastScope::open());
    {
        const core::model::FastScope fast(true);
        CHECK(core::model::FastScope::open());
        bool elsewhere = true;
        std::thread([&] { elsewhere = core::model::FastScope::open(); }).join();
        CHECK_FALSE(elsewhere);
    }
    CHECK_FALSE(core::model::FastScope::open());
    CHECK(core::model::fast::available() == core::model::fast::unavailable_reason().empty());
}

TEST_CASE("fast products: --fast on the command line, and one line where it cannot run fast") {
    NEED_CHECKPOINTS();
    const std::string model = fixtures::checkpoints() + "/gpt2"; // F32 weights: the fast products leave them exact
    const Run exact = run({"--forward", model, "--sequence", "3 1 4"});
    const Run fast = run({"--forward", model, "--sequence", "3 1 4", "--fast"});
    REQUIRE(exact.code == 0);
    CHECK(fast.code == 0);
    CHECK(fast.out == exact.out);
    CHECK(fast.err == (core::model::fast::available() ? "" : "attnviz: --fast: " + core::model::fast::unavailable_reason() + "; the products run exact\n"));
    const std::vector<std::string> builds = core::kernel_builds();
    if (std::find(builds.begin(), builds.end(), "x86-64-v3") != builds.end()) {
        const std::string before = core::kernel_build();
        REQUIRE(core::use_kernel_build("x86-64-v3"));
        const Run limited = run({"--generate", model, "--sequence", "3 1 4", "--tokens", "2", "--fast"});
        REQUIRE(core::use_kernel_build(before));
        CHECK(limited.code == 0);
        CHECK(limited.err == "attnviz: --fast: the kernels in use are x86-64-v3 (ATTNVIZ_KERNELS), not x86-64-v4's AVX-512; the products run exact\n");
        CHECK(limited.out == run({"--generate", model, "--sequence", "3 1 4", "--tokens", "2"}).out);
    }
    const Run bench = run({"--bench-model", model, "--tokens", "4", "--reps", "1", "--fast"});
    CHECK(bench.code == 0);
    CHECK(bench.out.find(core::model::fast::available() ? "\"fast\":true" : "\"fast\":false") != std::string::npos);
    CHECK(bench.out.find("\"forward_ms\"") != std::string::npos);
    const Run refused = run({"--export-attention", model, "--sequence", "3 1 4", "--out", fixtures::temp_dir() + "/a.safetensors", "--fast"});
    CHECK(refused.code == 2);
    CHECK(refused.err == "attnviz: --fast goes with --forward, --generate or --bench-model (see attnviz --help)\n");
}
