// The Circuits panel on a fixture checkpoint, headless: the logit lens, an attribution and a head
// patching map run on a worker and show core's numbers; a map's cell selects its head; a token that
// is not one says so.
#include "core/model/circuits/attribution.h"
#include "core/model/circuits/lens.h"
#include "core/model/circuits/patching.h"
#include "tests/model_ui.h"
#include "ui/panels/model/model_circuits.h"

#include <doctest/doctest.h>

using model_ui::ModelWorkspace;

namespace {

// The Model workspace with the Circuits panel open on the gpt2 fixture.
struct CircuitsWorkspace : ModelWorkspace {
    using ModelWorkspace::ModelWorkspace;
    ui::ModelCircuitsView& open_circuits(const std::string& prompt) {
        open("gpt2", prompt);
        return show_panel<ui::ModelCircuitsView>("model_circuits"); // as View ▸ Circuits does
    }
};
struct FullHdCircuitsWorkspace : CircuitsWorkspace {
    FullHdCircuitsWorkspace() : CircuitsWorkspace(ImVec2(1920, 1080)) {}
};

// Frames until the panel's job has finished and its result is taken.
const core::model::CircuitsResult& finished(headless::Ui& ui, ui::ModelCircuitsView& st) {
    ui.frame();
    for (int k = 0; k < 400 && st.job.busy(); ++k) {
        st.job.wait_idle(headless::worker_wait);
        ui.frame();
    }
    ui.frames(2);
    REQUIRE(st.result());
    return *st.result();
}

// The text on screen without its line breaks: a wrapped sentence whole again.
std::string flat(std::string text) {
    text.erase(std::remove(text.begin(), text.end(), '\n'), text.end());
    return text;
}

} // namespace

TEST_CASE_FIXTURE(CircuitsWorkspace, "model circuits: the lens, an attribution and head patching run on a worker and show core's numbers") {
    NEED_CHECKPOINTS();
    ui::ModelCircuitsView& st = open_circuits("the cat sat on the mat and the cat");
    const auto opened = own_model();
    const std::vector<int> ids = encoded_prompt();

    ui.click(ui.item("model circuits run"));
    const core::model::CircuitsResult& lens = finished(ui, st);
    CHECK(lens.error.empty());
    const core::model::LogitLens want = core::model::logit_lens(*opened.model, ids, 3);
    CHECK(lens.ids == ids);
    CHECK(lens.lens.top == want.top);
    CHECK(lens.lens.p == want.p);

    ui.click(ui.item("model circuits Attribution"));
    ui.type_into(ui.item("model circuits target"), "#5");
    ui.click(ui.item("model circuits run"));
    const core::model::Attribution a = finished(ui, st).attribution;
    const core::model::Attribution a_want = core::model::direct_attribution(*opened.model, ids, 5, -1, static_cast<int>(ids.size()) - 1);
    CHECK(st.result()->error.empty());
    CHECK(a.logit == doctest::Approx(a_want.logit).epsilon(1e-12));
    CHECK(a.heads.isApprox(a_want.heads, 1e-12));

    ui.click(ui.item("model circuits Patching"));
    ui.type_into(ui.item("model circuits vs"), "#7");
    ui.type_into(ui.item("model circuits corrupt"), "the dog sat on the mat and the cat");
    ui.click(ui.item("model circuits run"));
    const core::model::Patching p = finished(ui, st).patching;
    REQUIRE(st.result()->error.empty());
    const std::vector<int> corrupt = core::model::load_tokenizer(model_ui::tiny("gpt2")).encode_ids("the dog sat on the mat and the cat");
    const core::model::Patching p_want = core::model::activation_patching(*opened.model, ids, corrupt, {5, 7, false}, core::model::PatchBy::head);
    REQUIRE(p.recovery.rows() == 2);
    REQUIRE(p.recovery.cols() == 2);
    model_ui::hover_each_head_then_select(ui, "circuits", [&](int l, int h) { // hover names the head's recovery
        CHECK(p.recovery(l, h) == doctest::Approx(p_want.recovery(l, h)).epsilon(1e-12));
        CHECK(st.hovered == l * 2 + h);
        CHECK(st.hovered_value == doctest::Approx(p_want.recovery(l, h)).epsilon(1e-12));
    });
}

TEST_CASE_FIXTURE(CircuitsWorkspace, "model circuits: patching by position on the loss draws core's layer × position map — a cell names its recovery and selects its layer") {
    NEED_CHECKPOINTS();
    ui::ModelCircuitsView& st = open_circuits("the cat sat on the mat");
    ui.click(ui.item("model circuits Patching"));
    ui.frame();
    ui.click(ui.item("model circuits By position"));
    ui.click(ui.item("model circuits Loss"));
    ui.frame();
    ui.type_into(ui.item("model circuits corrupt"), "the dog sat on the mat");
    ui.click(ui.item("model circuits run"));
    const core::model::CircuitsResult& r = finished(ui, st);
    REQUIRE(r.error.empty());
    const auto opened = own_model();
    const std::vector<int> corrupt = core::model::load_tokenizer(model_ui::tiny("gpt2")).encode_ids("the dog sat on the mat");
    const core::model::Patching want = core::model::activation_patching(*opened.model, encoded_prompt(), corrupt, {0, 0, true}, core::model::PatchBy::position);
    CHECK(r.patching.by == core::model::PatchBy::position);
    CHECK(r.patching.metric.loss);
    CHECK(r.patching.clean_metric == doctest::Approx(want.clean_metric).epsilon(1e-12));
    REQUIRE(r.patching.recovery.rows() == want.recovery.rows());
    REQUIRE(r.patching.recovery.cols() == static_cast<int>(corrupt.size()));
    const int t = static_cast<int>(corrupt.size());
    for (int l = 0; l < want.recovery.rows(); ++l)
        for (int i = 0; i < t; ++i) {
            CHECK(r.patching.recovery(l, i) == doctest::Approx(want.recovery(l, i)).epsilon(1e-12));
            ui.move(ui.grid_cell("circuits positions", l, i));
            ui.frame();
            CHECK(st.hovered == l * t + i);
        }
    ui.move(ui.grid_cell("circuits positions", 1, 2));
    ui.frame();
    CHECK(ui.shows("the stream entering layer 2 at position 3"));
    ui.click(ui.grid_cell("circuits positions", 1, 2));
    ui.frames(2);
    CHECK(m.layer == 1);
}

TEST_CASE_FIXTURE(CircuitsWorkspace, "model circuits: a token that is not one of the vocabulary's is one line, and nothing runs") {
    NEED_CHECKPOINTS();
    ui::ModelCircuitsView& st = open_circuits("the cat sat on the mat");
    ui.click(ui.item("model circuits Attribution"));
    ui.type_into(ui.item("model circuits target"), "Hello world");
    ui.click(ui.item("model circuits run"));
    ui.frames(2);
    REQUIRE(st.result());
    CHECK(!st.job.busy());
    CHECK(st.result()->error.find("not one") != std::string::npos);
    CHECK(ui.shows("#ID")); // one word: the line wraps where the checkpoint's path ends
}

TEST_CASE_FIXTURE(CircuitsWorkspace, "model circuits: each kind shows its own result under its own title — another kind's result never shows there") {
    NEED_CHECKPOINTS();
    ui::ModelCircuitsView& st = open_circuits("the cat sat on the mat and the cat");
    ui.click(ui.item("model circuits run"));
    REQUIRE(finished(ui, st).kind == core::model::CircuitsResult::Kind::lens);
    CHECK(ui.shows("The logit lens", "Circuits"));
    CHECK(v.grids.count("lens") == 1);
    ui.click(ui.item("model circuits Attribution"));
    v.grids.erase("lens"); // recorded again by a frame that draws it
    ui.frame();
    CHECK(st.result() == nullptr);
    CHECK(v.grids.count("lens") == 0);
    CHECK(ui.shows("Direct logit attribution", "Circuits"));
    CHECK_FALSE(ui.shows("The logit lens", "Circuits"));
    CHECK(flat(ui.screen_text("Circuits")).find("Giveatoken(textor#ID)andRun") != std::string::npos);
    ui.type_into(ui.item("model circuits target"), "#5");
    ui.click(ui.item("model circuits run"));
    REQUIRE(finished(ui, st).kind == core::model::CircuitsResult::Kind::attribution);
    const std::string last = "At position " + std::to_string(encoded_prompt().size()) + ":"; // the last, counted from 1
    CHECK(ui.shows(last));
    CHECK(v.grids.count("circuits") == 1);
    ui.click(ui.item("model circuits Patching"));
    v.grids.erase("circuits");
    ui.frame();
    CHECK(st.result() == nullptr);
    CHECK(v.grids.count("circuits") == 0);
    CHECK(ui.shows("Activation patching", "Circuits"));
    CHECK_FALSE(ui.shows(last));
    ui.click(ui.item("model circuits Logit lens"));
    ui.frame();
    REQUIRE(st.result() != nullptr);
    CHECK(st.result()->kind == core::model::CircuitsResult::Kind::lens);
    CHECK(ui.shows("The logit lens", "Circuits"));
    CHECK(v.grids.count("lens") == 1);
}

TEST_CASE_FIXTURE(CircuitsWorkspace, "model circuits: another model clears every result; a result of an earlier prompt names the model and prompt it was measured on") {
    NEED_CHECKPOINTS();
    ui::ModelCircuitsView& st = open_circuits("the cat sat on the mat");
    ui.click(ui.item("model circuits Patching"));
    ui.type_into(ui.item("model circuits target"), "#5");
    ui.type_into(ui.item("model circuits vs"), "#7");
    ui.type_into(ui.item("model circuits corrupt"), "the dog sat on the mat");
    ui.click(ui.item("model circuits run"));
    REQUIRE(finished(ui, st).error.empty());
    REQUIRE(v.grids.count("circuits") == 1);
    // Another prompt on the same model: the result stays, named as measured on the one before.
    m.prompt = "the dog sat on the log";
    m.run_prompt();
    model_ui::until_run(ui);
    CHECK(st.result() != nullptr);
    CHECK(flat(ui.screen_text("Circuits")).find("Measuredongpt2withtheprompt\"thecatsatonthemat\":runagainforthisone.") != std::string::npos);
    // Another model: nothing of the first one's is left to show with the new one's tokens.
    v.grids.erase("circuits");
    REQUIRE(m.open(model_ui::tiny("qwen3"), v));
    model_ui::until_run(ui);
    v.open["model_circuits"] = true;
    ui.frames(2);
    for (const auto& measured : st.measured) CHECK(measured.result == nullptr);
    CHECK(v.grids.count("circuits") == 0);
    CHECK_FALSE(ui.shows("Measured on", "Circuits"));
    CHECK(ui.shows("Activation patching", "Circuits"));
}

TEST_CASE_FIXTURE(FullHdCircuitsWorkspace, "model circuits at 1920×1080: the lens of a 24-token prompt shows every position and its colour legend; head maps label heads H1 …") {
    NEED_CHECKPOINTS();
    ui::ModelCircuitsView& st = open_circuits("the cat sat on the mat and the dog sat on the log and the cat saw the dog on the mat by the door");
    ui.click(ui.item("model circuits run"));
    const core::model::CircuitsResult& lens = finished(ui, st);
    REQUIRE(lens.lens.t >= 24);
    // The positions run down the tall panel, as far as its bottom: more of them than fit across it.
    const ui::GridGeometry& g = v.grids.at("lens");
    const ImRect panel = ImGui::FindWindowByName("Circuits")->InnerRect;
    const int across = static_cast<int>(g.visible.GetWidth() / g.cell_size.x + 0.01f), down = static_cast<int>(g.visible.GetHeight() / g.cell_size.y + 0.01f);
    CHECK(across == lens.lens.layers);
    CHECK(g.visible.Max.y >= panel.Max.y - g.cell_size.y);
    CHECK(down > static_cast<int>(panel.GetWidth() / g.cell_size.x));
    CHECK(ui.shows("colour: the top token's probability 0", "Circuits"));
    for (const std::pair<int, int>& cell : {std::pair{0, 0}, std::pair{std::min(down, lens.lens.t) - 1, lens.lens.layers - 1}}) {
        const int i = cell.first, l = cell.second;
        CAPTURE(i);
        ui.move(ui.grid_cell("lens", i, l));
        ui.frame();
        CHECK(ui.shows("after layer " + std::to_string(l + 1) + ", position " + std::to_string(i + 1), "##Tooltip_00"));
    }
    ui.click(ui.item("model circuits Attribution"));
    ui.type_into(ui.item("model circuits target"), "#5");
    ui.click(ui.item("model circuits run"));
    REQUIRE(finished(ui, st).error.empty());
    const ui::GridGeometry& map = v.grids.at("circuits");
    CHECK(ui.shows("H1|H2", "Circuits")); // the labels over the map's two wide columns
    CHECK(map.cell_size.x >= ImGui::CalcTextSize("H2").x);
}
