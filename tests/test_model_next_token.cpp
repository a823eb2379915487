// The next-token view streamed over the vocabulary (core/model/next_token.h) against the softmax of
// a forward's full logits, on the fixture checkpoints: the top ids and their probabilities, the
// prompt's loss, BERT's [MASK] rows, stacked copies, and what it refuses.
#include "core/model/format/checkpoint.h"
#include "core/model/next_token.h"
#include "core/heads/compare.h"
#include "tests/checkpoint_fixtures.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <utility>
#include <vector>

namespace {

using core::model::ForwardOptions;
using core::model::MatrixF;

// The k most likely ids of one row of logits and their softmax probabilities, in double.
std::vector<std::pair<int, double>> reference_top(const float* row, int vocab, int k) {
    double top = row[0];
    for (int j = 1; j < vocab; ++j) top = std::max(top, static_cast<double>(row[j]));
    double z = 0.0;
    for (int j = 0; j < vocab; ++j) z += std::exp(static_cast<double>(row[j]) - top);
    std::vector<int> order(static_cast<size_t>(vocab));
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return row[a] > row[b]; });
    std::vector<std::pair<int, double>> out;
    for (int i = 0; i < std::min(k, vocab); ++i) out.emplace_back(order[static_cast<size_t>(i)], std::exp(row[order[static_cast<size_t>(i)]] - top) / z);
    return out;
}

} // namespace

TEST_CASE("next tokens: the top ids, their probabilities and the loss equal the full logits' softmax") {
    NEED_CHECKPOINTS();
    for (const std::string name : {"gpt2", "llama_gqa", "qwen2", "bert"}) {
        CAPTURE(name);
        const auto m = core::model::open_model(fixtures::checkpoints() + "/" + name);
        const int vocab = m.model->config().vocab;
        const std::vector<int> ids = {4, 9, 6, 2, 8, 9, 6, 3, 5};
        const core::model::ForwardResult full = m.model->forward(ids);
        ForwardOptions none;
        none.logits = core::model::Logits::none;
        const core::model::ForwardResult bare = m.model->forward(ids, none);
        CHECK(bare.logits.size() == 0);
        REQUIRE((bare.hidden - full.hidden).cwiseAbs().maxCoeff() == 0.0f);
        const core::model::NextTokens nt = core::model::next_tokens(*m.model, bare.hidden, ids, 10);
        REQUIRE(nt.top.size() == ids.size());
        for (size_t i = 0; i < ids.size(); ++i) {
            CAPTURE(i);
            const auto want = reference_top(full.logits.data() + static_cast<std::ptrdiff_t>(i) * vocab, vocab, 10);
            REQUIRE(nt.top[i].size() == want.size());
            for (size_t k = 0; k < want.size(); ++k) {
                CHECK(nt.top[i][k].id == want[k].first);
                CHECK(nt.top[i][k].probability == doctest::Approx(want[k].second).epsilon(1e-12));
            }
        }
        if (m.model->causal()) {
            REQUIRE(nt.loss.has_value());
            CHECK(*nt.loss == doctest::Approx(*core::heads::prompt_loss(full.logits, ids)).epsilon(1e-12));
            // Three stacked copies of the hidden states: three equal losses (up to float32 rounding: the
            // product's kernel takes rows in fours, and 3 · 9 rows group otherwise than 9).
            MatrixF stacked(3 * bare.hidden.rows(), bare.hidden.cols());
            stacked << bare.hidden, bare.hidden, bare.hidden;
            const std::vector<double> losses = core::model::prompt_losses(*m.model, stacked, ids);
            REQUIRE(losses.size() == 3);
            for (double l : losses) CHECK(l == doctest::Approx(*nt.loss).epsilon(1e-6));
        } else {
            CHECK_FALSE(nt.loss.has_value());
        }
    }
}

TEST_CASE("next tokens: only the rows asked for, and what is refused") {
    NEED_CHECKPOINTS();
    const auto bert = core::model::open_model(fixtures::checkpoints() + "/bert");
    const std::vector<int> ids = {2, 4, 3, 5};
    const core::model::ForwardResult r = bert.model->forward(ids);
    const core::model::NextTokens nt = core::model::next_tokens(*bert.model, r.hidden, ids, 3, {false, true, false, true});
    CHECK(nt.top[0].empty());
    CHECK(nt.top[2].empty());
    REQUIRE(nt.top[1].size() == 3);
    CHECK(nt.top[1][0].probability >= nt.top[1][1].probability);
    CHECK(nt.top[1][1].probability >= nt.top[1][2].probability);
    CHECK_THROWS_AS(core::model::next_tokens(*bert.model, r.hidden, {2, 4, 3}, 3), core::model::InputError);
    CHECK_THROWS_AS(core::model::next_tokens(*bert.model, r.hidden, ids, 3, {true}), core::model::InputError);
    const auto base = core::model::open_model(fixtures::checkpoints() + "/bert_base");
    const core::model::ForwardResult h = base.model->forward(ids);
    CHECK(h.logits.size() == 0);
    CHECK_THROWS_WITH_AS(core::model::next_tokens(*base.model, h.hidden, ids, 3), doctest::Contains("no LM head"), core::model::InputError);
}

TEST_CASE("next tokens: a block's best logits equal a stable sort's, with ties, NaN and blocks of any size") {
    std::mt19937 rng(3);
    auto sorted_best = [](const std::vector<float>& row, int v0, int top) { // (id, logit): higher first, the lower id on a tie
        std::vector<int> order(row.size());
        for (std::size_t j = 0; j < order.size(); ++j) order[j] = static_cast<int>(j);
        std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return row[static_cast<std::size_t>(a)] > row[static_cast<std::size_t>(b)]; });
        std::vector<std::pair<int, float>> out;
        for (int k = 0; k < std::min<int>(top, static_cast<int>(row.size())); ++k) out.push_back({v0 + order[static_cast<std::size_t>(k)], row[static_cast<std::size_t>(order[static_cast<std::size_t>(k)])]});
        return out;
    };
    int cases = 0;
    for (int n : {1, 9, 15, 16, 17, 160, 2047, 2048}) {
        for (int top : {1, 3, 10, 16, 20}) {
            for (int kind = 0; kind < 3; ++kind) { // spread logits; a few values, many ties; rising logits
                CAPTURE(n);
                CAPTURE(top);
                CAPTURE(kind);
                std::vector<float> row(static_cast<std::size_t>(n));
                std::normal_distribution<float> spread(0.0f, 4.0f);
                std::uniform_int_distribution<int> few(0, 3);
                for (int j = 0; j < n; ++j)
                    row[static_cast<std::size_t>(j)] = kind == 0 ? spread(rng) : kind == 1 ? static_cast<float>(few(rng)) : 0.01f * static_cast<float>(j);
                std::vector<core::model::Candidate> got(static_cast<std::size_t>(top));
                const int count = core::model::keep_top(row.data(), 500, n, top, got.data());
                const auto want = sorted_best(row, 500, top);
                REQUIRE(count == static_cast<int>(want.size()));
                for (int k = 0; k < count; ++k) {
                    CHECK(got[static_cast<std::size_t>(k)].id == want[static_cast<std::size_t>(k)].first);
                    CHECK(got[static_cast<std::size_t>(k)].logit == want[static_cast<std::size_t>(k)].second);
                }
                ++cases;
            }
        }
    }
    CHECK(cases == 8 * 5 * 3);
    // A NaN among the logits: every logit offered in order, as before there was a floor, so the
    // best of the others still come out.
    std::vector<float> row(64, 1.0f);
    row[40] = 5.0f;
    row[3] = std::numeric_limits<float>::quiet_NaN();
    std::vector<core::model::Candidate> got(3);
    REQUIRE(core::model::keep_top(row.data(), 0, 64, 3, got.data()) == 3);
    CHECK(got[0].id == 40);
    CHECK(got[1].id == 0);
    CHECK(got[2].id == 1);
}
