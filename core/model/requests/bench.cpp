// core/model/requests/bench.cpp — see bench.h.
#include "core/model/requests/bench.h"

#include "core/heads/scores.h"
#include "core/model/next_token.h"
#include "core/model/session.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>
#include <vector>

namespace core::model {

namespace {

using Clock = std::chrono::steady_clock;

double ms_between(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double, std::milli>(b - a).count(); }

// The median, to the hundredth.
double median_of(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t mid = v.size() / 2;
    return std::round((v.size() % 2 ? v[mid] : (v[mid - 1] + v[mid]) / 2) * 100) / 100;
}

// One decoding step after the prompt `ids`, as generating runs it: the next id through the cache
// the prompt filled, its logits over the vocabulary, no maps. The median of `reps` steps, each on
// a copy of the same cache (a hybrid's linear layers continue from their kept state); none for a
// model that does not generate, or cannot continue a cached sequence.
std::optional<double> decode_step_ms(const Model& model, const std::vector<int>& ids, ForwardOptions fo, int reps) {
    if (!model.causal() || !model.config().lm_head || static_cast<int>(ids.size()) >= model.config().context) return std::nullopt;
    fo.attention = false;
    fo.rollout = false;
    fo.scores = nullptr;
    fo.thumbnail_side = 0;
    fo.logits = Logits::none;
    KvCache prompt;
    model.extend(prompt, ids, fo);
    fo.logits = Logits::last;
    std::vector<double> ms;
    for (int i = 0; i <= reps; ++i) { // the first step is a warm-up
        KvCache cache = prompt;
        const auto t0 = Clock::now();
        try {
            model.extend(cache, {ids.front()}, fo);
        } catch (const InputError&) {
            return std::nullopt;
        }
        if (i) ms.push_back(ms_between(t0, Clock::now()));
    }
    std::sort(ms.begin(), ms.end());
    return std::round(ms[ms.size() / 2] * 100) / 100;
}

} // namespace

// What the window runs: the forward keeping what rebuilds every map, with the rollout (up to
// rollout_most tokens), every head's scores and thumbnails made from each map as it is computed,
// then every position's top 10 and the loss from the hidden states (the (t, vocab) logits never held).
// forward_ms is the forward alone, what a prefill that computes no logits compares with; median_ms
// adds the top 10 over the whole vocabulary.
BenchResult bench_model(const Model& model, const BenchRequest& q, const std::string& model_path) {
    const ModelConfig& c = model.config();
    if (q.tokens > c.context) throw InputError("--tokens " + std::to_string(q.tokens) + " is past the context; " + model_path + " takes at most " + std::to_string(c.context));
    std::mt19937 rng(1);
    std::vector<int> ids(static_cast<std::size_t>(q.tokens));
    for (int& id : ids) id = static_cast<int>(rng() % static_cast<unsigned>(c.vocab));
    ForwardOptions fo = q.options;
    fo.logits = Logits::none;
    fo.rollout = q.tokens <= rollout_most;
    const core::heads::ScoreIndex index = core::heads::score_index(ids);
    fo.scores = &index;
    fo.thumbnail_side = std::min(q.tokens, thumbnail_most);
    auto top = [&](const ForwardResult& r) {
        if (c.lm_head) next_tokens(model, r.hidden, ids, 10, {}, fo.fast_products);
    };
    top(model.forward(ids, fo)); // warm-up: weights paged in, buffers allocated
    std::vector<double> ms, forward_ms;
    BenchResult b;
    for (int i = 0; i < q.reps; ++i) {
        const auto t0 = Clock::now();
        const ForwardResult r = model.forward(ids, fo);
        const auto t1 = Clock::now();
        top(r);
        b.attention_mb = static_cast<double>(r.maps.bytes()) / (1 << 20);
        forward_ms.push_back(ms_between(t0, t1));
        ms.push_back(ms_between(t0, Clock::now()));
    }
    b.median_ms = median_of(ms);
    b.min_ms = std::round(*std::min_element(ms.begin(), ms.end()) * 100) / 100;
    b.forward_ms = median_of(forward_ms);
    b.step_ms = decode_step_ms(model, ids, fo, q.reps);
    return b;
}

} // namespace core::model
