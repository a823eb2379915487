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
#if defined(__x86_64__)
#include <cpuid.h>
#endif
#include <cstring>
#include <fstream>
#include <random>
#include <thread>
#include <vector>

namespace {

using core::model::Layout;
using Index = std::int64_t;

// A Q8_0 or Q4_0 matrix (rows, k): its values (int8 with −128, which ggml never writes but a file
// may hold, or −8 … 7) and scales as the test knows them,
// and the same bytes in a mapped file, stored in reverse row order (Q4_0: byte e of a block holds
// value e + 8 in its low nibble and value e + 16 + 8 in its high one).
struct Q8Matrix {
    Index rows, k;
    std::vector<std::int8_t> q; // (rows, k)
    std::vector<float> d;       // (rows, k / 32)
    std::shared_ptr<core::model::Weights> weights;
    const core::model::Weights::Tensor* W = nullptr;
};

Q8Matrix q8_matrix(Index rows, Index k, std::mt19937& rng, core::model::WeightType type = core::model::WeightType::q8_0) {
    Q8Matrix m{rows, k, std::vector<std::int8_t>(static_cast<std::size_t>(rows * k)), std::vector<float>(static_cast<std::size_t>(rows * k / 32)), {}, {}};
    const bool four = type == core::model::WeightType::q4_0;
    const Index bytes = four ? 18 : 34;
    std::vector<unsigned char> file(static_cast<std::size_t>(rows * k / 32 * bytes));
    for (Index r = 0; r < rows; ++r)
        for (Index b = 0; b < k / 32; ++b) {
            const auto half = static_cast<std::uint16_t>((rng() & 0x83ffu) | ((9u + rng() % 5) << 10)); // ± 2⁻⁶ … 2⁻²
            m.d[static_cast<std::size_t>(r * (k / 32) + b)] = core::model::half_to_float(half);
            unsigned char* block = &file[static_cast<std::size_t>(((rows - 1 - r) * (k / 32) + b) * bytes)];
            std::memcpy(block, &half, 2);
            for (int e = 0; e < 32; ++e) {
                const auto v = static_cast<std::int8_t>(four ? static_cast<int>(rng() % 16) - 8 : static_cast<int>(rng() % 256) - 128);
                m.q[static_cast<std::size_t>(r * k + b * 32 + e)] = v;
                if (!four) block[2 + e] = static_cast<unsigned char>(v);
                else block[2 + e % 16] = static_cast<unsigned char>(block[2 + e % 16] | (v + 8) << (e < 16 ? 0 : 4));
            }
        }
    const std::string path = fixtures::temp_dir() + "/q8.bin";
    std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(file.data()), static_cast<std::streamsize>(file.size()));
    std::vector<std::int32_t> order(static_cast<std::size_t>(rows));
    for (Index r = 0; r < rows; ++r) order[static_cast<std::size_t>(r)] = static_cast<std::int32_t>(rows - 1 - r);
    m.weights = core::model::Weights::open_mapped(path, [&](const unsigned char*, std::size_t) {
        return std::vector<core::model::MappedTensor>{{"w", {rows, k}, type, 0, order}};
    });
    m.W = &m.weights->require("w", {rows, k});
    return m;
}

// y (m, n) = x (m, k) · Wᵀ in the fast products' arithmetic, written out scalar.
std::vector<float> q8_reference(const std::vector<float>& x, Index m, const Q8Matrix& W) {
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

namespace {

// The product of Q8_0 and Q4_0 weights against q8_reference() at the kernel level in use.
void check_int8_products() {
    std::mt19937 rng(5);
    for (const auto type : {core::model::WeightType::q8_0, core::model::WeightType::q4_0})
    for (const Index k : {32, 96, 800})
        for (const Index m : {1, 3, 8, 13}) {
            const std::string name = core::model::type_name(type);
            CAPTURE(name);
            CAPTURE(k);
            CAPTURE(m);
            const Index n = 165; // two panels of 64 and a part of a group of 16
            const Q8Matrix W = q8_matrix(n, k, rng, type);
            std::vector<float> x(static_cast<std::size_t>(m * k)); // (m, k); row 0's last block all zero
            for (float& v : x) v = std::normal_distribution<float>(0, 1)(rng);
            if (k > 32) std::fill_n(x.begin() + k - 32, 32, 0.0f);
            const std::vector<float> want = q8_reference(x, m, W);
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

} // namespace

// Every int8 kernel this CPU runs, each to the bit: AVX512-VNNI's on x86-64-v4 (where the CPU has
// VNNI), and on x86-64-v3 AVX-VNNI's (where the CPU has it) and AVX2's.
TEST_CASE("fast products: Q8_0 and Q4_0 weights times int8 activations equal the same arithmetic written out, to the bit") {
    const std::string before = core::kernel_build();
    std::vector<std::string> kernels; // fast::summary() of each kernel checked
    for (const std::string& level : core::kernel_builds()) {
        REQUIRE(core::use_kernel_build(level));
        for (const bool avx_vnni : {true, false}) {
            const bool was = core::model::fast::use_avx_vnni(avx_vnni);
            const std::string kernel = core::model::fast::summary();
            CAPTURE(level);
            CAPTURE(kernel);
            if (core::model::fast::available() && std::find(kernels.begin(), kernels.end(), kernel) == kernels.end()) {
                kernels.push_back(kernel);
                check_int8_products();
            }
            core::model::fast::use_avx_vnni(was);
        }
    }
    REQUIRE(core::use_kernel_build(before));
    if (kernels.empty()) MESSAGE("skipped: " << core::model::fast::unavailable_reason());
}

namespace {

// AVX-VNNI as cpuid reports it (leaf 7 subleaf 1, eax bit 4), read here apart from the program's check.
bool cpu_has_avx_vnni() {
#if defined(__x86_64__)
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d) || a < 1) return false;
    __get_cpuid_count(7, 1, &a, &b, &c, &d);
    return (a >> 4 & 1u) != 0;
#else
    return false;
#endif
}

} // namespace

// The int8 kernel that each level takes, as --version names it: at x86-64-v3 AVX-VNNI's exactly
// where the CPU has it and the program is not told otherwise.
TEST_CASE("fast products: x86-64-v3 takes AVX-VNNI where the CPU has it, and AVX2 where not") {
    const std::vector<std::string> builds = core::kernel_builds();
    if (std::find(builds.begin(), builds.end(), "x86-64-v3") == builds.end()) return;
    const std::string before = core::kernel_build();
    REQUIRE(core::use_kernel_build("x86-64-v3"));
    const std::string on = core::model::fast::summary();
    const bool was = core::model::fast::use_avx_vnni(false);
    const std::string off = core::model::fast::summary();
    core::model::fast::use_avx_vnni(was);
    REQUIRE(core::use_kernel_build(before));
    const std::string prefix = "Q8_0 and Q4_0 weights times int8 activations on ";
    CHECK(on.rfind(prefix + (cpu_has_avx_vnni() ? "AVX-VNNI;" : "AVX2;"), 0) == 0);
    CHECK(off.rfind(prefix + "AVX2;", 0) == 0);
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

// What --fast says on this machine at each level: nothing where every product of the model has a
// fast kernel, the reason where its F32 matrices stay exact, and why there is none at all.
TEST_CASE("fast products: --fast on the command line, and one line where it cannot run fast") {
    NEED_CHECKPOINTS();
    using core::model::fast::available;
    using core::model::fast::bf16_available;
    const std::string model = fixtures::checkpoints() + "/gpt2"; // F32 weights: in bf16 where the CPU has AVX512-BF16
    const Run exact = run({"--forward", model, "--sequence", "3 1 4"});
    const Run fast = run({"--forward", model, "--sequence", "3 1 4", "--fast"});
    REQUIRE(exact.code == 0);
    CHECK(fast.code == 0);
    CHECK((fast.out == exact.out) == !bf16_available());
    const std::string f32_exact = "attnviz: --fast: F32, F16 and BF16 weights need AVX512-BF16 for a fast product";
    if (bf16_available()) CHECK(fast.err == "");
    else if (available()) CHECK(fast.err.rfind(f32_exact, 0) == 0);
    else CHECK(fast.err == "attnviz: --fast: " + core::model::fast::unavailable_reason() + "; the products run exact\n");
    const std::vector<std::string> builds = core::kernel_builds();
    const std::string before = core::kernel_build();
    const auto forced = [&](const std::string& level) {
        REQUIRE(core::use_kernel_build(level));
        const Run limited = run({"--generate", model, "--sequence", "3 1 4", "--tokens", "2", "--fast"});
        const Run plain = run({"--generate", model, "--sequence", "3 1 4", "--tokens", "2"});
        REQUIRE(core::use_kernel_build(before));
        CHECK(limited.code == 0);
        CHECK(limited.out == plain.out);
        return limited.err;
    };
    if (std::find(builds.begin(), builds.end(), "x86-64-v3") != builds.end()) {
        bool cpu_bf16 = false; // AVX512-BF16, which only x86-64-v4's kernels use
        if (std::find(builds.begin(), builds.end(), "x86-64-v4") != builds.end()) {
            REQUIRE(core::use_kernel_build("x86-64-v4"));
            cpu_bf16 = bf16_available();
            REQUIRE(core::use_kernel_build(before));
        }
        CHECK(forced("x86-64-v3") == f32_exact + (cpu_bf16 ? ", and the kernels in use are x86-64-v3 (ATTNVIZ_KERNELS)" : ", which this CPU lacks") +
                                         "; they run exact\n");
        CHECK(forced("generic") == "attnviz: --fast: the kernels in use are generic (ATTNVIZ_KERNELS), which have no fast products; the products run exact\n");
    } else {
        CHECK(forced("generic") == "attnviz: --fast: this CPU lacks AVX2 (x86-64-v3), which the fast products need; the products run exact\n");
    }
    const Run bench = run({"--bench-model", model, "--tokens", "4", "--reps", "1", "--fast"});
    CHECK(bench.code == 0);
    CHECK(bench.out.find(available() ? "\"fast\":true" : "\"fast\":false") != std::string::npos);
    CHECK(bench.out.find("\"forward_ms\"") != std::string::npos);
    const Run refused = run({"--export-attention", model, "--sequence", "3 1 4", "--out", fixtures::temp_dir() + "/a.safetensors", "--fast"});
    CHECK(refused.code == 2);
    CHECK(refused.err == "attnviz: --fast goes with --forward, --generate or --bench-model (see attnviz --help)\n");
}

namespace {

// bf16's value nearest v (ties to even), as the test rounds it.
double to_bf16(float v) {
    std::uint32_t u;
    std::memcpy(&u, &v, 4);
    u = (u + 0x7fffu + ((u >> 16) & 1u)) & 0xffff0000u;
    float r;
    std::memcpy(&r, &u, 4);
    return r;
}

// A (rows, cols) matrix of 16- or 32-bit weights whose float32 values the test knows.
struct WideMatrix {
    std::vector<float> values; // (rows, cols)
    std::shared_ptr<core::model::Weights> weights;
    const core::model::Weights::Tensor* W = nullptr;
};

WideMatrix wide_matrix(core::model::WeightType t, Index rows, Index cols, std::mt19937& rng) {
    WideMatrix m;
    const auto n = static_cast<std::size_t>(rows * cols);
    if (t == core::model::WeightType::f32) {
        m.values.resize(n);
        for (float& v : m.values) v = std::normal_distribution<float>(0, 1)(rng);
        m.weights = core::model::Weights::from_memory({{"w", {{rows, cols}, m.values}}}, "memory");
    } else {
        std::vector<std::uint16_t> bits(n);
        for (std::size_t i = 0; i < n; ++i) {
            bits[i] = static_cast<std::uint16_t>(t == core::model::WeightType::f16 ? (rng() & 0x83ffu) | ((12u + rng() % 5) << 10)
                                                                                     : (rng() & 0x807fu) | ((124u + rng() % 5) << 7));
            const std::uint32_t wide = static_cast<std::uint32_t>(bits[i]) << 16;
            float bf;
            std::memcpy(&bf, &wide, 4);
            m.values.push_back(t == core::model::WeightType::f16 ? core::model::half_to_float(bits[i]) : bf);
        }
        const std::string path = fixtures::temp_dir() + "/wide.bin";
        std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bits.data()), static_cast<std::streamsize>(n * 2));
        m.weights = core::model::Weights::open_mapped(path, [&](const unsigned char*, std::size_t) {
            return std::vector<core::model::MappedTensor>{{"w", {rows, cols}, t, 0, {}}};
        });
    }
    m.W = &m.weights->require("w", {rows, cols});
    return m;
}

} // namespace

TEST_CASE("fast products: 16- and 32-bit weights in bf16 with float32 sums equal the sums of the bf16-rounded values, to float rounding") {
    if (!core::model::fast::bf16_available()) {
        MESSAGE("skipped: no AVX512-BF16 here");
        return;
    }
    std::mt19937 rng(9);
    using core::model::WeightType;
    for (const WeightType t : {WeightType::f32, WeightType::f16, WeightType::bf16})
        for (const Layout layout : {Layout::out_in, Layout::in_out})
            for (const Index m : {2, 9, 45}) // 45: 32 rows by AMX, 13 by vdpbf16ps; 32 + 13 by weight_rows
                // an odd depth, two panels and a part of a group; depths past weight_rows's blocks of 2048 pairs
                for (const std::pair<Index, Index>& shape : {std::pair<Index, Index>{301, 150}, {4301, 30}}) {
                const Index k = shape.first, n = shape.second;
                const std::string type = core::model::type_name(t);
                CAPTURE(type);
                CAPTURE(layout == Layout::out_in);
                CAPTURE(m);
                CAPTURE(k);
                const WideMatrix W = layout == Layout::out_in ? wide_matrix(t, n, k, rng) : wide_matrix(t, k, n, rng);
                std::vector<float> x(static_cast<std::size_t>(m * k));
                for (float& v : x) v = std::normal_distribution<float>(0, 1)(rng);
                std::vector<float> y(static_cast<std::size_t>(m * n)), exact(y.size());
                core::model::product({x.data(), k, m, W.W, layout, exact.data(), n});
                core::model::product({x.data(), k, m, W.W, layout, y.data(), n, false, true});
                double worst = 0, moved = 0;
                for (Index i = 0; i < m; ++i)
                    for (Index j = 0; j < n; ++j) {
                        double want = 0, size = 0;
                        for (Index d = 0; d < k; ++d) {
                            const float w = W.values[static_cast<std::size_t>(layout == Layout::out_in ? j * k + d : d * n + j)];
                            const double term = to_bf16(x[static_cast<std::size_t>(i * k + d)]) * to_bf16(w);
                            want += term;
                            size += std::abs(term);
                        }
                        const auto at = static_cast<std::size_t>(i * n + j);
                        worst = std::max(worst, std::abs(y[at] - want) / size);
                        moved = std::max(moved, std::abs(exact[at] - want) / size);
                    }
                CHECK(worst < 1e-6);    // measured: up to 6e-8
                CHECK(moved > 3e-5);    // measured: 1e-4 … 8e-4; the exact product is not this one: the rounding to bf16 shows
                // One row stays exact: reading the weights bounds it, and rounding them first only slows it.
                std::vector<float> one(static_cast<std::size_t>(n)), one_exact(one.size());
                core::model::product({x.data(), k, 1, W.W, layout, one_exact.data(), n});
                core::model::product({x.data(), k, 1, W.W, layout, one.data(), n, false, true});
                CHECK(one == one_exact);
            }
}
