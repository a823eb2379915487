// tests/test_attention_kinds.cpp — the kinds of attention a layer runs (core/model/attention_kind.h):
// a learned sink in the softmax (gpt-oss's eager_attention_forward: one more logit per head, after
// the scale and the mask, which takes weight and passes no value) against a reference written here in
// double; the forward's heads, its maps rebuilt on demand and its sink shares; the labels the grid writes.
#include "core/model/arch/layers.h"
#include "core/model/attention_kind.h"
#include "core/model/ops.h"

#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <vector>

using core::model::AttentionKind;
using core::model::MatrixF;

namespace {

std::vector<float> random_values(std::size_t n, unsigned seed, float scale) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal(0.0f, scale);
    std::vector<float> v(n);
    for (float& x : v) x = normal(rng);
    return v;
}

// One head's rows by the definition: query p (from first) sees keys j ≤ p (within `window`), the
// scores q·k · scale and the sink logit share one softmax; the sink's weight is returned apart.
struct Reference {
    std::vector<double> weights, out, share; // (m, keys), (m, d), (m)
};
Reference reference(const float* q, const float* k, const float* v, int m, int keys, int d, int first, int window, float scale, float sink) {
    Reference r{std::vector<double>(static_cast<std::size_t>(m * keys), 0.0), std::vector<double>(static_cast<std::size_t>(m * d), 0.0),
                std::vector<double>(static_cast<std::size_t>(m), 0.0)};
    for (int i = 0; i < m; ++i) {
        const int p = first + i;
        std::vector<double> logits;
        for (int j = 0; j < keys; ++j) {
            double s = 0;
            for (int c = 0; c < d; ++c) s += static_cast<double>(q[i * d + c]) * k[j * d + c];
            const bool seen = j <= p && (window == 0 || p - j < window);
            logits.push_back(seen ? s * scale : -INFINITY);
        }
        double top = sink;
        for (double x : logits) top = std::max(top, x);
        double sum = std::exp(sink - top);
        for (double x : logits) sum += std::exp(x - top);
        r.share[static_cast<std::size_t>(i)] = std::exp(sink - top) / sum;
        for (int j = 0; j < keys; ++j) {
            const double a = std::exp(logits[static_cast<std::size_t>(j)] - top) / sum;
            r.weights[static_cast<std::size_t>(i * keys + j)] = a;
            for (int c = 0; c < d; ++c) r.out[static_cast<std::size_t>(i * d + c)] += a * v[j * d + c];
        }
    }
    return r;
}

template <class A, class B> double largest_difference(const A& a, const B& b) {
    double worst = 0;
    for (std::size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::abs(static_cast<double>(a[i]) - static_cast<double>(b[i])));
    return worst;
}

} // namespace

TEST_CASE("attention kinds: a learned sink joins each row's softmax, takes its share and passes no value") {
    const int m = 70, keys = 70, d = 8; // two blocks of the kernel
    const std::vector<float> q = random_values(m * d, 1, 1.0f), k = random_values(keys * d, 2, 1.0f), v = random_values(keys * d, 3, 1.0f);
    for (const int window : {0, 5}) {
        for (const float sink : {-1.0f, 2.5f}) {
            CAPTURE(window);
            CAPTURE(sink);
            std::vector<float> weights(m * keys), out(m * d), share(m), entropy(m);
            core::model::ops::Attend a{q.data(), d, k.data(), v.data(), d, m, keys, d, 0, true, window, 0.5f,
                                       weights.data(), out.data(), d, entropy.data(), 0.0f, &sink, share.data()};
            core::model::ops::active().attend(a);
            const Reference r = reference(q.data(), k.data(), v.data(), m, keys, d, 0, window, 0.5f, sink);
            CHECK(largest_difference(weights, r.weights) < 1e-6);
            CHECK(largest_difference(out, r.out) < 1e-5);
            CHECK(largest_difference(share, r.share) < 1e-6);
            for (int i = 0; i < m; ++i) {
                double row = 0, h = 0;
                for (int j = 0; j < keys; ++j) {
                    const double w = weights[static_cast<std::size_t>(i * keys + j)];
                    row += w;
                    if (w > 0) h -= w * std::log(w);
                }
                CHECK(row == doctest::Approx(1.0 - share[static_cast<std::size_t>(i)]).epsilon(1e-6));
                CHECK(entropy[static_cast<std::size_t>(i)] == doctest::Approx(h).epsilon(1e-5));
                CHECK(share[static_cast<std::size_t>(i)] > 0.0f); // the sink always takes some weight
            }
        }
    }
}

TEST_CASE("attention kinds: the forward's heads with learned sinks, their shares and the maps rebuilt from the kept queries") {
    using namespace core::model;
    const int t = 70, H = 4, KV = 2, dh = 8;
    const std::vector<float> sinks = {0.0f, 1.5f, -2.0f, 3.0f};
    const std::vector<float> q = random_values(t * H * dh, 4, 1.0f);
    KvCache cache;
    cache.k.resize(1), cache.v.resize(1);
    cache.row = KV * dh;
    cache.keep = true;
    const std::vector<float> k = random_values(t * KV * dh, 5, 1.0f), v = random_values(t * KV * dh, 6, 1.0f);
    layers::append_kv(cache, 0, k.data(), KV * dh, v.data(), KV * dh, t);
    ForwardOptions o;
    ForwardResult r;
    r.layers = 1, r.heads = H, r.t_new = t, r.t_total = t;
    r.maps = AttentionMaps(1, H, KV, dh, t, t, false);
    r.entropy.assign(static_cast<std::size_t>(H * t), 0.0f);
    std::vector<float> context(static_cast<std::size_t>(t * H * dh));
    layers::attend_heads({q.data(), H * dh, 0, H, KV, dh, true, 0, 0.35f, 0.0f, sinks.data()}, cache, o, r, context.data());
    REQUIRE(r.sink_share.size() == static_cast<std::size_t>(H * t));
    for (int h = 0; h < H; ++h) {
        CAPTURE(h);
        std::vector<float> qh(t * dh), kh(t * dh), vh(t * dh), ctx(t * dh);
        for (int i = 0; i < t; ++i)
            for (int c = 0; c < dh; ++c) {
                qh[static_cast<std::size_t>(i * dh + c)] = q[static_cast<std::size_t>(i * H * dh + h * dh + c)];
                kh[static_cast<std::size_t>(i * dh + c)] = k[static_cast<std::size_t>(i * KV * dh + h / 2 * dh + c)];
                vh[static_cast<std::size_t>(i * dh + c)] = v[static_cast<std::size_t>(i * KV * dh + h / 2 * dh + c)];
                ctx[static_cast<std::size_t>(i * dh + c)] = context[static_cast<std::size_t>(i * H * dh + h * dh + c)];
            }
        const Reference ref = reference(qh.data(), kh.data(), vh.data(), t, t, dh, 0, 0, 0.35f, sinks[static_cast<std::size_t>(h)]);
        const MatrixF map = r.maps.head(0, h); // (t, t) rebuilt from the kept queries and keys
        CHECK(largest_difference(std::vector<float>(map.data(), map.data() + map.size()), ref.weights) < 1e-6);
        CHECK(largest_difference(ctx, ref.out) < 1e-5);
        const std::vector<float> share(r.sink_share.begin() + h * t, r.sink_share.begin() + (h + 1) * t);
        CHECK(largest_difference(share, ref.share) < 1e-6);
        for (int i = 0; i < t; ++i) CHECK(map.row(i).sum() == doctest::Approx(1.0 - share[static_cast<std::size_t>(i)]).epsilon(1e-5));
    }
}

TEST_CASE("attention kinds: the label the grid writes on a layer's row names each of its kinds") {
    AttentionKind k;
    CHECK(core::model::kind_label(k) == "full");
    k.window = 128;
    CHECK(core::model::kind_label(k) == "window 128");
    k.sinks = {0.5f, 1.0f};
    CHECK(core::model::kind_label(k) == "window 128 · sink");
    CHECK(*k.sink(1) == 1.0f);
    AttentionKind none;
    none.rope = false;
    CHECK(core::model::kind_label(none) == "no RoPE");
    CHECK(none.sink(0) == nullptr);
}
