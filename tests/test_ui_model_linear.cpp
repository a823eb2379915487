// The views of a linear head (Gated DeltaNet) in the Model workspace, headless, on the Qwen3.5
// fixture: its signed M on the diverging map with a legend centred at 0 (the head map, the grid and
// the saved figure), "Why this score" splitting a clicked entry of M into the direct write and the
// correction from later erases, and the State panel stepping through the prompt. The split and the
// state are checked against NumPy: the recurrence of transformers' modeling_qwen3_next.py
// (torch_recurrent_gated_delta_rule), written in the Python below, on the layer's q, k, v, β and g.
// A linear head knocked out from the grid reruns as the forward with that head zeroed; the query–key
// view says in one line that a linear head has none.
#include "headless.h"
#include "tests/model_ui.h"

#include "core/colormap.h"
#include "core/heads/compare.h"
#include "core/io/figure.h"
#include "core/model/activations.h"
#include "tests/checkpoint_fixtures.h"
#include "tests/fixture_files.h"
#include "tests/linear_activations.h"
#include "tests/python.h"
#include "ui/colour_maps.h"
#include "ui/model_service.h"
#include "ui/panels/model/model_grid.h"
#include "ui/panels/model/model_map.h"
#include "ui/panels/model/model_state.h"
#include "ui/panels/model/model_steps.h"
#include "ui/panels/model/model_why.h"
#include "ui/widgets.h"
#include "tests/png_pixels.h"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>
#include <stb_image.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <fstream>
#include <memory>
#include <thread>

namespace {

using model_ui::ModelWorkspace;
using model_ui::until;
using model_ui::Texel;

Texel rgba(ImU32 c) {
    Texel t{};
    ui::put_rgba(t.data(), c);
    return t;
}

// The recurrence of modeling_qwen3_next.py's torch_recurrent_gated_delta_rule, one position at a
// time in float64, on the layer's inputs (q, k stacked (Hk·t, dk), v (Hv·t, dv), β and g (Hv, t)); value
// head h reads key head h // (Hv / Hk). M[t, s] is read off by running it on one-hot values.
const char* const recurrence_py = R"(
import json, sys
import numpy as np
a = json.load(open(sys.argv[1])); want = json.load(open(sys.argv[2]))
Hk, Hv = a["k_heads"], a["v_heads"]
beta, g = np.array(a["beta"]), np.array(a["g"])
t = beta.shape[1]
q, k = np.array(a["q"]).reshape(Hk, t, -1), np.array(a["k"]).reshape(Hk, t, -1)
v = np.array(a["v"]).reshape(Hv, t, -1)
h = want["head"]; kh = h // (Hv // Hk)
def run(values, upto):
    S = np.zeros((q.shape[2], values.shape[1]))
    out = []
    for i in range(upto + 1):
        S = S * np.exp(g[h, i])
        S = S + np.outer(k[kh, i], beta[h, i] * (values[i] - k[kh, i] @ S))
        out.append(q[kh, i] @ S)
    return S, np.array(out)
def close(name, ours, theirs, rel=1e-4):
    ours, theirs = np.asarray(ours, float), np.asarray(theirs, float)
    scale = max(np.abs(theirs).max(), 1e-12)
    if not np.abs(ours - theirs).max() <= rel * scale:
        sys.exit(f"{name}: ours {ours}, NumPy's {theirs}")
if "split" in want:
    i, j = want["query"], want["key"]
    _, M = run(np.eye(t), i)
    direct = beta[h, j] * (q[kh, i] @ k[kh, j]) * np.exp(g[h, j + 1:i + 1].sum())
    s = want["split"]
    close("M[i, j]", s["entry"], M[i, j])
    close("the direct write", s["direct"], direct)
    close("the correction", s["correction"], M[i, j] - direct, 1e-4 * max(abs(M[i, j]), abs(direct)) / max(abs(M[i, j] - direct), 1e-12))
    close("the decay", s["decay"], np.exp(g[h, j + 1:i + 1].sum()))
    if abs(M[i, j] - direct) < 1e-6 * abs(M[i, j]):
        sys.exit("the chosen entry has no correction: the test would not see a wrong one")
if "state" in want:
    S, _ = run(v[h], want["position"])
    close("the state", want["state"], S)
)";

void check_with_numpy(const nlohmann::json& activations, const nlohmann::json& ours) {
    const std::string dir = test_python::temp_dir();
    std::ofstream(dir + "/activations.json") << activations.dump();
    std::ofstream(dir + "/ours.json") << ours.dump();
    test_python::run_or_skip(recurrence_py, {dir + "/activations.json", dir + "/ours.json"}, true);
}

} // namespace

TEST_CASE_FIXTURE(ModelWorkspace, "linear head: its signed M on the head map, the grid and the saved figure takes the diverging map, ± max|M| about 0") {
    NEED_CHECKPOINTS();
    open("qwen3_5", "the cat sat on the mat and the cat");
    const auto& grid = v.state<ui::ModelGridView>();
    CHECK(grid.signed_legend);
    CHECK(ui.shows("Linear layers: signed M"));
    ui.click(ui.item("model grid 1.2")); // head 2.3, a Gated DeltaNet head
    ui.frames(3);
    const auto& map = v.state<ui::ModelMapView>();
    REQUIRE(map.layer == 1);
    REQUIRE(map.painted.step == 1);
    CHECK(map.diverging);
    const std::shared_ptr<const core::model::MatrixF> M = m.shown->head_map(1, 2);
    REQUIRE(M);
    const int t = m.shown->t();
    const float top = M->cwiseAbs().maxCoeff();
    CHECK(map.range == top); // the legend runs from −max|M| to +max|M|
    Eigen::Index ni = 0, nj = 0, pi = 0, pj = 0;
    REQUIRE(M->minCoeff(&ni, &nj) < 0.0f);
    REQUIRE(M->maxCoeff(&pi, &pj) > 0.0f);
    const Texel negative = model_ui::texel(map, static_cast<int>(ni), static_cast<int>(nj)), positive = model_ui::texel(map, static_cast<int>(pi), static_cast<int>(pj));
    CHECK(negative == rgba(ui::signed_colour((*M)(ni, nj) / top)));
    CHECK(positive == rgba(ui::signed_colour((*M)(pi, pj) / top)));
    CHECK(negative[2] > negative[0]); // blue below 0
    CHECK(positive[0] > positive[2]); // red above
    // 0 is the map's quiet middle, near grey, apart from both ends; the keys after a query keep the mask's grey.
    const Texel zero = rgba(ui::signed_colour(0.0));
    const auto spread = [](const Texel& c) { return std::max({c[0], c[1], c[2]}) - std::min({c[0], c[1], c[2]}); };
    CHECK(spread(zero) < 10);
    CHECK(zero != negative);
    CHECK(zero != positive);
    CHECK(model_ui::texel(map, 0, t - 1) == rgba(ui::masked_color()));
    for (int i = 0; i < t; ++i) // every entry on or below the diagonal in the map's colours
        for (int j = 0; j <= i; ++j) CHECK(model_ui::texel(map, i, j) == rgba(ui::signed_colour((*M)(i, j) / top)));

    ui.click(ui.item("model grid 3.0")); // the full layer keeps its weights' map
    ui.frames(3);
    CHECK_FALSE(map.diverging);
    const std::shared_ptr<const core::model::MatrixF> A = m.shown->head_map(3, 0);
    CHECK(model_ui::texel(map, t - 1, 0) == rgba(ui::weights_colour((*A)(t - 1, 0) / A->maxCoeff())));

    ui.click(ui.item("model grid 1.2"));
    ui.frames(3);
    const std::string path = test_python::temp_dir() + "/M.png";
    ui.click(ui.item("model map save figure"));
    ui.frames(2);
    REQUIRE(ui.st().dialog.open());
    ui.type(path);
    ui.key(headless::key_enter);
    REQUIRE(headless::file_exists(path.c_str()));
    const core::io::FigureSpec spec{"M of head 2.3", m.shown->labels, true, top, true};
    const std::string expected = core::io::png_bytes(core::io::heatmap_figure_png(M->cast<double>(), spec));
    CHECK(fixtures::read(path) == expected);
}

TEST_CASE("linear head: the saved figure of a signed map colours −, 0 and + on the diverging map, its bar from −top to +top") {
    core::Matrix w(2, 2); // (2, 2)
    w << -0.5, 0.0, 0.0, 0.5;
    const Decoded png = decode_png(core::io::png_bytes(core::io::heatmap_figure_png(w, {"", {}, false, 0.5, true})));
    const std::size_t cell_pixels = 64 * 64 / 2; // a cell's own colour under its written value
    CHECK(png.count(core::diverging(-1.0)) > cell_pixels);
    CHECK(png.count(core::diverging(0.0)) > 2 * cell_pixels);
    CHECK(png.count(core::diverging(1.0)) > cell_pixels);
    CHECK(png.count(core::viridis(1.0)) == 0);
    const core::Rgb blue = core::diverging(-1.0), middle = core::diverging(0.0), red = core::diverging(1.0);
    CHECK(blue.b > blue.r);
    CHECK(red.r > red.b);
    CHECK(std::max({middle.r, middle.g, middle.b}) - std::min({middle.r, middle.g, middle.b}) < 4); // near white
    const std::string svg = core::io::heatmap_figure_svg(w, {"", {}, false, 0.5, true});
    CHECK(svg.find(">-0.5</text>") != std::string::npos); // the bar's ticks: −top, 0, +top
    CHECK(svg.find(">0.5</text>") != std::string::npos);
}

TEST_CASE_FIXTURE(ModelWorkspace, "linear head: Why this score splits a clicked entry of M into the direct write and the later erases' correction, as NumPy's recurrence does") {
    NEED_CHECKPOINTS();
    open("qwen3_5", "the cat sat on the mat and the cat");
    show_panel_on_head("model_why", "model grid 1.2"); // head 2.3
    const auto& map = v.state<ui::ModelMapView>();
    const int t = m.shown->t(), i = t - 1, j = 2;
    ui.click(ImVec2(map.cell_min(i, j).x + map.cell / 2, map.cell_min(i, j).y + map.cell / 2));
    ui.frame();
    REQUIRE(m.key == j);
    const auto& st = v.state<ui::ModelWhyView>();
    until(ui, [&] { return st.split && st.split->cell == st.split_asked; });
    ui.frames(2);
    REQUIRE(st.split->split);
    const core::model::delta_rule::Split& s = *st.split->split;
    CHECK(s.entry == doctest::Approx((*m.shown->head_map(1, 2))(i, j)).epsilon(1e-6));
    CHECK(s.direct + s.correction == doctest::Approx(s.entry).epsilon(1e-9));
    char direct[48], correction[48];
    std::snprintf(direct, sizeof direct, "direct write %+.4g", s.direct);
    std::snprintf(correction, sizeof correction, "correction %+.4g", s.correction);
    CHECK(ui.shows(direct, "Why this score"));
    CHECK(ui.shows(correction, "Why this score"));
    const nlohmann::json ours = {{"head", 2}, {"query", i}, {"key", j},
                                 {"split", {{"entry", s.entry}, {"direct", s.direct}, {"correction", s.correction}, {"decay", s.decay}}}};
    check_with_numpy(linear_activations_json(*own_model().model, m.shown->ids, 1), ours);
}

TEST_CASE_FIXTURE(ModelWorkspace, "linear head: the State panel shows the recurrence's state step by step, and a softmax head keeps none") {
    NEED_CHECKPOINTS();
    open("qwen3_5", "the cat sat on the mat and the cat");
    show_panel_on_head("model_state", "model grid 0.1"); // head 1.2
    model_ui::until_run(ui); // the run that keeps the linear layers' values, asked when the panel opened
    ui.frames(2);
    REQUIRE(m.shown->request.capture_qkv);
    const auto& st = v.state<ui::ModelStateView>();
    const int t = m.shown->t();
    CHECK(st.linear);
    CHECK(m.query_position() == t - 1);
    ui.click(ui.item("model state earlier"));
    ui.click(ui.item("model state earlier"));
    CHECK(m.query_position() == t - 3);
    ui.key(headless::key_right); // the panel has the keyboard after its button's click
    CHECK(m.query_position() == t - 2);
    ui.key(headless::key_left);
    ui.key(headless::key_left);
    const int position = t - 4;
    REQUIRE(m.query_position() == position);
    until(ui, [&] { return st.shown && st.shown->of == st.asked && st.shown->of.position == position; });
    ui.frame();
    REQUIRE(st.shown->state);
    const core::model::MatrixF& S = *st.shown->state; // (d_k, d_v)
    CHECK(S.rows() == 8);
    CHECK(S.cols() == 8);
    CHECK(st.range == S.cwiseAbs().maxCoeff());
    CHECK(ui.shows("State of head 1.2 after position " + std::to_string(position + 1), "State"));
    std::vector<std::vector<double>> rows(static_cast<std::size_t>(S.rows()));
    for (Eigen::Index r = 0; r < S.rows(); ++r) rows[static_cast<std::size_t>(r)].assign(S.row(r).data(), S.row(r).data() + S.cols());
    check_with_numpy(linear_activations_json(*own_model().model, m.shown->ids, 0), {{"head", 1}, {"position", position}, {"state", rows}});

    ui.click(ui.item("model grid 3.1")); // the full layer
    ui.frames(2);
    CHECK_FALSE(st.linear);
    CHECK(ui.shows("is a softmax head: it keeps no state", "State"));
}

TEST_CASE_FIXTURE(ModelWorkspace, "linear head: after generating on the prompt's cache, the State panel steps through the generated text, a cached position's state NumPy's recurrence's") {
    NEED_CHECKPOINTS();
    open("qwen3_5", "the cat sat on the mat");
    v.open["model_steps"] = true;
    show_panel_on_head("model_state", "model grid 0.1"); // head 1.2
    model_ui::until_run(ui); // the run that keeps the linear layers' values, asked when the panel opened
    REQUIRE(m.shown->request.capture_qkv);
    const int prompt = m.shown->t(), t = prompt + 2;
    for (int k = 1; k <= 2; ++k) {
        ui.click(ui.item("model_steps.next"));
        until(ui, [&] { return m.continued && m.continued->run->t_total == prompt + k; });
    }
    ui.frames(2);
    const auto& st = v.state<ui::ModelStateView>();
    REQUIRE(st.generation);
    std::string said = ui.screen_text("State"), want = "Generated on the prompt's cache: " + std::to_string(prompt) +
                                                       " prompt positions and 2 generated. Positions 1 to " + std::to_string(t - 1) + " came from the cache";
    for (std::string* text : {&said, &want}) // the line wraps: compared without its breaks and spaces
        text->erase(std::remove_if(text->begin(), text->end(), [](char c) { return c == ' ' || c == '\n'; }), text->end());
    CHECK(said.find(want) != std::string::npos);
    const int position = 2; // the prompt's third token: in the latest step, from the cache
    for (int k = 0; k < t - 1 - position; ++k) ui.click(ui.item("model state earlier"));
    until(ui, [&] { return st.shown && st.shown->of == st.asked && st.shown->of.position == position && st.shown->of.length == t; });
    ui.frame();
    REQUIRE(st.shown->state);
    const core::model::MatrixF& S = *st.shown->state; // (d_k, d_v)
    CHECK(st.range == S.cwiseAbs().maxCoeff());
    const std::vector<int> ids = v.state<ui::ModelStepsView>().shown.ids; // the prompt and the two tokens generated
    REQUIRE(static_cast<int>(ids.size()) == t);
    CHECK(ui.shows("State of head 1.2 after position 3 (" + m.shown->labels[2] + ")", "State"));
    std::vector<std::vector<double>> rows(static_cast<std::size_t>(S.rows()));
    for (Eigen::Index r = 0; r < S.rows(); ++r) rows[static_cast<std::size_t>(r)].assign(S.row(r).data(), S.row(r).data() + S.cols());
    check_with_numpy(linear_activations_json(*own_model().model, ids, 0), {{"head", 1}, {"position", position}, {"state", rows}});

    ui.click(ui.item("model_steps.restart")); // Start over: the panel is back on the prompt's own run
    ui.frames(2);
    CHECK_FALSE(st.generation);
    CHECK(ui.shows("State of head 1.2 after position " + std::to_string(prompt), "State"));
}

TEST_CASE_FIXTURE(ModelWorkspace, "linear head: the query-key view says in one line that a linear head has no softmax over q · k, and draws a full head") {
    NEED_CHECKPOINTS();
    open("qwen3_5", "the cat sat on the mat");
    v.open["model_qk"] = true;
    ui.click(ui.item("model grid 0.0")); // head 1.1, linear
    model_ui::until_run(ui);
    ui.frames(2);
    CHECK(ui.shows("is linear: no softmax weighs its keys", "Query–key view"));
    ui.click(ui.item("model grid 3.0")); // the full layer
    ui.frames(2);
    CHECK_FALSE(ui.shows("is linear", "Query–key view"));
    CHECK(ui.shows("Layer 4, head 1", "Query–key view"));
}

TEST_CASE_FIXTURE(ModelWorkspace, "linear head: Ctrl+click knocks a linear head out in the grid; the rerun's loss is the forward's with that head zeroed") {
    NEED_CHECKPOINTS();
    open("qwen3_5", "the cat sat on the mat and the cat");
    ImGui::GetIO().KeyCtrl = true;
    ui.click(ui.item("model grid 1.2")); // head 2.3, linear
    ImGui::GetIO().KeyCtrl = false;
    model_ui::until_run(ui);
    REQUIRE(m.shown->request.ablate == std::vector<core::model::HeadRef>{{1, 2}});
    REQUIRE(m.shown->has_loss);
    const auto opened = own_model();
    core::model::ForwardOptions o;
    o.attention = false;
    const std::optional<double> intact = core::heads::prompt_loss(opened.model->forward(m.shown->ids, o).logits, m.shown->ids);
    o.ablate = {{1, 2}};
    const std::optional<double> zeroed = core::heads::prompt_loss(opened.model->forward(m.shown->ids, o).logits, m.shown->ids);
    REQUIRE(intact);
    REQUIRE(zeroed);
    CHECK(m.shown->loss == doctest::Approx(*zeroed).epsilon(1e-6));
    CHECK(std::abs(*zeroed - *intact) > 1e-4); // the knock-out changed the run
}
