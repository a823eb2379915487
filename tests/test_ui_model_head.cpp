// The selected head of a live model, headless: Open in editor puts it in Explore with the model's
// A; Next token appends one token per click on the model's KV cache (the ids of greedy decoding,
// the head's new row the full recompute's last, the cache's bytes on screen); a second prompt typed
// in its box gives every head's difference and divergence, as core/model computes them.
#include "headless.h"
#include "tests/model_ui.h"

#include "core/model/format/checkpoint.h"
#include "core/model/prompt_compare.h"
#include "core/model/tokenizer/tokenizer.h"
#include "tests/checkpoint_fixtures.h"
#include "tests/cli_run.h"
#include "ui/model_service.h"
#include "ui/panels/model/model_compare.h"
#include "ui/panels/model/model_steps.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>

namespace {

using headless::Ui;

using model_ui::tiny;

// Frames until the session's worker has nothing left: the prompt's run and every posted task.
void until_idle(Ui& ui) {
    ui::ModelService& m = ui.st().view.state<ui::ModelService>();
    for (int k = 0; k < 400; ++k) {
        const bool idle = m.session.wait_idle(headless::worker_wait);
        ui.frames(2);
        if (idle && m.seen == m.asked) return;
    }
    FAIL("the model's worker did not finish");
}

ui::ModelService& open_in_ui(Ui& ui, const std::string& dir, const std::string& prompt) {
    ui::ModelService& m = ui.st().view.state<ui::ModelService>();
    m.prompt = prompt;
    REQUIRE(m.open(dir, ui.st().view));
    until_idle(ui);
    REQUIRE(m.has_attention());
    return m;
}

// Whether `text` is on screen, spaces and line breaks aside (wrapped lines).
bool shows_wrapped(const Ui& ui, std::string text) {
    std::string screen = ui.screen_text();
    for (std::string* s : {&screen, &text}) s->erase(std::remove_if(s->begin(), s->end(), [](char c) { return c == ' ' || c == '\n' || c == ','; }), s->end());
    const bool found = screen.find(text) != std::string::npos;
    if (!found) MESSAGE(screen);
    return found;
}

double row_gap(const std::vector<float>& row, const float* want) {
    double gap = 0.0;
    for (std::size_t j = 0; j < row.size(); ++j) gap = std::max(gap, std::abs(static_cast<double>(row[j]) - want[j]));
    return gap;
}

} // namespace

TEST_CASE("model head: Open in editor shows the selected head in Explore with the model's weights — Ctrl+4 leads back") {
    NEED_CHECKPOINTS();
    for (const std::string name : {"gpt2", "llama_gqa", "bert", "qwen3", "phi4_mini", "gemma2", "gemma3"}) { // Gemma: soft-cap, window, scale
        CAPTURE(name);
        Ui ui;
        ui::ModelService& m = open_in_ui(ui, tiny(name), "the cat sat on the mat");
        m.layer = 1;
        m.head = 1;
        ui.frames(2);
        ui.click(ui.item("model_steps.open"));
        until_idle(ui);
        CHECK(ui.app().workspace() == "explore");
        const core::Scenario& s = ui.scenario();
        REQUIRE(s.direct);
        CHECK(s.tokens == m.shown->labels);
        CHECK(s.causal == (name != "bert"));
        const core::model::MatrixF A = *m.shown->head_map(1, 1); // (t, t)
        CHECK((ui.head(0).weights - A.cast<double>()).cwiseAbs().maxCoeff() < 1e-6);
        CHECK(shows_wrapped(ui, s.tokens[1])); // the Explore panels name the model's tokens
        ui.key('4', true);
        CHECK(ui.app().workspace() == "model");
    }
}

TEST_CASE("model head: each click on Next token is one token of greedy decoding on the KV cache, with its row and bytes") {
    NEED_CHECKPOINTS();
    Ui ui;
    ui::ModelService& m = open_in_ui(ui, tiny("llama_gqa"), "the cat sat");
    const std::vector<int> prompt = m.shown->ids;
    m.layer = 1;
    m.head = 2;
    const auto model = core::model::open_model(tiny("llama_gqa"));
    const std::vector<int> want = core::model::generate_greedy(*model.model, prompt, 3);
    const ui::ModelStepsView& st = ui.st().view.state<ui::ModelStepsView>();
    for (int k = 1; k <= 3; ++k) {
        ui.click(ui.item("model_steps.next"));
        until_idle(ui);
        REQUIRE(st.shown.ids.size() == prompt.size() + static_cast<std::size_t>(k));
        CHECK(std::vector<int>(st.shown.ids.begin() + static_cast<long>(prompt.size()), st.shown.ids.end()) ==
              std::vector<int>(want.begin(), want.begin() + k));
        const core::model::ForwardResult full = model.model->forward(st.shown.ids);
        const int t = full.t_total;
        const std::vector<float> row(st.shown.newest.begin() + (1 * 4 + 2) * t, st.shown.newest.begin() + (1 * 4 + 3) * t);
        CHECK(row_gap(row, full.maps.head(1, 2).data() + (t - 1) * t) < 1e-6);
        // 2 · 2 layers · 2 key/value heads · 8 d_head · t · 4 bytes
        const std::string bytes = std::to_string(2 * 2 * 2 * 8 * t * 4);
        CHECK(shows_wrapped(ui, "2·2layers·2key/valueheads·8d_head·" + std::to_string(t) + "tokens·4bytes=" + bytes + "bytes"));
        CHECK(shows_wrapped(ui, "Withoutgrouped-queryattention(4key/valueheads)itwouldbe" + std::to_string(2 * 2 * 4 * 8 * t * 4)));
        CHECK(shows_wrapped(ui, "Newtoken:" + st.shown.labels.back() + "(id" + std::to_string(st.shown.ids.back()) + ")atposition" + std::to_string(t)));
    }
    CHECK(shows_wrapped(ui, "Layer2head3:thenewquery'sweightsoverthe" + std::to_string(prompt.size() + 3) + "cachedkeys"));

    // A new prompt starts over from it.
    m.prompt = "a dog";
    m.run_prompt();
    until_idle(ui);
    ui.click(ui.item("model_steps.next"));
    until_idle(ui);
    CHECK(st.shown.ids.size() == m.shown->ids.size() + 1);
    CHECK(st.shown.prompt_length == m.shown->t());
}

TEST_CASE("model head: step by step stops at the model's end of text, as --generate does, and Next token is disabled") {
    NEED_CHECKPOINTS();
    const auto plain = core::model::open_model(tiny("llama_gqa"));
    const std::vector<int> prompt = core::model::load_tokenizer(tiny("llama_gqa")).encode_ids("the cat sat");
    const std::vector<int> path = core::model::generate_greedy(*plain.model, prompt, 10);
    std::size_t k = 1; // the first id not generated before: the end of text in the copy below
    while (k < path.size() && std::find(path.begin(), path.begin() + static_cast<long>(k), path[k]) != path.begin() + static_cast<long>(k)) ++k;
    REQUIRE(k < path.size());
    const std::string dir = fixtures::with_eos("llama_gqa", {path[k]});
    const Run cli = run({"--generate", dir, "--sequence", ids_text(prompt), "--tokens", "10"});
    REQUIRE(cli.code == 0);
    const std::vector<int> generated = nlohmann::json::parse(cli.out)["ids"].get<std::vector<int>>();
    CHECK(generated == std::vector<int>(path.begin(), path.begin() + static_cast<long>(k) + 1));

    Ui ui;
    ui::ModelService& m = open_in_ui(ui, dir, "the cat sat");
    REQUIRE(m.shown->ids == prompt);
    const ui::ModelStepsView& st = ui.st().view.state<ui::ModelStepsView>();
    for (std::size_t step = 0; step < generated.size(); ++step) {
        CHECK(!st.shown.ended);
        ui.click(ui.item("model_steps.next"));
        until_idle(ui);
    }
    CHECK(std::vector<int>(st.shown.ids.begin() + static_cast<long>(prompt.size()), st.shown.ids.end()) == generated);
    CHECK(st.shown.ended);
    ui.move(ImVec2(1, 1)); // no tooltip over the panel
    ui.frames(2);
    CHECK(shows_wrapped(ui, "End of text."));
    CHECK(shows_wrapped(ui, "That is the model's end-of-text token: generating stops there"));
    // Next token is disabled: a click adds nothing.
    ui.click(ui.item("model_steps.next"));
    until_idle(ui);
    CHECK(st.shown.ids.size() == prompt.size() + generated.size());
    CHECK(st.shown.error.empty());
    // Start over steps from the prompt again.
    ui.click(ui.item("model_steps.restart"));
    ui.click(ui.item("model_steps.next"));
    until_idle(ui);
    CHECK(st.shown.ids.size() == prompt.size() + 1);
    CHECK(!st.shown.ended);
}

TEST_CASE("model head: BERT does not generate — the context's end stops the steps") {
    NEED_CHECKPOINTS();
    Ui ui;
    open_in_ui(ui, tiny("bert"), "the cat sat");
    CHECK(shows_wrapped(ui, "This model attends both ways: it does not generate."));
    ui.click(ui.item("model_steps.next"));
    until_idle(ui);
    CHECK(ui.st().view.state<ui::ModelStepsView>().shown.ids.empty());
}

TEST_CASE("model head: a second prompt typed in its box gives each head's difference and divergence — a click picks a head") {
    NEED_CHECKPOINTS();
    Ui ui;
    ui::ModelService& m = open_in_ui(ui, tiny("gpt2"), "the cat sat on the mat");
    ui.click(ui.item("model_steps.compare"));
    ui.frames(2);
    ui.click(ui.item("model_compare.prompt"));
    ui.key('A', true);
    ui.type("the dog sat on the big mat");
    ui.key(headless::key_enter);
    until_idle(ui);
    const ui::ModelCompareView& st = ui.st().view.state<ui::ModelCompareView>();
    REQUIRE(st.shown);
    REQUIRE(st.shown->error.empty());
    const auto model = core::model::open_model(tiny("gpt2"));
    const std::vector<int> b = core::model::load_tokenizer(tiny("gpt2")).encode_ids("the dog sat on the big mat");
    const core::model::Comparison want = core::model::compare_prompts(model.model->forward(m.shown->ids), m.shown->ids, model.model->forward(b), b);
    const core::model::Comparison& got = st.shown->comparison;
    REQUIRE(got.aligned.a == want.aligned.a);
    CHECK(got.aligned.b == want.aligned.b);
    CHECK(got.aligned.size() == m.shown->t()); // cat -> dog replaced in place, big inserted
    for (std::size_t k = 0; k < want.difference.size(); ++k) {
        CHECK((got.difference[k] - want.difference[k]).cwiseAbs().maxCoeff() < 1e-6);
        CHECK((got.js[k] - want.js[k]).cwiseAbs().maxCoeff() < 1e-6);
    }
    CHECK(shows_wrapped(ui, std::to_string(m.shown->t()) + "of" + std::to_string(m.shown->t()) + "and" + std::to_string(b.size()) + "tokensaligned"));
    CHECK(shows_wrapped(ui, "␣cat→␣dog"));
    // Layer 2, head 1 in the grid of divergences.
    ui.click(ImVec2(st.grid_origin.x + 0.5f * st.cell.x, st.grid_origin.y + 1.5f * st.cell.y));
    ui.frames(2);
    CHECK(m.layer == 1);
    CHECK(m.head == 0);
    char mean[32];
    std::snprintf(mean, sizeof mean, "%.4f", want.mean_js[2]);
    CHECK(shows_wrapped(ui, std::string("Layer2,head1:meandivergence") + mean));
    // Another model: the comparison, measured on the first, goes.
    REQUIRE(m.open(tiny("qwen3"), ui.st().view));
    until_idle(ui);
    ui.frames(2);
    CHECK(ui.st().view.open["model_compare"]);
    CHECK(st.shown == nullptr);
    CHECK_FALSE(shows_wrapped(ui, "␣cat→␣dog"));
}
