// tests/test_attention_kinds.cpp — the kinds of attention a layer runs (core/model/attention_kind.h):
// a learned sink in the softmax (gpt-oss's eager_attention_forward: one more logit per head, after
// the scale and the mask, which takes weight and passes no value) against a reference written here in
// double; the forward's heads, its maps rebuilt on demand and its sink shares; the labels the grid writes.
#include "core/model/arch/decoder.h"
#include "core/model/arch/layers.h"
#include "core/model/attention_kind.h"
#include "core/model/ops.h"

#include <doctest/doctest.h>

#include <cmath>
#include <map>
#include <random>
#include <string>
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
struct KindReference {
    std::vector<double> weights, out, share; // (m, keys), (m, d), (m)
};
KindReference kind_reference(const float* q, const float* k, const float* v, int m, int keys, int d, int first, int window, float scale, float sink) {
    KindReference r{std::vector<double>(static_cast<std::size_t>(m * keys), 0.0), std::vector<double>(static_cast<std::size_t>(m * d), 0.0),
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
            const KindReference r = kind_reference(q.data(), k.data(), v.data(), m, keys, d, 0, window, 0.5f, sink);
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
        const KindReference ref = kind_reference(qh.data(), kh.data(), vh.data(), t, t, dh, 0, 0, 0.35f, sinks[static_cast<std::size_t>(h)]);
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

namespace {

// A two-layer Llama decoder of random weights whose second layer has learned sinks, as gpt-oss's
// layers will: the Llama layer (arch/decoder.h) with Block::sinks set.
struct SinkModel {
    core::model::ModelConfig c;
    std::unique_ptr<core::model::Model> model;
};
SinkModel sink_model() {
    using namespace core::model;
    SinkModel m;
    ModelConfig& c = m.c;
    c.architecture = "LlamaForCausalLM";
    c.vocab = 20, c.d_model = 16, c.layers = 2, c.heads = 4, c.kv_heads = 2, c.d_head = 4, c.rotary_dim = 4, c.d_ff = 24, c.context = 256;
    c.activation = "silu", c.norm_eps = 1e-6;
    c.sliding_window = {0, 5};
    std::map<std::string, std::pair<Shape, std::vector<float>>> t;
    unsigned seed = 10;
    const auto add = [&](const std::string& name, Shape shape) {
        std::size_t n = 1;
        for (std::int64_t d : shape) n *= static_cast<std::size_t>(d);
        t[name] = {shape, random_values(n, seed++, 0.5f)};
    };
    add("model.embed_tokens.weight", {20, 16});
    add("model.norm.weight", {16});
    add("lm_head.weight", {20, 16});
    for (int l = 0; l < 2; ++l) {
        const std::string p = "model.layers." + std::to_string(l) + ".";
        for (const char* norm : {"input_layernorm.weight", "post_attention_layernorm.weight"}) add(p + norm, {16});
        add(p + "self_attn.q_proj.weight", {16, 16}), add(p + "self_attn.k_proj.weight", {8, 16}), add(p + "self_attn.v_proj.weight", {8, 16});
        add(p + "self_attn.o_proj.weight", {16, 16});
        add(p + "mlp.gate_proj.weight", {24, 16}), add(p + "mlp.up_proj.weight", {24, 16}), add(p + "mlp.down_proj.weight", {16, 24});
    }
    t["model.layers.1.self_attn.sinks"] = {{4}, {0.5f, 2.0f, -1.0f, 4.0f}};
    const std::shared_ptr<const Weights> w = Weights::from_memory(std::move(t), "sinks in memory");
    std::vector<decoder::Block> blocks = decoder::llama_blocks(*w, c);
    blocks[1].sinks = &w->require("model.layers.1.self_attn.sinks", {4});
    decoder::Parts parts = decoder::around(*w, c, std::move(blocks));
    m.model = decoder::build(c, w, std::move(parts));
    return m;
}

} // namespace

TEST_CASE("attention kinds: a decoder layer with learned sinks gives their shares, maps whose rows sum to 1 − share, and a cache that agrees") {
    using namespace core::model;
    const SinkModel m = sink_model();
    std::vector<int> ids(90);
    for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<int>((i * 7 + 3) % 20);
    const core::heads::ScoreIndex index = core::heads::score_index(ids);
    ForwardOptions kept, dense;
    kept.scores = &index;
    dense.dense_attention = true;
    const ForwardResult a = m.model->forward(ids, kept), b = m.model->forward(ids, dense);
    REQUIRE(a.kinds.size() == 2);
    CHECK(kind_label(a.kinds[0]) == "full");
    CHECK(kind_label(a.kinds[1]) == "window 5 · sink");
    REQUIRE(a.sink_share.size() == static_cast<std::size_t>(2 * 4 * 90));
    CHECK(a.sink_share == b.sink_share);
    const int t = 90;
    for (int h = 0; h < 4; ++h) {
        CAPTURE(h);
        const MatrixF full = a.maps.head(0, h), sunk = a.maps.head(1, h), sunk_dense = b.maps.head(1, h); // (t, t)
        CHECK(sunk == sunk_dense); // the maps rebuilt on demand are the forward's
        double mean = 0;
        for (int i = 0; i < t; ++i) {
            const float share = a.sink_share[static_cast<std::size_t>((4 + h) * t + i)];
            CHECK(a.sink_share[static_cast<std::size_t>(h * t + i)] == 0.0f); // the first layer has no sink
            CHECK(full.row(i).sum() == doctest::Approx(1.0).epsilon(1e-5));
            CHECK(sunk.row(i).sum() == doctest::Approx(1.0 - share).epsilon(1e-5));
            CHECK(share > 0.0f);
            mean += share;
        }
        CHECK(*a.scores[static_cast<std::size_t>(4 + h)].sink == doctest::Approx(mean / t).epsilon(1e-9));
    }
    // A decoding step after a cached prompt: the same logits and sink shares as the one-shot run's last row.
    KvCache cache;
    m.model->extend(cache, std::vector<int>(ids.begin(), ids.end() - 1), {});
    const ForwardResult step = m.model->extend(cache, {ids.back()}, {});
    CHECK(largest_difference(std::vector<float>(step.logits.data(), step.logits.data() + step.logits.size()),
                             std::vector<float>(a.logits.data() + (t - 1) * 20, a.logits.data() + t * 20)) < 1e-4);
    CHECK(step.sink_share[static_cast<std::size_t>(4 * 1)] == doctest::Approx(a.sink_share[static_cast<std::size_t>(4 * t + t - 1)]).epsilon(1e-5));
}
