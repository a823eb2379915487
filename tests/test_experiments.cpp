// The experiments behind the "why √d_k", "order" and multi-head views.
#include "core/attention.h"
#include "core/edits.h"
#include "core/experiments.h"
#include "core/presets.h"

#include <doctest/doctest.h>

TEST_CASE("q·k of unit-variance vectors has variance ≈ d_k — divided by √d_k, ≈ 1") {
    for (int d_k : {4, 16, 64, 256}) {
        CAPTURE(d_k);
        const core::ScalingExperiment e = core::run_scaling_experiment(d_k, 10000, 16, 42);
        CHECK(e.dots.size() == 10000);
        CHECK(std::abs(e.variance_raw - d_k) <= 0.10 * d_k);
        CHECK(std::abs(e.variance_scaled - 1.0) <= 0.10);
    }
}

TEST_CASE("with d_k = 64 the unscaled softmax is much sharper than the scaled one") {
    const core::ScalingExperiment e = core::run_scaling_experiment(64, 1000, 16, 7);
    CHECK(e.softmax_raw.sum() == doctest::Approx(1.0));
    CHECK(e.softmax_scaled.sum() == doctest::Approx(1.0));
    CHECK(e.softmax_raw.maxCoeff() > 0.9);
    CHECK(e.softmax_scaled.maxCoeff() < e.softmax_raw.maxCoeff());
}

TEST_CASE("histogram: equal bins, every value counted once") {
    const core::Histogram h = core::make_histogram({-10, -0.5, 0.1, 0.2, 0.9, 10}, 1.0, 4, -1, 1);
    CHECK(h.counts == std::vector<int>{1, 1, 2, 2}); // [-1, -0.5) [-0.5, 0) [0, 0.5) [0.5, 1]
}

TEST_CASE("without positional encoding, shuffling the tokens permutes the outputs exactly") {
    {
        const core::Scenario s = core::preset_it_sentence();
        const std::vector<int> perm = core::edits::random_permutation(s.n(), 3);
        CHECK_FALSE(std::is_sorted(perm.begin(), perm.end()));
        const core::Result before = core::compute(s);
        core::Scenario shuffled = s;
        core::edits::permute_tokens(shuffled, perm);
        CHECK(shuffled.tokens[0] == s.tokens[perm[0]]);
        const core::Result after = core::compute(shuffled);
        for (int i = 0; i < s.n(); ++i)
            CHECK((after.output.row(i) - before.output.row(perm[i])).cwiseAbs().maxCoeff() <= 1e-12);
    }
}

TEST_CASE("with sinusoidal positions, shuffling does not just permute the outputs") {
    core::Scenario s = core::preset_it_sentence();
    s.positional = core::Positional::sinusoidal;
    const std::vector<int> perm = core::edits::random_permutation(s.n(), 3);
    const core::Result before = core::compute(s);
    core::Scenario shuffled = s;
    core::edits::permute_tokens(shuffled, perm);
    const core::Result after = core::compute(shuffled);
    double worst = 0;
    for (int i = 0; i < s.n(); ++i) worst = std::max(worst, (after.output.row(i) - before.output.row(perm[i])).cwiseAbs().maxCoeff());
    CHECK(worst > 1e-3);
}

