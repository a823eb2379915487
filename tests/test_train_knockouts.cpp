// Knocking heads out of the tiny transformer, and its heads' scores on the probe sequence: what a
// knock-out does to a head's output, and on the default repeat run, which heads the task needs.
#include "core/train/knockouts.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <memory>

using namespace core::train;

namespace {

Model random_model(const ModelConfig& m, std::uint64_t seed) {
    Model model(m);
    Rng rng(seed);
    initialise(model, Init::large, rng);
    for (const TensorSpec& s : model.layout.tensors)
        if (s.decay)
            for (size_t i = s.offset; i < s.offset + s.size(); ++i) model.params[i] = 0.5 * rng.normal();
    return model;
}

// The default repeat run (`--train repeat`: seed 1, its 1000-step schedule), stopped at step 600 where
// its heads have formed (the induction score passes 0.5 near step 470): trained once for every case.
const Trainer& default_repeat_run() {
    static const std::unique_ptr<Trainer> trainer = [] {
        TrainConfig c;
        c.task = Task::repeat;
        c.threads = 2;
        auto t = std::make_unique<Trainer>(c);
        for (int i = 0; i < 600; ++i) t->step();
        return t;
    }();
    return *trainer;
}

} // namespace

TEST_CASE("train knock-outs: zero equals a W_O without the head's rows — mean puts each column's mean over its sequence") {
    const ModelConfig m{7, 6, 8, 2, 2, true};
    Model model = random_model(m, 5);
    Rng rng(2);
    const Batch batch = make_batch(Task::previous, m, 3, rng);
    const int dk = m.d_head();

    Workspace intact, knocked, reference;
    forward_all(model, batch, intact);
    const Knockouts zero{{{1, 0}}, core::heads::Ablation::zero};
    forward_all(model, batch, knocked, &zero);
    Model without = model;
    without.tensor(without.layout.layers[1].W_O).topRows(dk).setZero(); // head 1's rows of (H·d_head, D)
    forward_all(without, batch, reference);
    CHECK((knocked.logits - reference.logits).cwiseAbs().maxCoeff() <= 1e-12);
    CHECK((knocked.logits - intact.logits).cwiseAbs().maxCoeff() > 1e-3);

    const Knockouts mean{{{0, 1}}, core::heads::Ablation::mean};
    forward_all(model, batch, knocked, &mean);
    for (int b = 0; b < batch.B; ++b) {
        const core::Matrix y = intact.layers[0].y.block(b * m.T, dk, m.T, dk); // (t, d_head) of the intact run
        const Eigen::RowVectorXd column_means = y.colwise().mean();
        for (int i = 0; i < m.T; ++i)
            CHECK((knocked.layers[0].y.block(b * m.T + i, dk, 1, dk) - column_means).cwiseAbs().maxCoeff() <= 1e-12);
        CHECK((knocked.layers[0].y.block(b * m.T, 0, m.T, dk) - intact.layers[0].y.block(b * m.T, 0, m.T, dk)).cwiseAbs().maxCoeff() == 0.0);
    }
    CHECK((knocked.logits - intact.logits).cwiseAbs().maxCoeff() > 1e-3);

    const Knockouts bad{{{2, 0}}, core::heads::Ablation::zero};
    CHECK_THROWS_WITH_AS(forward_all(model, batch, knocked, &bad), doctest::Contains("no head 3.1"), std::invalid_argument);
}

TEST_CASE("train knock-outs: the default repeat run has an induction head in layer 2 and needs its layer-1 previous-token head") {
    const Trainer& run = default_repeat_run();
    const ModelConfig& m = run.config().model;
    const std::vector<core::heads::HeadScores> scores = probe_scores(run.model(), m.T / 2, 1);
    REQUIRE(scores.size() == static_cast<size_t>(m.L * m.H));
    int best_induction = 0, best_previous = 0;
    for (int i = 0; i < m.L * m.H; ++i) {
        REQUIRE(scores[static_cast<size_t>(i)].induction);
        if (*scores[static_cast<size_t>(i)].induction > *scores[static_cast<size_t>(best_induction)].induction) best_induction = i;
        if (i < m.H && *scores[static_cast<size_t>(i)].previous > *scores[static_cast<size_t>(best_previous)].previous) best_previous = i;
    }
    const double induction = *scores[static_cast<size_t>(best_induction)].induction;
    CAPTURE(best_induction);
    CAPTURE(induction);
    CHECK(best_induction / m.H == 1); // layer 2
    CHECK(induction >= 0.5);

    const Batch& repeat = run.held_out_repeat();
    const double intact = evaluate(run.model(), repeat).accuracy;
    CHECK(intact >= 0.8);
    for (const core::heads::Ablation mode : {core::heads::Ablation::zero, core::heads::Ablation::mean}) {
        const double without = evaluate(run.model(), repeat, Knockouts{{{0, best_previous}}, mode}).accuracy;
        CAPTURE(best_previous);
        CAPTURE(without);
        CHECK(without < 0.5);
    }
}

TEST_CASE("train knock-outs: the table lists the intact model, every head, then every layer, with what each leaves") {
    const Trainer& run = default_repeat_run();
    const ModelConfig& m = run.config().model;
    const std::vector<KnockoutRow> rows = knockout_table(run.model(), run.held_out_repeat());
    REQUIRE(rows.size() == static_cast<size_t>(1 + m.L * m.H + m.L));
    CHECK(rows[0].label == "intact");
    CHECK(rows[0].knockouts.heads.empty());
    CHECK(rows[1].label == "L1 H1");
    CHECK(rows[static_cast<size_t>(m.L * m.H)].label == "L2 H4");
    CHECK(rows.back().label == "all of layer 2");
    CHECK(rows.back().knockouts.heads.size() == static_cast<size_t>(m.H));
    CHECK(rows[0].score.accuracy == evaluate(run.model(), run.held_out_repeat()).accuracy);
    CHECK(rows.back().score.accuracy < 0.2); // no induction without layer 2
    CHECK(rows.back().score.loss > rows[0].score.loss);
    CHECK_THROWS_AS(probe_scores(run.model(), m.T / 2 + 1, 1), std::invalid_argument);
}
