// The residual stream's components on every fixture architecture: they sum to the stream entering
// each layer, and after the last layer, through the final norm frozen at the run's scale and the
// LM head, to the model's logits. The numbers against NumPy are in tests/circuits_numpy_test.py.
#include "core/model/circuits/attribution.h"
#include "core/model/circuits/lens.h"
#include "core/model/circuits/parts.h"
#include "core/model/circuits/patching.h"
#include "core/model/format/checkpoint.h"
#include "tests/checkpoint_fixtures.h"

#include <doctest/doctest.h>

#include <cmath>

using core::model::ForwardOptions;
using core::model::MatrixF;

namespace {

const char* const circuit_architectures[] = {"gpt2", "llama_gqa", "qwen2", "mistral", "qwen3", "qwen3_moe", "gpt_oss", "phi3", "gemma2", "gemma3_text",
                                          "bert", "bert_base"};

// The largest |a − b| over the largest |b|.
double relative(const MatrixF& a, const MatrixF& b) { return (a - b).cwiseAbs().maxCoeff() / std::max(b.cwiseAbs().maxCoeff(), 1e-30f); }

MatrixF sum_of(const core::model::StreamParts& p) {
    MatrixF s = p.parts.at(0);
    for (std::size_t c = 1; c < p.parts.size(); ++c) s += p.parts[c];
    return s;
}

} // namespace

TEST_CASE("circuits: the stream's components sum to the stream entering every layer, on every architecture") {
    fixtures::for_each_checkpoint(circuit_architectures, [](const core::model::OpenedModel& m) {
        const auto& c = m.model->config();
        const std::vector<int> ids = {4, 9, 6, 2, 8, 9, 6, 3};
        std::vector<MatrixF> residuals; // (layers) × (t, D)
        ForwardOptions o;
        o.residuals = &residuals;
        o.logits = core::model::Logits::none;
        m.model->forward(ids, o);
        for (int l = 0; l < c.layers; ++l) {
            CAPTURE(l);
            const core::model::StreamParts p = core::model::stream_parts(*m.model, ids, l);
            CHECK(p.names.size() == p.parts.size());
            const int heads_before = l * c.heads;
            int heads_named = 0;
            for (const std::string& n : p.names) heads_named += n.rfind("head ", 0) == 0;
            CHECK(heads_named == heads_before);
            CHECK(relative(sum_of(p), residuals[static_cast<std::size_t>(l)]) < 2e-6);
        }
    });
}

TEST_CASE("circuits: after the last layer, the components through the frozen final norm give the model's logits") {
    fixtures::for_each_checkpoint(circuit_architectures, [](const core::model::OpenedModel& m) {
        const auto& c = m.model->config();
        const std::vector<int> ids = {4, 9, 6, 2, 8, 9, 6, 3};
        const core::model::ForwardResult r = m.model->forward(ids);
        core::model::StreamParts p = core::model::stream_parts(*m.model, ids, c.layers);
        CHECK(core::model::part_index(p, "head " + std::to_string(c.layers) + "." + std::to_string(c.heads)) >= 0);
        CHECK(core::model::part_index(p, "MLP " + std::to_string(c.layers)) >= 0);
        CHECK(core::model::part_index(p, "token embedding") == 0);
        if (!m.model->linear_head() || r.logits.size() == 0) { // BERT: the stream itself is the last hidden state
            CHECK(relative(sum_of(p), r.hidden) < 2e-6);
            return;
        }
        const auto u = m.model->unembedding();
        Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> W(c.vocab, c.d_model); // (V, D)
        u.weight->rows(0, c.vocab, W.data());
        for (int i = 0; i < static_cast<int>(ids.size()); ++i) {
            CAPTURE(i);
            const Eigen::MatrixXd rows = core::model::through_final_norm(*m.model, p, i); // (C, D)
            Eigen::RowVectorXd logits = rows.colwise().sum() * W.cast<double>().transpose(); // (V)
            if (u.bias) logits += Eigen::Map<const Eigen::RowVectorXf>(u.bias, c.vocab).cast<double>();
            const double cap = u.softcap;
            if (cap > 0) logits = (logits.array() / cap).tanh() * cap;
            const Eigen::RowVectorXd model = r.logits.row(i).cast<double>();
            CHECK((logits - model).cwiseAbs().maxCoeff() < 1e-5 * model.cwiseAbs().maxCoeff());
        }
    });
}

TEST_CASE("circuits: the logit lens's last layer is the model's own output, and direct attributions sum to the logit") {
    fixtures::for_each_checkpoint(circuit_architectures, [](const core::model::OpenedModel& m) {
        const auto& c = m.model->config();
        const std::vector<int> ids = {4, 9, 6, 2, 8, 9, 6, 3};
        const int t = static_cast<int>(ids.size());
        const core::model::ForwardResult r = m.model->forward(ids);
        if (r.logits.size() == 0) { // a bare encoder
            CHECK_THROWS_AS(core::model::logit_lens(*m.model, ids, 3), core::model::InputError);
            return;
        }
        const core::model::LogitLens lens = core::model::logit_lens(*m.model, ids, 3);
        for (int i = 0; i < t; ++i) {
            const std::size_t at = static_cast<std::size_t>((c.layers - 1) * t + i);
            const Eigen::RowVectorXd row = r.logits.row(i).cast<double>();
            const Eigen::RowVectorXd p = (row.array() - row.maxCoeff()).exp() / (row.array() - row.maxCoeff()).exp().sum();
            CHECK(lens.top[at * 3] == core::model::argmax(r.logits.row(i).data(), c.vocab));
            CHECK(lens.p[at * 3] == doctest::Approx(p.maxCoeff()).epsilon(1e-9));
            if (i + 1 < t) CHECK(lens.p_next[at] == doctest::Approx(p(ids[static_cast<std::size_t>(i) + 1])).epsilon(1e-9));
        }
        CHECK(std::isnan(lens.p_next.back()));
        if (!m.model->linear_head()) {
            CHECK_THROWS_AS(core::model::direct_attribution(*m.model, ids, 5, -1, t - 1), core::model::InputError);
            return;
        }
        for (const int vs : {-1, 7}) {
            const core::model::Attribution a = core::model::direct_attribution(*m.model, ids, 5, vs, 3);
            double sum = a.embed + a.bias + a.heads.sum(), size = std::abs(a.embed) + std::abs(a.bias) + a.heads.cwiseAbs().sum();
            for (const double x : a.mlps) {
                sum += x;
                size += std::abs(x);
            }
            const double own = r.logits(3, 5) - (vs < 0 ? 0.0 : r.logits(3, vs));
            CHECK(std::abs(sum - a.logit) <= 1e-6 * size); // float32 rounding at the scale of the terms
            if (m.model->unembedding().softcap <= 0) CHECK(a.logit == doctest::Approx(own).epsilon(1e-5));
            CHECK(a.heads.cwiseAbs().maxCoeff() > 1e-3); // the heads write something toward it
        }
    });
}

TEST_CASE("circuits: a forward for the last position alone gives each copy's last row as the whole forward does") {
    fixtures::for_each_checkpoint(circuit_architectures, [](const core::model::OpenedModel& m) {
        const int layers = m.model->config().layers;
        const std::vector<int> ids = {4, 9, 6, 2, 8, 9, 6, 3};
        const int t = static_cast<int>(ids.size());
        for (const int from : {0, layers - 1}) {
            CAPTURE(from);
            std::vector<MatrixF> residuals; // (layers) × (t, D)
            ForwardOptions o;
            o.attention = false;
            o.logits = core::model::Logits::none;
            o.residuals = &residuals;
            m.model->forward(ids, o);
            o.residuals = nullptr;
            o.resume_layer = from;
            o.resume_from = &residuals[static_cast<std::size_t>(from)];
            o.copies = {{{from, 0}}, {}};
            const MatrixF whole = m.model->forward(ids, o).hidden; // (2 · t, D)
            o.last_position_only = true;
            const MatrixF last = m.model->forward(ids, o).hidden;
            for (const int row : {t - 1, 2 * t - 1}) {
                CAPTURE(row);
                CHECK(relative(last.row(row), whole.row(row)) < 1e-6);
            }
            CHECK(relative(whole.row(t - 1), whole.row(2 * t - 1)) > 1e-6); // the copies differ: one knocks a head out
        }
        ForwardOptions all;
        all.last_position_only = true;
        CHECK_THROWS_AS(m.model->forward(ids, all), core::model::InputError); // Logits::all would read the other rows
    });
}

TEST_CASE("forward: a stream of more rows than mlp_rows goes through the MLP a block at a time, as one row would") {
    fixtures::for_each_checkpoint(circuit_architectures, [](const core::model::OpenedModel& m) {
        const std::vector<int> ids = {4, 9, 6, 2, 8, 9, 6, 3};
        const int t = static_cast<int>(ids.size()), copies = core::model::mlp_rows / t + 3; // blocks of 2048, then 24 rows
        ForwardOptions o;
        o.attention = false;
        o.logits = core::model::Logits::none;
        const MatrixF one = m.model->forward(ids, o).hidden; // (t, D)
        o.copies.assign(static_cast<std::size_t>(copies), {});
        const MatrixF many = m.model->forward(ids, o).hidden; // (copies · t, D)
        REQUIRE(many.rows() > core::model::mlp_rows);
        for (const int c : {0, copies / 2, copies - 1}) {
            CAPTURE(c);
            CHECK(relative(many.middleRows(c * t, t), one) < 1e-6);
        }
    });
}

TEST_CASE("circuits: patching every head recovers 1, nothing 0, and one head's patch equals a full forward with it patched") {
    fixtures::for_each_checkpoint(circuit_architectures, [](const core::model::OpenedModel& m) {
        const auto& c = m.model->config();
        if (!m.model->unembedding().weight) return;
        const std::vector<int> clean = {4, 9, 6, 2, 8, 9, 6, 3}, corrupt = {4, 11, 6, 2, 8, 12, 6, 3};
        const core::model::PatchMetric metric{5, 7, false};
        const core::model::Patching p = core::model::activation_patching(*m.model, clean, corrupt, metric, core::model::PatchBy::head);
        REQUIRE(p.recovery.rows() == c.layers);
        REQUIRE(p.recovery.cols() == c.heads);
        CHECK(std::abs(p.clean_metric - p.corrupt_metric) > 1e-3); // the corruption changes the metric
        std::vector<core::model::HeadRef> all;
        for (int l = 0; l < c.layers; ++l)
            for (int h = 0; h < c.heads; ++h) all.push_back({l, h});
        const auto recovery = [&](double x) { return (x - p.corrupt_metric) / (p.clean_metric - p.corrupt_metric); };
        CHECK(recovery(core::model::patched_metric(*m.model, clean, corrupt, metric, all)) == doctest::Approx(1.0).epsilon(1e-4));
        CHECK(recovery(core::model::patched_metric(*m.model, clean, corrupt, metric, {})) == doctest::Approx(0.0).epsilon(1e-9).scale(1.0));
        for (int l = 0; l < c.layers; ++l)
            for (int h = 0; h < c.heads; ++h) {
                const double full = recovery(core::model::patched_metric(*m.model, clean, corrupt, metric, {{l, h}}));
                CHECK(p.recovery(l, h) == doctest::Approx(full).epsilon(1e-4).scale(1.0));
            }
        const core::model::Patching s = core::model::activation_patching(*m.model, clean, corrupt, metric, core::model::PatchBy::position);
        REQUIRE(s.recovery.cols() == static_cast<Eigen::Index>(corrupt.size()));
        CHECK(s.recovery(0, 1) + s.recovery(0, 5) != doctest::Approx(0.0)); // the corrupted positions matter
        CHECK(s.recovery(0, 0) == doctest::Approx(0.0).scale(1.0)); // an unchanged token's embedding
    });
}
