// ops::Gemm (core/model/sgemm.h, behind every build of core/model/ops.h) against a product in
// double written here, at shapes a packed kernel gets wrong first: one row, depths that are no
// multiple of 16, B transposed or not, accumulation, row strides wider than the matrices.
#include "core/model/ops.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace {

using core::model::ops::Gemm;
using core::model::ops::Index;

struct Case {
    Index m, k, n;
    bool transposed, accumulate;
    Index pad; // extra values at the end of every row of A, B and C
};

// n values drawn uniformly from [−1, 1].
std::vector<float> uniform_values(Index n, std::mt19937& rng) {
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    std::vector<float> values(static_cast<std::size_t>(n));
    for (float& x : values) x = u(rng);
    return values;
}

// C (m, n) as the Gemm describes it, in double: Σ_p A[i, p] · B(p, j) (+ C before).
std::vector<double> gemm_reference(const Gemm& g, const std::vector<float>& before) {
    std::vector<double> c(static_cast<std::size_t>(g.m * g.n));
    for (Index i = 0; i < g.m; ++i)
        for (Index j = 0; j < g.n; ++j) {
            double s = g.accumulate ? before[static_cast<std::size_t>(i * g.ldc + j)] : 0.0;
            for (Index p = 0; p < g.k; ++p)
                s += static_cast<double>(g.A[i * g.lda + p]) * (g.b_transposed ? g.B[j * g.ldb + p] : g.B[p * g.ldb + j]);
            c[static_cast<std::size_t>(i * g.n + j)] = s;
        }
    return c;
}

} // namespace

TEST_CASE("gemm: every build, one thread or shared, equals a product in double for odd shapes, strides and accumulation") {
    const Case cases[] = {
        {1, 1, 1, false, false, 0},    {1, 13, 70, false, false, 3},   {1, 100, 257, true, false, 5},
        {1, 768, 130, true, true, 0},  {3, 17, 33, false, true, 7},    {7, 1, 200, true, false, 1},
        {31, 49, 129, false, false, 2}, {64, 95, 300, true, true, 4},  {130, 255, 190, false, false, 9},
        {65, 300, 1000, true, false, 0}, {200, 64, 513, false, true, 16}, {197, 300, 75, true, true, 3}, {5, 0, 40, true, true, 2},
        {6, 0, 40, false, false, 2},   {1, 771, 4200, false, true, 3}, {1, 130, 700, false, false, 1},
        {1, 1001, 300, true, true, 2}, {1, 3, 5000, false, false, 0},
        {150, 1100, 200, true, false, 1}, // few rows, but too many floats of A for chain_gemm.h's whole_panels
    };
    const core::model::ops::Set* builds[] = {core::model::ops::generic(), &core::model::ops::active()};
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    for (const Case& t : cases)
        for (const auto* build : builds)
            for (const bool parallel : {false, true}) {
                const Index lda = t.k + t.pad, ldb = (t.transposed ? t.k : t.n) + t.pad, ldc = t.n + t.pad;
                std::vector<float> A(static_cast<std::size_t>(t.m * lda)), B(static_cast<std::size_t>((t.transposed ? t.n : t.k) * ldb));
                std::vector<float> C(static_cast<std::size_t>(t.m * ldc));
                for (float& x : A) x = u(rng);
                for (float& x : B) x = u(rng);
                for (float& x : C) x = t.accumulate ? u(rng) : std::numeric_limits<float>::quiet_NaN(); // C = A·B never reads C
                const std::vector<float> before = C;
                const Gemm g{A.data(), lda, B.data(), ldb, t.transposed, C.data(), ldc, t.m, t.k, t.n, t.accumulate};
                build->gemm(g, parallel);
                const std::vector<double> want = gemm_reference(g, before);
                INFO("build " << build->name << ", m " << t.m << ", k " << t.k << ", n " << t.n << ", transposed " << t.transposed
                              << ", accumulate " << t.accumulate << ", pad " << t.pad << ", parallel " << parallel);
                double worst = 0.0;
                for (Index i = 0; i < t.m; ++i)
                    for (Index j = 0; j < t.n; ++j) {
                        const double d = std::fabs(C[static_cast<std::size_t>(i * ldc + j)] - want[static_cast<std::size_t>(i * t.n + j)]);
                        worst = std::isnan(d) ? std::numeric_limits<double>::infinity() : std::max(worst, d);
                    }
                // float32 rounding of k products and sums of values in [−1, 1], with room to spare
                CHECK(worst <= 1e-6 * static_cast<double>(t.k + 2) * 4);
                for (Index i = 0; i < t.m; ++i) // the padding past each row of C is never written
                    for (Index j = t.n; j < ldc; ++j) CHECK(std::isnan(C[static_cast<std::size_t>(i * ldc + j)]) == !t.accumulate);
            }
}

TEST_CASE("gemm: a product shared between the cores gives the same bits every time, whichever thread takes a block") {
    const Index m = 96, k = 777, n = 1000;
    std::mt19937 rng(3);
    std::vector<float> A = uniform_values(m * k, rng), B = uniform_values(n * k, rng);
    std::vector<float> first(static_cast<std::size_t>(m * n)), again(first.size());
    const auto& ops = core::model::ops::active();
    ops.gemm({A.data(), k, B.data(), k, true, first.data(), n, m, k, n}, true);
    for (int run = 0; run < 8; ++run) {
        ops.gemm({A.data(), k, B.data(), k, true, again.data(), n, m, k, n}, true);
        CHECK(std::equal(first.begin(), first.end(), again.begin()));
    }
}

// x86-64-v3 and generic block a product of up to 192 rows in another way than a larger one (and
// pack B (n, k) a panel at a time there): 200 rows take the other path than 2 to 15. A B of 300 × 70
// runs on oneDNN at x86-64-v4; one 24 deep, or of 64 × 64, on our own kernel there too.
TEST_CASE("gemm: a row has the same bits in a product of 2 to 15 rows as in one of 200, B transposed or not") {
    const Index shapes[][2] = {{300, 70}, {24, 300}, {64, 64}}; // k, n
    const Index rows = 200;
    std::mt19937 rng(5);
    const auto& ops = core::model::ops::active();
    for (const auto& shape : shapes) {
        const Index k = shape[0], n = shape[1];
        std::vector<float> A = uniform_values(rows * k, rng), B = uniform_values(n * k, rng);
        for (const bool transposed : {false, true}) {
            std::vector<float> all(static_cast<std::size_t>(rows * n)), few(all.size());
            ops.gemm({A.data(), k, B.data(), transposed ? k : n, transposed, all.data(), n, rows, k, n}, false);
            for (Index m = 2; m < 16; ++m) {
                CAPTURE(k);
                CAPTURE(n);
                CAPTURE(transposed);
                CAPTURE(m);
                ops.gemm({A.data(), k, B.data(), transposed ? k : n, transposed, few.data(), n, m, k, n}, false);
                CHECK(std::equal(few.begin(), few.begin() + m * n, all.begin()));
            }
        }
    }
}

TEST_CASE("gemm: one row gives the same bits shared between the cores or on one thread, and from copies at other addresses") {
    const Index k = 1003, n = 4500; // B's rows in two unequal halves; C in two blocks of columns
    std::mt19937 rng(11);
    std::vector<float> A = uniform_values(k + 1, rng), B = uniform_values(n * k + 1, rng);
    const auto& ops = core::model::ops::active();
    for (const bool transposed : {false, true}) {
        CAPTURE(transposed);
        const Index ldb = transposed ? k : n;
        std::vector<float> shared(static_cast<std::size_t>(n)), alone(shared.size()), moved(shared.size());
        ops.gemm({A.data(), k, B.data(), ldb, transposed, shared.data(), n, 1, k, n}, true);
        ops.gemm({A.data(), k, B.data(), ldb, transposed, alone.data(), n, 1, k, n}, false);
        CHECK(shared == alone);
        std::copy(A.begin(), A.end() - 1, A.begin() + 1); // every value one float further on
        std::copy_backward(B.begin(), B.end() - 1, B.end());
        ops.gemm({A.data() + 1, k, B.data() + 1, ldb, transposed, moved.data(), n, 1, k, n}, true);
        CHECK(moved == shared);
        std::copy(A.begin() + 1, A.end(), A.begin());
        std::copy(B.begin() + 1, B.end(), B.begin());
    }
}
