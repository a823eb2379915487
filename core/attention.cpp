#include "core/attention.h"

#include "core/kernels.h"
#include "core/parallel.h"

#include <cmath>
#include <cstdint>
#include <limits>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace core {

namespace {

// Sizes an (n, n) buffer. A new one is first touched page by page by the compute that fills it:
// asking for 2 MB pages instead of 4 kB ones makes that ~500 times fewer page faults (24 MB: 75 ms
// down to 12 ms on the 2-core test VM, where a fault is slow) and every later pass misses the TLB
// less. It is advice: without transparent huge pages nothing changes.
void resize_square(Matrix& m, Eigen::Index n) {
    if (m.rows() == n && m.cols() == n) return;
    m.resize(n, n);
#if defined(__linux__)
    constexpr std::uintptr_t huge_page = std::uintptr_t{2} << 20;
    const auto start = reinterpret_cast<std::uintptr_t>(m.data());
    const std::uintptr_t first = (start + huge_page - 1) & ~(huge_page - 1);
    const std::uintptr_t last = (start + sizeof(double) * static_cast<std::size_t>(m.size())) & ~(huge_page - 1);
    if (last > first) madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
#endif
}

} // namespace

int compute_threads(int n) { return n < 256 ? 1 : parallel::threads(); }

Matrix sinusoidal_positions(int n, int d_model) {
    Matrix pe(n, d_model); // (n, d_model)
    for (int p = 0; p < n; ++p)
        for (int c = 0; c < d_model; ++c) {
            const int pair = c / 2;
            const double angle = p / std::pow(10000.0, 2.0 * pair / d_model);
            pe(p, c) = (c % 2 == 0) ? std::sin(angle) : std::cos(angle);
        }
    return pe;
}

void softmax_prefix(double* row, Eigen::Index count, Eigen::Index width) {
    Eigen::Map<Eigen::ArrayXd> live(row, count);
    const double top = live.maxCoeff(); // subtracting the maximum keeps exp() ≤ 1
    live = (live - top).exp();
    live /= live.sum();
    for (Eigen::Index j = count; j < width; ++j) row[j] = 0.0;
}

double logit(const Scenario& s, double score) {
    const double x = score * s.score_factor();
    return s.softcap > 0.0 ? s.softcap * std::tanh(x / s.softcap) : x;
}

void compute_into(const Scenario& s, Result& r) {
    require_valid(s);
    const kernels::Set& k = kernels::active();
    const Eigen::Index n = s.n(), d_model = s.d_model(), d_k = s.d_k(), d_v = s.d_v();
    const Eigen::Index heads = static_cast<Eigen::Index>(s.heads.size());
    const bool parallel = compute_threads(s.n()) > 1; // share row blocks with core::parallel's helpers

    // Pass 1: the embeddings attention sees (none when Q, K and V are given).
    r.X_in = s.X; // (n, d_model), or (0, 0) when direct
    if (s.positional == Positional::sinusoidal) r.X_in += sinusoidal_positions(s.n(), s.d_model());
    r.score_factor = s.score_factor();

    // Every buffer keeps its storage when the sizes are those of the last call; every entry of
    // every buffer is written below.
    r.heads.resize(s.heads.size());
    r.concat.resize(n, heads * d_v); // (n, H·d_v)
    for (Eigen::Index h = 0; h < heads; ++h) {
        const Head& w = s.heads[static_cast<size_t>(h)];
        HeadResult& hr = r.heads[static_cast<size_t>(h)];
        hr.Q.resize(n, d_k);
        hr.K.resize(n, d_k);
        hr.V.resize(n, d_v);
        resize_square(hr.scores, n);
        resize_square(hr.scaled, n);
        resize_square(hr.weights, n);
        hr.output.resize(n, d_v);
        // Pass 2: projections, or the given Q, K, V.
        if (s.direct) {
            hr.Q = w.Q; // (n, d_k)
            hr.K = w.K; // (n, d_k)
            hr.V = w.V; // (n, d_v)
        } else {
            k.matmul(r.X_in.data(), w.W_Q.data(), hr.Q.data(), n, d_model, d_k, parallel); // (n, d_k)
            k.matmul(r.X_in.data(), w.W_K.data(), hr.K.data(), n, d_model, d_k, parallel); // (n, d_k)
            k.matmul(r.X_in.data(), w.W_V.data(), hr.V.data(), n, d_model, d_v, parallel); // (n, d_v)
        }
        if (s.pin && s.pin->head == static_cast<int>(h)) hr.Q.row(s.pin->row) = s.pin->q.transpose();
        // Passes 3-5, a block of query rows at a time: scores = Q Kᵀ; scaled = scores · factor,
        // soft-capped, with −∞ where masked; weights = row-wise softmax with exact 0 where masked; output = weights V.
        kernels::AttendArgs a{};
        a.Q = hr.Q.data();
        a.K = hr.K.data();
        a.V = hr.V.data();
        a.n = n;
        a.d_k = d_k;
        a.d_v = d_v;
        a.factor = r.score_factor;
        a.softcap = s.softcap;
        a.causal = s.causal;
        a.window = s.window;
        a.scores = hr.scores.data();
        a.scaled = hr.scaled.data();
        a.weights = hr.weights.data();
        a.output = hr.output.data();
        k.attend(a, parallel);
        r.concat.middleCols(h * d_v, d_v) = hr.output;
    }
    // Pass 6: output projection.
    if (s.W_O.size() != 0) {
        r.output.resize(n, s.W_O.cols()); // (n, d_model)
        k.matmul(r.concat.data(), s.W_O.data(), r.output.data(), n, heads * d_v, s.W_O.cols(), parallel);
    } else {
        r.output = r.concat; // (n, H·d_v)
    }
}

Result compute(const Scenario& s) {
    Result r;
    compute_into(s, r);
    return r;
}

} // namespace core
