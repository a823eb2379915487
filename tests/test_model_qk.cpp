// QK attribution on every fixture architecture: the pairs and the bias sum to the score the forward
// itself computes from its captured q and k; the keys a query sees; the top pairs in words. The
// numbers against NumPy (and the softmax of a row against the head's attention) are in
// tests/qk_numpy_test.py.
#include "core/model/circuits/qk.h"
#include "core/model/format/checkpoint.h"
#include "tests/checkpoint_fixtures.h"

#include <doctest/doctest.h>

#include <cmath>

namespace {

const char* const qk_architectures[] = {"gpt2", "llama_gqa", "qwen2", "mistral", "qwen3", "qwen3_sliding", "phi3",
                                          "gemma2", "gemma3_text", "gemma3", "bert"};

} // namespace

TEST_CASE("qk: pairs plus bias are the forward's own q · k times the scale, on every architecture") {
    fixtures::for_each_checkpoint(qk_architectures, [](const core::model::OpenedModel& m) {
        const auto& c = m.model->config();
        const std::vector<int> ids = {4, 9, 6, 2, 8, 9, 6, 3};
        core::model::ForwardOptions o;
        o.capture_qkv = true;
        o.logits = core::model::Logits::none;
        const core::model::ForwardResult r = m.model->forward(ids, o);
        for (int l = 0; l < c.layers; ++l) {
            const core::model::QkStream s = core::model::qk_stream(*m.model, ids, l);
            const int h = (l * 5 + 1) % c.heads, i = 7;
            const core::model::HeadCapture& cap = r.captures[static_cast<std::size_t>(l * c.heads + h)];
            for (int j : core::model::visible_keys(s, i)) {
                CAPTURE(l);
                CAPTURE(j);
                const core::model::QkAttribution a = core::model::qk_attribution(s, h, i, j);
                const double forward = s.weights.score_scale * cap.q.row(i).cast<double>().dot(cap.k.row(j).cast<double>());
                CHECK(std::abs(a.pairs.sum() + a.bias - a.score) <= 1e-9 * std::max(1.0, std::abs(a.score)));
                CHECK(std::abs(a.score - forward) <= 2e-5 * std::max(1.0, std::abs(forward)));
            }
        }
    });
}

TEST_CASE("qk: a query sees the keys of the head's causal mask and window") {
    NEED_CHECKPOINTS();
    const std::vector<int> ids = {4, 9, 6, 2, 8, 9, 6};
    const auto mistral = core::model::open_model(fixtures::checkpoints() + "/mistral"); // a window of 3
    CHECK(core::model::visible_keys(core::model::qk_stream(*mistral.model, ids, 0), 5) == std::vector<int>{3, 4, 5});
    const auto bert = core::model::open_model(fixtures::checkpoints() + "/bert"); // both ways
    CHECK(core::model::visible_keys(core::model::qk_stream(*bert.model, ids, 1), 2) == std::vector<int>{0, 1, 2, 3, 4, 5, 6});
    CHECK_THROWS_AS(core::model::qk_stream(*bert.model, ids, 2), core::model::InputError);
}

TEST_CASE("qk: the top pairs in words, largest first by size") {
    core::model::QkAttribution a;
    a.components = {"token embedding", "head 1.3", "MLP 2"};
    a.pairs = Eigen::MatrixXd::Zero(3, 3);
    a.pairs(0, 1) = 4.1;
    a.pairs(2, 0) = -1.24;
    a.pairs(1, 1) = 0.5;
    a.bias = 2.24;
    a.score = 5.6;
    const std::vector<std::string> top = core::model::top_pairs_in_words(a, 2);
    REQUIRE(top.size() == 2);
    CHECK(top[0] == "query's token embedding × key's output of head 1.3: +4.1 of 5.6");
    CHECK(top[1] == "query's output of MLP 2 × key's token embedding: -1.2 of 5.6");
    a.score = -0.25;
    CHECK(core::model::top_pairs_in_words(a, 1)[0] == "query's token embedding × key's output of head 1.3: +4.100 of -0.250");
}
