// Every model command on both kinds of model: --forward (with --ablate), --heads, --rollout and
// --head-importance on a tiny model saved by --train, each against a reference worked out here from
// that model's own float64 --forward (which tests/train_numpy_test.py checks against NumPy), and
// the same commands on a checkpoint (their numbers are in tests/probes_numpy_test.py).
#include "core/model/format/checkpoint.h"
#include "core/train/model_file.h"
#include "tests/checkpoint_fixtures.h"
#include "tests/cli_run.h"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <string>
#include <vector>

namespace {

using Map = std::vector<std::vector<double>>; // (t, t) or (t, vocab)
using nlohmann::json;

const std::vector<int> kIds = {3, 1, 4, 1, 5, 3, 1}; // repeats: duplicate and induction rows
const std::string kSequence = "3 1 4 1 5 3 1";
constexpr int kLayers = 2, kHeads = 2, kTokens = 7;

std::string trained_model() {
    static const std::string path = [] {
        core::train::SavedModel s{core::train::Model(core::train::ModelConfig{7, 8, 8, kHeads, kLayers, true}), core::train::Task::repeat,
                                  core::train::Init::large, 3, 0};
        core::train::Rng rng(3);
        core::train::initialise(s.model, core::train::Init::large, rng);
        // Loud heads: an untrained model's logits hardly depend on its attention.
        for (const core::train::LayerIds& l : s.model.layout.layers) s.model.tensor(l.W_V) *= 8.0, s.model.tensor(l.W_O) *= 8.0;
        s.model.tensor(s.model.layout.W_U) *= 8.0;
        const std::string p = fixtures::temp_dir() + "/every.safetensors";
        core::train::save_model(p, s);
        return p;
    }();
    return path;
}

json ok(const std::vector<std::string>& args) {
    const Run r = run(args);
    CAPTURE(r.err);
    REQUIRE(r.code == 0);
    CHECK(r.err.empty());
    return json::parse(r.out);
}

Map map_of(const json& j) { return j.get<Map>(); }

// Mean over i < t − 1 of −log softmax(logits_i)[ids_{i+1}].
double map_loss(const Map& logits) {
    double total = 0;
    for (int i = 0; i + 1 < kTokens; ++i) {
        double top = logits[i][0], sum = 0;
        for (double v : logits[i]) top = std::max(top, v);
        for (double v : logits[i]) sum += std::exp(v - top);
        total += top + std::log(sum) - logits[i][kIds[i + 1]];
    }
    return total / (kTokens - 1);
}

// previous, duplicate, induction and entropy of one map, as core/heads/scores.h defines them.
std::vector<double> scores_of(const Map& A) {
    double previous = 0, duplicate = 0, induction = 0, entropy = 0;
    int dup_rows = 0, ind_rows = 0;
    for (int i = 0; i < kTokens; ++i) {
        if (i) previous += A[i][i - 1] / (kTokens - 1);
        double d = 0, n = 0;
        bool dup = false, ind = false;
        for (int j = 0; j < i; ++j) {
            if (kIds[j] == kIds[i]) dup = true, d += A[i][j];
            if (j >= 1 && kIds[j - 1] == kIds[i]) ind = true, n += A[i][j];
        }
        dup_rows += dup, ind_rows += ind, duplicate += d, induction += n;
        for (int j = 0; j < kTokens; ++j) entropy -= A[i][j] > 0 ? A[i][j] * std::log(A[i][j]) / kTokens : 0.0;
    }
    return {previous, duplicate / dup_rows, induction / ind_rows, entropy};
}

// Abnar and Zuidema's rollout: R = Â_L ⋯ Â_1, Â = rownorm(mean over heads of A + I).
Map rollout_of(const json& attention) {
    Map R;
    for (int l = 0; l < kLayers; ++l) {
        Map hat(kTokens, std::vector<double>(kTokens, 0.0));
        for (int i = 0; i < kTokens; ++i) {
            double row = 0;
            for (int j = 0; j < kTokens; ++j) {
                for (int h = 0; h < kHeads; ++h) hat[i][j] += attention[l][h][i][j].get<double>() / kHeads;
                hat[i][j] += i == j;
                row += hat[i][j];
            }
            for (double& v : hat[i]) v /= row;
        }
        if (R.empty()) { R = hat; continue; }
        Map next(kTokens, std::vector<double>(kTokens, 0.0));
        for (int i = 0; i < kTokens; ++i)
            for (int k = 0; k < kTokens; ++k)
                for (int j = 0; j < kTokens; ++j) next[i][j] += hat[i][k] * R[k][j];
        R = next;
    }
    return R;
}

double max_diff(const Map& a, const Map& b) {
    REQUIRE(a.size() == b.size());
    double d = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        REQUIRE(a[i].size() == b[i].size());
        for (size_t j = 0; j < a[i].size(); ++j) d = std::max(d, std::abs(a[i][j] - b[i][j]));
    }
    return d;
}

} // namespace

TEST_CASE("every model command on a --train model: --ablate against the checkpoint path's knock-out, zero and mean") {
    const std::string path = trained_model();
    const Map intact = map_of(ok({"--forward", path, "--sequence", kSequence})["logits"]);
    const core::model::OpenedModel m = core::model::open_model(path);
    for (const char* mode : {"zero", "mean"}) {
        CAPTURE(mode);
        const Map ablated = map_of(ok({"--forward", path, "--sequence", kSequence, "--ablate", "1.2,2.1", "--ablate-mode", mode})["logits"]);
        CHECK(max_diff(ablated, intact) > 0.01); // the knock-out changes the logits (by about 0.06)
        core::model::ForwardOptions fo;
        fo.ablate = {{0, 1}, {1, 0}};
        fo.ablation = std::string(mode) == "zero" ? core::heads::Ablation::zero : core::heads::Ablation::mean;
        const core::model::ForwardResult r = m.model->forward(kIds, fo); // float32, as GPT-2 tensors
        Map want(kTokens, std::vector<double>(7));
        for (int i = 0; i < kTokens; ++i)
            for (int v = 0; v < 7; ++v) want[i][v] = r.logits(i, v);
        CHECK(max_diff(ablated, want) < 1e-5); // about 1e-7 apart
    }
    const Run bad = run({"--forward", path, "--sequence", kSequence, "--ablate", "3.1"});
    CHECK(bad.code == 2);
    CHECK(bad.out.empty());
    CHECK(bad.err.find("--ablate: 3.1: " + path + " has 2 layers") != std::string::npos);
    const Run lonely = run({"--forward", path, "--sequence", kSequence, "--ablate-mode", "mean"});
    CHECK(lonely.code == 2);
    CHECK(lonely.err.find("--ablate-mode goes with --ablate") != std::string::npos);
}

TEST_CASE("every model command on a --train model: --heads, --rollout and --head-importance against its own forward") {
    const std::string path = trained_model();
    const json forward = ok({"--forward", path, "--sequence", kSequence});
    const json heads = ok({"--heads", path, "--sequence", kSequence});
    REQUIRE(heads.size() == static_cast<size_t>(kLayers * kHeads));
    for (int k = 0; k < kLayers * kHeads; ++k) {
        const json& row = heads[static_cast<size_t>(k)];
        CHECK(row["layer"] == k / kHeads + 1);
        CHECK(row["head"] == k % kHeads + 1);
        const std::vector<double> want = scores_of(map_of(forward["attention"][k / kHeads][k % kHeads]));
        const char* names[] = {"previous", "duplicate", "induction", "entropy"};
        for (int s = 0; s < 4; ++s) {
            CAPTURE(names[s]);
            CHECK(row[names[s]].get<double>() == doctest::Approx(want[static_cast<size_t>(s)]).epsilon(1e-5));
        }
    }
    const Map rollout = map_of(ok({"--rollout", path, "--sequence", kSequence})["rollout"]);
    CHECK(max_diff(rollout, rollout_of(forward["attention"])) < 1e-5);
    const json importance = ok({"--head-importance", path, "--sequence", kSequence});
    REQUIRE(importance.size() == static_cast<size_t>(kLayers * kHeads));
    const double base = map_loss(map_of(forward["logits"]));
    for (const json& row : importance) {
        const std::string head = std::to_string(row["layer"].get<int>()) + "." + std::to_string(row["head"].get<int>());
        CAPTURE(head);
        const double ablated = map_loss(map_of(ok({"--forward", path, "--sequence", kSequence, "--ablate", head})["logits"]));
        CHECK(row["delta_loss"].get<double>() == doctest::Approx(ablated - base).epsilon(1e-4).scale(1.0));
    }
}

TEST_CASE("every model command on a checkpoint: the same flags, the same shapes of answer") {
    NEED_CHECKPOINTS();
    const std::string dir = fixtures::checkpoints() + "/gpt2";
    const core::model::OpenedModel m = core::model::open_model(dir);
    const int layers = m.model->config().layers, per_layer = m.model->config().heads;
    const json forward = ok({"--forward", dir, "--sequence", kSequence, "--ablate", "1.2", "--ablate-mode", "mean"});
    CHECK(forward["attention"].size() == static_cast<size_t>(layers));
    CHECK(ok({"--heads", dir, "--sequence", kSequence}).size() == static_cast<size_t>(layers * per_layer));
    CHECK(ok({"--rollout", dir, "--sequence", kSequence})["rollout"].size() == static_cast<size_t>(kTokens));
    CHECK(ok({"--head-importance", dir, "--sequence", kSequence}).size() == static_cast<size_t>(layers * per_layer));
}
