// Head probes on the fixture checkpoints, through core/model's forward: head importance's reruns
// from a layer against full ablated forwards, its progress and cancel, and the query–key view of a
// real head's captured q and k. The numbers against NumPy are in tests/probes_numpy_test.py.
#include "core/model/format/checkpoint.h"
#include "core/heads/compare.h"
#include "core/heads/qk_view.h"
#include "core/heads/rollout.h"
#include "core/heads/scores.h"
#include "core/model/head_importance.h"
#include "core/model/ops.h"
#include "tests/checkpoint_fixtures.h"

#include <doctest/doctest.h>

#include <atomic>
#include <cmath>

using core::model::ForwardOptions;

namespace {

// The prompt's loss from the model's full forward with head (l, h) zeroed.
double loss_without_head(const core::model::Model& model, const std::vector<int>& ids, int l, int h) {
    ForwardOptions o;
    o.ablate = {{l, h}};
    return *core::heads::prompt_loss(model.forward(ids, o).logits, ids);
}

} // namespace

TEST_CASE("model probes: head importance's reruns from a layer equal full forwards with that head zeroed") {
    NEED_CHECKPOINTS();
    for (const std::string name : {"gpt2", "llama_gqa"}) {
        CAPTURE(name);
        const auto m = core::model::open_model(fixtures::checkpoints() + "/" + name);
        const auto& c = m.model->config();
        const std::vector<int> ids = {4, 9, 6, 2, 8, 9, 6, 3};
        std::vector<int> seen;
        const core::model::HeadImportance imp = core::model::head_importance(*m.model, ids, nullptr, [&](int done, int total) {
            seen.push_back(done);
            CHECK(total == c.layers * c.heads);
        });
        CHECK(seen.size() == static_cast<size_t>(c.layers * c.heads));
        CHECK(seen.back() == c.layers * c.heads);
        CHECK(imp.loss == doctest::Approx(*core::heads::prompt_loss(m.model->forward(ids).logits, ids)).epsilon(1e-12));
        double largest = 0.0;
        for (int l = 0; l < c.layers; ++l)
            for (int h = 0; h < c.heads; ++h) {
                const double full = loss_without_head(*m.model, ids, l, h) - imp.loss;
                CHECK(imp.delta(l, h) == doctest::Approx(full).epsilon(1e-9).scale(1.0));
                largest = std::max(largest, std::abs(full));
            }
        CHECK(largest > 1e-3); // the heads matter, so the comparison means something
    }
}

TEST_CASE("model probes: copies of a sequence, each with its own knock-outs, equal one forward each") {
    NEED_CHECKPOINTS();
    // 9 tokens: the products take rows in fours, so the copies' rows group otherwise than one
    // sequence's and the two agree to float32 rounding rather than to the bit.
    const std::vector<int> ids = {4, 9, 6, 2, 8, 9, 6, 3, 5};
    const std::vector<std::vector<core::model::HeadRef>> copies = {{}, {{0, 1}}, {{1, 0}, {1, 1}}, {{0, 0}}};
    for (const std::string name : {"gpt2", "llama_gqa", "qwen2", "mistral", "bert"}) {
        for (const auto how : {core::model::Ablation::zero, core::model::Ablation::mean}) {
            CAPTURE(name);
            CAPTURE(static_cast<int>(how));
            const auto m = core::model::open_model(fixtures::checkpoints() + "/" + name);
            ForwardOptions o;
            o.attention = false;
            o.ablation = how;
            o.ablate = {{1, 1}};
            o.copies = copies;
            const core::model::MatrixF stacked = m.model->forward(ids, o).hidden; // (4 · 9, D)
            REQUIRE(stacked.rows() == static_cast<Eigen::Index>(copies.size() * ids.size()));
            for (size_t c = 0; c < copies.size(); ++c) {
                CAPTURE(c);
                ForwardOptions one;
                one.ablation = how;
                one.ablate = {{1, 1}};
                one.ablate.insert(one.ablate.end(), copies[c].begin(), copies[c].end());
                const core::model::MatrixF want = m.model->forward(ids, one).hidden;
                const auto got = stacked.middleRows(static_cast<Eigen::Index>(c * ids.size()), static_cast<Eigen::Index>(ids.size()));
                CHECK((got - want).cwiseAbs().maxCoeff() <= 1e-5f * (1.0f + want.cwiseAbs().maxCoeff()));
            }
        }
    }
    const auto gpt2 = core::model::open_model(fixtures::checkpoints() + "/gpt2");
    ForwardOptions with_attention;
    with_attention.copies = copies;
    CHECK_THROWS_WITH_AS(gpt2.model->forward(ids, with_attention), doctest::Contains("without attention"), core::model::InputError);
}

TEST_CASE("model probes: head importance at a length the batch groups otherwise equals full forwards to float32 rounding") {
    NEED_CHECKPOINTS();
    const auto m = core::model::open_model(fixtures::checkpoints() + "/llama_gqa");
    const auto& c = m.model->config();
    const std::vector<int> ids = {4, 9, 6, 2, 8, 9, 6, 3, 5, 7, 1};
    const core::model::HeadImportance imp = core::model::head_importance(*m.model, ids);
    for (int l = 0; l < c.layers; ++l)
        for (int h = 0; h < c.heads; ++h) {
            const double full = loss_without_head(*m.model, ids, l, h) - imp.loss;
            CHECK(imp.delta(l, h) == doctest::Approx(full).epsilon(1e-5).scale(1.0));
        }
}

TEST_CASE("model probes: the forward's own entropies and rollout equal the probes on its attention maps") {
    NEED_CHECKPOINTS();
    const std::vector<int> ids = {4, 9, 6, 2, 8, 9, 6, 3, 5, 9, 6};
    for (const std::string name : {"gpt2", "llama_gqa", "mistral", "bert"}) {
        CAPTURE(name);
        const auto m = core::model::open_model(fixtures::checkpoints() + "/" + name);
        ForwardOptions o;
        o.rollout = true;
        const core::model::ForwardResult r = m.model->forward(ids, o);
        const int t = static_cast<int>(ids.size());
        const core::model::MatrixF want = core::heads::rollout(r.maps.all().data(), r.layers, r.heads, t, &core::model::ops::product);
        REQUIRE(r.rollout.rows() == t);
        CHECK((r.rollout - want).cwiseAbs().maxCoeff() == 0.0f); // the same products in the same order
        const core::model::MatrixF eigen = core::heads::rollout(r.maps.all().data(), r.layers, r.heads, t); // Eigen's products
        CHECK((r.rollout - eigen).cwiseAbs().maxCoeff() < 1e-6f);
        const core::heads::ScoreIndex index = core::heads::score_index(ids);
        const auto from_softmax = core::model::all_head_scores(r, index);
        const auto from_maps = core::heads::all_head_scores(r.maps.all().data(), r.layers, r.heads, index);
        REQUIRE(from_softmax.size() == from_maps.size());
        double spread = 0.0;
        for (size_t k = 0; k < from_maps.size(); ++k) {
            CHECK(from_softmax[k].previous == from_maps[k].previous);
            CHECK(from_softmax[k].duplicate == from_maps[k].duplicate);
            CHECK(from_softmax[k].induction == from_maps[k].induction);
            CHECK(from_softmax[k].entropy == doctest::Approx(from_maps[k].entropy).epsilon(1e-5));
            spread = std::max(spread, std::abs(from_maps[k].entropy - from_maps[0].entropy));
        }
        CHECK(spread > 1e-3); // the heads differ, so the comparison means something
    }
    const auto gpt2 = core::model::open_model(fixtures::checkpoints() + "/gpt2");
    ForwardOptions no_maps;
    no_maps.rollout = true;
    no_maps.attention = false;
    CHECK_THROWS_AS(gpt2.model->forward(ids, no_maps), core::model::InputError);
    core::model::KvCache cache;
    gpt2.model->extend(cache, {1, 2}, {});
    ForwardOptions more;
    more.rollout = true;
    CHECK_THROWS_WITH_AS(gpt2.model->extend(cache, {3}, more), doctest::Contains("whole sequence"), core::model::InputError);
}

TEST_CASE("model probes: head importance stops when cancelled and refuses a model without a next-token loss") {
    NEED_CHECKPOINTS();
    const auto gpt2 = core::model::open_model(fixtures::checkpoints() + "/gpt2");
    std::atomic<bool> stop{false};
    int calls = 0;
    CHECK_THROWS_AS(core::model::head_importance(*gpt2.model, {1, 2, 3}, &stop, [&](int, int) { ++calls, stop = true; }), core::model::Cancelled);
    CHECK(calls == 1);
    CHECK_THROWS_AS(core::model::head_importance(*gpt2.model, {1}), core::model::InputError);
    const auto bert = core::model::open_model(fixtures::checkpoints() + "/bert");
    CHECK_THROWS_WITH_AS(core::model::head_importance(*bert.model, {2, 4, 3}), doctest::Contains("next-token loss"), core::model::InputError);

    // A rerun needs the stream of the same positions and an empty cache.
    std::vector<core::model::MatrixF> residuals;
    ForwardOptions keep;
    keep.residuals = &residuals;
    gpt2.model->forward({1, 2, 3}, keep);
    REQUIRE(residuals.size() == 2);
    ForwardOptions resume;
    resume.resume_layer = 1;
    resume.resume_from = &residuals[1];
    CHECK_THROWS_AS(gpt2.model->forward({1, 2, 3, 4}, resume), core::model::InputError);
}

TEST_CASE("model probes: the query-key view of a captured head keeps the model's weights, with RoPE and GQA") {
    NEED_CHECKPOINTS();
    for (const std::string name : {"gpt2", "llama_gqa", "bert", "qwen3", "phi4_mini"}) {
        CAPTURE(name);
        const auto m = core::model::open_model(fixtures::checkpoints() + "/" + name);
        const auto& c = m.model->config();
        ForwardOptions o;
        o.capture_qkv = true;
        const std::vector<int> ids = {4, 1, 6, 2, 8, 1};
        const core::model::ForwardResult r = m.model->forward(ids, o);
        const int l = c.layers - 1, h = c.heads - 1, t = static_cast<int>(ids.size());
        const auto& cap = r.captures[static_cast<size_t>(l * c.heads + h)];
        const core::heads::QKView v = core::heads::query_key_view(cap.q.cast<double>(), cap.k.cast<double>());
        const core::model::MatrixF A = r.maps.head(l, h); // (t, t)
        for (int i = 0; i < t; ++i) {
            const int visible = c.causal ? i + 1 : t;
            const Eigen::RowVectorXd s = (v.queries.row(i) * v.keys.topRows(visible).transpose()) / std::sqrt(static_cast<double>(c.d_head));
            const Eigen::RowVectorXd w = (s.array() - s.maxCoeff()).exp().matrix();
            CHECK((w / w.sum() - A.row(i).head(visible).cast<double>()).cwiseAbs().maxCoeff() < 1e-5);
        }
        CHECK(v.variance_kept > 0.0);
        CHECK(v.variance_kept <= 1.0);
    }
}
