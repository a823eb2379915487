// The model session service without a window: its runs equal Model::forward, a model that does not
// open leaves the open one, a new request supersedes the running one, cancelling keeps the last
// result, the predictions and the saved attention file.
#include "core/io/attention_file.h"
#include "core/model/session.h"
#include "tests/checkpoint_fixtures.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

namespace {

std::string checkpoint_dir(const std::string& name) { return fixtures::checkpoints() + "/" + name; }

// A test case's session (TEST_CASE_FIXTURE): open() opens a fixture checkpoint in it; `error` is
// where a failed open says why.
struct SessionWithCheckpoint {
    core::model::Session s;
    std::string error;
    void open(const std::string& name) { REQUIRE(s.open(checkpoint_dir(name), error)); }
};

std::shared_ptr<const core::model::Snapshot> snapshot_of(core::model::Session& s, const std::string& text) {
    const long long serial = s.request({text});
    REQUIRE(s.wait_idle(60));
    auto snap = s.snapshot();
    REQUIRE(snap);
    CHECK(snap->serial == serial);
    return snap;
}

} // namespace

TEST_CASE_FIXTURE(SessionWithCheckpoint, "model session: a run equals the model's forward, with its tokens, predictions and loss") {
    NEED_CHECKPOINTS();
    open("gpt2");
    CHECK(s.causal());
    const auto snap = snapshot_of(s, "The cat sat on the mat");
    REQUIRE(snap->error.empty());
    const auto opened = core::model::open_model(checkpoint_dir("gpt2"));
    const auto tok = core::model::load_tokenizer(checkpoint_dir("gpt2"));
    const std::vector<int> ids = tok.encode_ids("The cat sat on the mat");
    CHECK(snap->ids == ids);
    CHECK(snap->labels[1] == "␣cat");
    CHECK(snap->tokens[1] == "Ġcat");
    const auto direct = opened.model->forward(ids);
    CHECK(snap->result.maps.all() == direct.maps.all());
    // The top 10 after the last token: the ten largest logits, softmax over the whole vocabulary.
    const int t = static_cast<int>(ids.size()), V = static_cast<int>(direct.logits.cols());
    const float* last = direct.logits.data() + static_cast<std::ptrdiff_t>(t - 1) * V;
    std::vector<int> order(static_cast<std::size_t>(V));
    for (int j = 0; j < V; ++j) order[static_cast<std::size_t>(j)] = j;
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return last[a] > last[b]; });
    double z = 0;
    const float top = last[order[0]];
    for (int j = 0; j < V; ++j) z += std::exp(static_cast<double>(last[j] - top));
    REQUIRE(snap->top[static_cast<std::size_t>(t - 1)].size() == 10);
    for (int k = 0; k < 10; ++k) {
        CHECK(snap->top[static_cast<std::size_t>(t - 1)][static_cast<std::size_t>(k)].id == order[static_cast<std::size_t>(k)]);
        CHECK(snap->top[static_cast<std::size_t>(t - 1)][static_cast<std::size_t>(k)].probability ==
              doctest::Approx(std::exp(static_cast<double>(last[order[static_cast<std::size_t>(k)]] - top)) / z).epsilon(1e-5));
    }
    // The loss: the mean of -log p(next) over the prompt.
    double loss = 0;
    for (int i = 0; i + 1 < t; ++i) {
        const float* row = direct.logits.data() + static_cast<std::ptrdiff_t>(i) * V;
        const float m = *std::max_element(row, row + V);
        double zi = 0;
        for (int j = 0; j < V; ++j) zi += std::exp(static_cast<double>(row[j] - m));
        loss += std::log(zi) - (row[ids[static_cast<std::size_t>(i + 1)]] - m);
    }
    CHECK(snap->has_loss);
    CHECK(snap->loss == doctest::Approx(loss / (t - 1)).epsilon(1e-6));
}

TEST_CASE_FIXTURE(SessionWithCheckpoint, "model session: BERT predicts at each [MASK] only") {
    NEED_CHECKPOINTS();
    open("bert");
    CHECK(!s.causal());
    const auto snap = snapshot_of(s, "the cat [MASK] on the mat");
    REQUIRE(snap->error.empty());
    const auto tok = core::model::load_tokenizer(checkpoint_dir("bert"));
    int masks = 0;
    for (int i = 0; i < snap->t(); ++i) {
        const bool mask = snap->ids[static_cast<std::size_t>(i)] == tok.mask_id();
        masks += mask;
        CHECK(snap->top[static_cast<std::size_t>(i)].size() == (mask ? 10u : 0u));
    }
    CHECK(masks == 1);
    CHECK(!snap->has_loss);
}

TEST_CASE_FIXTURE(SessionWithCheckpoint, "model session: a model that does not open leaves the open one and names the file") {
    NEED_CHECKPOINTS();
    open("gpt2");
    const auto before = snapshot_of(s, "hello world");
    const std::string bad = fixtures::temp_dir();
    std::ofstream(bad + "/config.json") << R"({"architectures": ["GPT2LMHeadModel"], "n_embd": 64, "n_head": 4, "n_layer": 2})";
    CHECK(!s.open(bad, error));
    CHECK(error.find(bad) != std::string::npos);
    CHECK(error.find('\n') == std::string::npos);
    CHECK(s.model_path() == checkpoint_dir("gpt2"));
    CHECK(s.snapshot() == before);
    CHECK(!s.open(bad + "/missing", error));
    CHECK(error.find("missing") != std::string::npos);
    const auto after = snapshot_of(s, "hello world");
    CHECK(after->result.maps.all() == before->result.maps.all());
}

TEST_CASE_FIXTURE(SessionWithCheckpoint, "model session: text errors are the run's error, and the last good run is replaced by it") {
    NEED_CHECKPOINTS();
    open("gpt2");
    const auto bad = snapshot_of(s, std::string("caf\xC3", 4));
    CHECK(bad->error.find("byte") != std::string::npos);
    CHECK(bad->t() == 0);
    std::string longer;
    for (int i = 0; i < 200; ++i) longer += " cat";
    const auto too_long = snapshot_of(s, longer);
    CHECK(!too_long->error.empty());
}

TEST_CASE_FIXTURE(SessionWithCheckpoint, "model session: cancel keeps the last run — a new request supersedes the running one") {
    NEED_CHECKPOINTS();
    open("gpt2");
    snapshot_of(s, "one two");
    // Cancelled before the worker can finish: whether it was still pending or running, nothing is
    // published. A run may finish before the cancel comes (then it is the last run): try again.
    std::shared_ptr<const core::model::Snapshot> before;
    for (int k = 0; k < 20; ++k) {
        before = s.snapshot();
        s.request({"three four five"});
        s.cancel();
        REQUIRE(s.wait_idle(60));
        if (s.snapshot() == before) break;
    }
    CHECK(s.snapshot() == before);
    CHECK(s.progress().cancelled);
    CHECK(!s.progress().running);
    // Many requests in a row: only the last is published.
    long long last = 0;
    for (int k = 0; k < 30; ++k) last = s.request({"word " + std::to_string(k)});
    REQUIRE(s.wait_idle(60));
    REQUIRE(s.snapshot());
    CHECK(s.snapshot()->serial == last);
    CHECK(s.snapshot()->request.text == "word 29");
}

TEST_CASE_FIXTURE(SessionWithCheckpoint, "model session: Save attention writes what --attention reads, with the tokens") {
    NEED_CHECKPOINTS();
    open("llama_gqa");
    const auto snap = snapshot_of(s, "the cat sat");
    REQUIRE(snap->error.empty());
    const std::string out = fixtures::temp_dir() + "/att.safetensors";
    core::model::write_attention_file(out, snap->result, snap->labels, snap->model);
    const auto file = core::io::AttentionFile::open(out);
    CHECK(file->layers() == snap->layers());
    CHECK(file->heads() == snap->heads());
    CHECK(file->n() == snap->t());
    CHECK(file->labels() == snap->labels);
}
