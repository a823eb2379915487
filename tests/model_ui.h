// What the headless Model-workspace tests share: a fixture checkpoint's folder, frames until the
// model session has answered the last request, a UI with a checkpoint opened in the Model workspace
// and its panels, hovering a head map, and the model's own ranking of the next token.
#pragma once

#include "headless.h"
#include "core/model/format/checkpoint.h"
#include "core/model/forward.h"
#include "core/model/tokenizer/tokenizer.h"
#include "tests/checkpoint_fixtures.h"
#include "ui/model_service.h"
#include "ui/panels/model/model_map.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <numeric>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

namespace model_ui {

inline std::string tiny(const std::string& name) { return fixtures::checkpoints() + "/" + name; }

// Frames until the worker has answered the last request (at most a few hundred frames), and one more:
// the prompt panel takes the answer mid-frame, after the panels drawn before it.
inline void until_run(headless::Ui& ui) {
    ui::ModelService& m = ui.st().view.state<ui::ModelService>();
    for (int k = 0; k < 400; ++k) {
        m.session.wait_idle(headless::worker_wait);
        ui.frame();
        if (m.seen == m.asked && !m.session.progress().running) return ui.frame();
    }
    FAIL("the model's run did not finish");
}

// Frames until Open model's listing, read on a worker, is on screen.
inline void until_listed(headless::Ui& ui) {
    for (int k = 0; k < 400; ++k) {
        ui.frame();
        // "3 models in …", "1 model in …", "No models in …"; not "Looking in …", which shows while it lists
        if (ui.shows("in the Hugging Face cache, Ollama") && !ui.shows("Looking in the Hugging Face cache")) return ui.frames(2);
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    FAIL("the listing of models did not finish");
}

// Frames until `done`, at most about 20 s.
template <class Done>
void until(headless::Ui& ui, Done done) {
    for (int k = 0; k < 400 && !done(); ++k) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        ui.frame();
    }
    REQUIRE(done());
}

// A test case's headless UI and its Model workspace (TEST_CASE_FIXTURE): open() opens a fixture
// checkpoint there and waits for its first run; own_model() and encoded_prompt() give the same checkpoint
// opened apart from the UI, for the reference forwards the tests compare the panels with.
struct ModelWorkspace {
    headless::Ui ui;
    ui::View& v = ui.st().view;
    ui::ModelService& m = v.state<ui::ModelService>();
    std::string checkpoint; // the fixture's name, e.g. "gpt2"

    ModelWorkspace() = default;
    explicit ModelWorkspace(ImVec2 display) : ui(core::preset_three_tokens(), display) {}

    void open(const std::string& name) {
        checkpoint = name;
        REQUIRE(m.open(tiny(name), v));
        until_run(ui);
    }
    void open(const std::string& name, const std::string& prompt) {
        m.prompt = prompt;
        open(name);
    }
    // Opens the panel `id` as its View menu item does, and gives its state after the frames that draw it.
    template <class PanelView> PanelView& show_panel(const char* id) {
        v.open[id] = true;
        ui.frames(2);
        return v.state<PanelView>();
    }
    // Shows the panel `id` and selects the head of the layers × heads map's item `grid_item`
    // ("model grid 1.0" is layer 2's head 1), after the frames that draw the choice.
    void show_panel_on_head(const char* id, const char* grid_item) {
        v.open[id] = true;
        ui.click(ui.item(grid_item));
        ui.frames(2);
    }
    core::model::OpenedModel own_model() const { return core::model::open_model(tiny(checkpoint)); }
    // The prompt's ids from the checkpoint's own tokenizer.
    std::vector<int> encoded_prompt() const { return core::model::load_tokenizer(tiny(checkpoint)).encode_ids(m.prompt); }
};

// Hovers each head's cell of the 2 × 2 (layers × heads) map `grid` and calls check(layer, head) after
// the frame that draws the hover; then a click on layer 2's head 1 selects that head.
template <class Check>
void hover_each_head_then_select(headless::Ui& ui, const char* grid, Check check) {
    for (int l = 0; l < 2; ++l)
        for (int h = 0; h < 2; ++h) {
            ui.move(ui.grid_cell(grid, l, h));
            ui.frame();
            check(l, h);
        }
    ui.click(ui.grid_cell(grid, 1, 0));
    ui.frames(2);
    const ui::ModelService& m = ui.st().view.state<ui::ModelService>();
    CHECK(m.layer == 1);
    CHECK(m.head == 0);
}

// Every id ordered by the model's logit after position i, most likely first (lower id on a tie).
inline std::vector<int> ranked_next_ids(const core::model::ForwardResult& r, int i) {
    const int V = static_cast<int>(r.logits.cols());
    const float* row = r.logits.data() + static_cast<std::ptrdiff_t>(i) * V;
    std::vector<int> order(static_cast<std::size_t>(V));
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return row[a] > row[b]; });
    return order;
}

// The ten most likely next ids after position i, from the model's own logits (lower id on a tie).
inline std::vector<int> top10(const core::model::ForwardResult& r, int i) {
    std::vector<int> order = ranked_next_ids(r, i);
    order.resize(10);
    return order;
}

using Texel = std::array<unsigned char, 4>; // RGBA

// The head map's texel of cell (i, j), where its painted blocks are single cells.
inline Texel texel(const ui::ModelMapView& st, int i, int j) {
    const std::size_t at = (static_cast<std::size_t>(i - st.painted.row0) * static_cast<std::size_t>(st.painted.cols) +
                            static_cast<std::size_t>(j - st.painted.col0)) * 4;
    return {st.texels[at], st.texels[at + 1], st.texels[at + 2], st.texels[at + 3]};
}

} // namespace model_ui
