// The Model workspace's head probes driven headless: the scores of every head on the prompt and on
// the probe (chosen with one click, m and seed typed) equal core's scores of the model's own forward
// on the same ids; clicking a column header sorts the table by that score; a row selects its head;
// the grid and the table mark each score's best head. Knock-outs clicked in the grid on GPT-2, BERT
// (the [MASK] predictions) and a Llama with grouped-query attention (the loss and top 10) equal the
// model's own forward with those heads knocked out, to zero and to their mean.
#include "headless.h"
#include "tests/model_ui.h"

#include "core/heads/compare.h"
#include "core/heads/probe.h"
#include "core/heads/qk_view.h"
#include "core/heads/rollout.h"
#include "tests/checkpoint_fixtures.h"
#include "ui/model_service.h"
#include "ui/panels/model/model_grid.h"
#include "ui/panels/model/model_head_view.h"
#include "ui/panels/model/model_importance.h"
#include "ui/panels/model/model_predictions.h"
#include "ui/panels/model/model_qk.h"
#include "ui/panels/model/model_rollout.h"
#include "ui/panels/model/model_scores.h"
#include "ui/panels/model/model_sinks.h"

#include <doctest/doctest.h>
#include <cmath>
#include <cstdio>
#include <optional>

namespace {

using headless::Ui;
using core::heads::HeadScores;

using model_ui::ModelWorkspace;
using model_ui::tiny;
using model_ui::top10;
using model_ui::until_run;

// The scores straight from core on the model's own forward of `ids`.
std::vector<HeadScores> core_scores(const std::string& dir, const std::vector<int>& ids) {
    const auto opened = core::model::open_model(dir);
    const core::model::ForwardResult r = opened.model->forward(ids);
    return core::heads::all_head_scores(r.maps.all().data(), r.layers, r.heads, core::heads::score_index(ids));
}

void check_same(const std::optional<double>& a, const std::optional<double>& b) {
    REQUIRE(a.has_value() == b.has_value());
    if (a) CHECK(*a == doctest::Approx(*b).epsilon(1e-6));
}

void check_scores(const std::vector<HeadScores>& shown, const std::vector<HeadScores>& expected) {
    REQUIRE(shown.size() == expected.size());
    for (std::size_t i = 0; i < shown.size(); ++i) {
        check_same(shown[i].previous, expected[i].previous);
        check_same(shown[i].duplicate, expected[i].duplicate);
        check_same(shown[i].induction, expected[i].induction);
        check_same(shown[i].sink, expected[i].sink);
        CHECK(shown[i].entropy == doctest::Approx(expected[i].entropy).epsilon(1e-6));
    }
}

// The head with the largest induction score, found here by a plain scan.
int best_induction(const std::vector<HeadScores>& s) {
    int best = -1;
    for (std::size_t i = 0; i < s.size(); ++i)
        if (s[i].induction && (best < 0 || *s[i].induction > *s[static_cast<std::size_t>(best)].induction)) best = static_cast<int>(i);
    return best;
}

// The model's own forward of `ids` with `ablate` knocked out `how`.
core::model::ForwardResult forward(const core::model::Model& model, const std::vector<int>& ids, std::vector<core::model::HeadRef> ablate,
                                   core::model::Ablation how) {
    core::model::ForwardOptions o;
    o.ablate = std::move(ablate);
    o.ablation = how;
    return model.forward(ids, o);
}

// The model's own forward with `ablate` knocked out: its top 10 after the last token and its loss.
struct Direct {
    std::vector<int> top;
    double loss = 0.0;
};
Direct direct(const core::model::Model& model, const std::vector<int>& ids, std::vector<core::model::HeadRef> ablate,
              core::model::Ablation how) {
    const core::model::ForwardResult r = forward(model, ids, std::move(ablate), how);
    return {top10(r, static_cast<int>(ids.size()) - 1), *core::heads::prompt_loss(r.logits, ids)};
}

// Position i's ten most likely ids (lower id on a tie) and their softmax probabilities, from logits.
struct Top {
    std::vector<int> ids;
    std::vector<double> p;
};
Top top10_with_p(const core::model::ForwardResult& r, int i) {
    const int V = static_cast<int>(r.logits.cols());
    const float* row = r.logits.data() + static_cast<std::ptrdiff_t>(i) * V;
    const double hi = *std::max_element(row, row + V);
    double sum = 0.0;
    for (int j = 0; j < V; ++j) sum += std::exp(row[j] - hi);
    const std::vector<int> order = model_ui::ranked_next_ids(r, i);
    Top t;
    for (int k = 0; k < 10 && k < V; ++k) {
        t.ids.push_back(order[static_cast<std::size_t>(k)]);
        t.p.push_back(std::exp(row[order[static_cast<std::size_t>(k)]] - hi) / sum);
    }
    return t;
}

// The mean next-token cross-entropy of the prompt, written here from the logits.
double loss_of(const core::model::ForwardResult& r, const std::vector<int>& ids) {
    const int V = static_cast<int>(r.logits.cols());
    double total = 0.0;
    for (std::size_t i = 0; i + 1 < ids.size(); ++i) {
        const float* row = r.logits.data() + static_cast<std::ptrdiff_t>(i) * V;
        const double hi = *std::max_element(row, row + V);
        double sum = 0.0;
        for (int j = 0; j < V; ++j) sum += std::exp(row[j] - hi);
        total += std::log(sum) + hi - row[ids[i + 1]];
    }
    return total / static_cast<double>(ids.size() - 1);
}

// The panel's predictions at position i equal `want`'s ids, and their probabilities.
void check_top(const std::vector<core::model::Prediction>& shown, const Top& want) {
    REQUIRE(shown.size() == want.ids.size());
    for (std::size_t k = 0; k < shown.size(); ++k) {
        CHECK(shown[k].id == want.ids[k]);
        CHECK(shown[k].probability == doctest::Approx(want.p[k]).epsilon(1e-4));
    }
}

// The largest gap between two lists' probabilities of the same ids.
double probability_gap(const Top& a, const Top& b) {
    double gap = a.ids == b.ids ? 0.0 : 1.0;
    for (std::size_t k = 0; k < a.p.size() && k < b.p.size(); ++k) gap = std::max(gap, std::abs(a.p[k] - b.p[k]));
    return gap;
}

// Knock-out mode, then a click on each of `cells` ("model grid L.H"), each run waited for.
void knock_out_heads(Ui& ui, std::initializer_list<const char*> cells) {
    ui.click(ui.item("model grid knock out"));
    for (const char* cell : cells) {
        ui.click(ui.item(cell));
        until_run(ui);
    }
}

// The grid's Clear: no head knocked out, the prompt rerun intact.
void clear_knock_outs(Ui& ui) {
    ui.click(ui.item("model grid clear"));
    until_run(ui);
}

// Knock-outs by their mean from now on: the choice reruns the prompt.
void knock_out_by_mean(Ui& ui) {
    ui::ModelService& m = ui.st().view.state<ui::ModelService>();
    m.ablation = core::model::Ablation::mean;
    m.run_prompt();
    until_run(ui);
}

} // namespace

TEST_CASE_FIXTURE(ModelWorkspace, "model probes: head scores on the prompt and the probe, a sorted table, a row selects, the best marked") {
    NEED_CHECKPOINTS();
    open("gpt2", "the cat sat on the mat and the cat sat on the mat");
    CHECK(v.open["model_scores"]);
    const std::vector<int> prompt_ids = encoded_prompt();
    REQUIRE(m.shown->scored_ids == prompt_ids);
    check_scores(m.shown->scores, core_scores(tiny("gpt2"), prompt_ids));

    // The probe, with m and seed typed: the ids are the seeded sequence after BOS, without special tokens.
    ui.click(ui.item("model scores probe"));
    until_run(ui);
    ui.type_into(ui.item("model scores m"), "6");
    ui.type_into(ui.item("model scores seed"), "7");
    until_run(ui);
    const auto opened = own_model();
    const int bos = opened.model->config().bos_token_id;
    REQUIRE(bos >= 0);
    const std::vector<int> probe = core::heads::probe_sequence(6, 7, opened.model->config().vocab, {bos, 50256}, bos);
    REQUIRE(m.shown->scored_ids == probe);
    CHECK(m.shown->ids == prompt_ids); // the panels still show the prompt
    const std::vector<HeadScores> expected = core_scores(tiny("gpt2"), probe);
    check_scores(m.shown->scores, expected);
    for (const HeadScores& s : m.shown->scores) CHECK(s.induction.has_value());

    // Sorting by induction (a click: highest first), then the other way (a second click).
    const auto& table = v.state<ui::ModelScoresView>();
    ui.click(ui.item("model scores header 3"));
    ui.frames(2);
    REQUIRE(table.order.size() == expected.size());
    for (std::size_t k = 1; k < table.order.size(); ++k)
        CHECK(*expected[static_cast<std::size_t>(table.order[k - 1])].induction >= *expected[static_cast<std::size_t>(table.order[k])].induction);
    CHECK(table.order.front() == best_induction(expected));
    ui.click(ui.item("model scores header 3"));
    ui.frames(2);
    for (std::size_t k = 1; k < table.order.size(); ++k)
        CHECK(*expected[static_cast<std::size_t>(table.order[k - 1])].induction <= *expected[static_cast<std::size_t>(table.order[k])].induction);
    // Sorting by entropy, lowest first.
    ui.click(ui.item("model scores header 4"));
    ui.frames(2);
    for (std::size_t k = 1; k < table.order.size(); ++k)
        CHECK(expected[static_cast<std::size_t>(table.order[k - 1])].entropy <= expected[static_cast<std::size_t>(table.order[k])].entropy);

    // The grid marks the best induction head; a click on the table's last row selects that head.
    const int H = m.shown->heads();
    CHECK(v.state<ui::ModelGridView>().best[ui::score_induction] == best_induction(expected));
    const int last = table.order.back();
    ui.click(ui.item("model scores row " + std::to_string(last / H) + "." + std::to_string(last % H)));
    ui.frames(2);
    CHECK(m.layer == last / H);
    CHECK(m.head == last % H);

    // Back to the prompt: its own scores again.
    ui.click(ui.item("model scores prompt"));
    until_run(ui);
    CHECK(m.shown->scored_ids == prompt_ids);
    check_scores(m.shown->scores, core_scores(tiny("gpt2"), prompt_ids));

    // Sorting by the sink share (the last column), largest first; the heads past the threshold are
    // named "sink" in the rows in view, the others not.
    ui.click(ui.item("model scores header 5"));
    ui.frames(2);
    const std::vector<HeadScores>& shown = m.shown->scores;
    REQUIRE(table.order.size() == shown.size());
    for (std::size_t k = 1; k < table.order.size(); ++k)
        CHECK(*shown[static_cast<std::size_t>(table.order[k - 1])].sink >= *shown[static_cast<std::size_t>(table.order[k])].sink);
    const double top = *shown[static_cast<std::size_t>(table.order.front())].sink;
    char named[48];
    std::snprintf(named, sizeof named, "%.3fsink", top); // screen_text() joins a word to the next
    CHECK(ui.screen_text().find("|sink") != std::string::npos); // the column's header
    CHECK((ui.screen_text().find(named) != std::string::npos) == (top >= core::heads::sink_threshold));
}

TEST_CASE_FIXTURE(ModelWorkspace, "model probes: clicking heads in knock-out mode updates the top 10 and the loss beside the intact ones") {
    NEED_CHECKPOINTS();
    open("gpt2", "the cat sat on the mat and the cat");
    const auto opened = own_model();
    const std::vector<int> ids = encoded_prompt();
    const Direct intact = direct(*opened.model, ids, {}, core::model::Ablation::zero);
    const auto& preds = v.state<ui::ModelPredictionsView>();
    CHECK(preds.shown == intact.top);
    CHECK(preds.loss == doctest::Approx(intact.loss).epsilon(1e-5));
    CHECK(preds.intact_shown.empty());

    // Knock-out mode: two clicks knock out two heads; the selection stays where it was.
    knock_out_heads(ui, {"model grid 1.1", "model grid 0.1"});
    CHECK(m.layer == 0);
    CHECK(m.head == 0);
    const std::vector<core::model::HeadRef> two = {{1, 1}, {0, 1}};
    REQUIRE(m.shown->request.ablate == two);
    const Direct zeroed = direct(*opened.model, ids, two, core::model::Ablation::zero);
    CHECK(preds.shown == zeroed.top);
    CHECK(preds.loss == doctest::Approx(zeroed.loss).epsilon(1e-5));
    CHECK(preds.loss != doctest::Approx(intact.loss).epsilon(1e-5));
    CHECK(preds.intact_shown == intact.top);
    CHECK(preds.intact_loss == doctest::Approx(intact.loss).epsilon(1e-5));

    // A second click on a knocked-out head brings it back.
    ui.click(ui.item("model grid 0.1"));
    until_run(ui);
    REQUIRE(m.shown->request.ablate == std::vector<core::model::HeadRef>{{1, 1}});
    CHECK(preds.shown == direct(*opened.model, ids, {{1, 1}}, core::model::Ablation::zero).top);

    // By its mean: the choice reruns with the mean of each knocked-out head's output.
    knock_out_by_mean(ui);
    const Direct meaned = direct(*opened.model, ids, {{1, 1}}, core::model::Ablation::mean);
    CHECK(preds.shown == meaned.top);
    CHECK(preds.loss == doctest::Approx(meaned.loss).epsilon(1e-5));

    // Out of knock-out mode a plain click selects; Ctrl+click still knocks out.
    ui.click(ui.item("model grid knock out"));
    ui.click(ui.item("model grid 1.0"));
    ui.frames(2);
    CHECK(m.layer == 1);
    CHECK(m.head == 0);
    CHECK(m.ablate.size() == 1);
    ImGui::GetIO().KeyCtrl = true;
    ui.click(ui.item("model grid 0.0"));
    ImGui::GetIO().KeyCtrl = false;
    until_run(ui);
    CHECK(m.ablate.size() == 2);

    // Clear all: the intact predictions alone again.
    clear_knock_outs(ui);
    CHECK(m.ablate.empty());
    CHECK(preds.shown == intact.top);
    CHECK(preds.intact_shown.empty());
    CHECK(preds.loss == doctest::Approx(intact.loss).epsilon(1e-5));
}

TEST_CASE_FIXTURE(ModelWorkspace, "model probes: head importance runs on a worker with progress and shows core's deltas as a layer x head map") {
    NEED_CHECKPOINTS();
    open("gpt2", "the cat sat on the mat and the cat");
    CHECK(v.open["model_importance"]);
    ui.click(ui.item("model importance run"));
    for (int k = 0; k < 400 && m.importance.state().running; ++k) {
        m.importance.wait_idle(headless::worker_wait);
        ui.frame();
    }
    ui.frames(2);
    const auto st = m.importance.state();
    REQUIRE(st.result);
    CHECK(st.done == st.total);
    CHECK(st.total == 4);
    const auto opened = own_model();
    const std::vector<int> ids = encoded_prompt();
    const core::model::HeadImportance expected = core::model::head_importance(*opened.model, ids);
    REQUIRE(st.result->ids == ids);
    CHECK(st.result->importance.loss == doctest::Approx(expected.loss).epsilon(1e-9));
    REQUIRE(st.result->importance.delta.rows() == 2);
    REQUIRE(st.result->importance.delta.cols() == 2);
    const auto& view = v.state<ui::ModelImportanceView>();
    // Hover names the head's Δloss; a click selects the head.
    model_ui::hover_each_head_then_select(ui, "importance", [&](int l, int h) {
        CHECK(st.result->importance.delta(l, h) == doctest::Approx(expected.delta(l, h)).epsilon(1e-9));
        CHECK(view.hovered == l * 2 + h);
        CHECK(view.hovered_delta == doctest::Approx(expected.delta(l, h)).epsilon(1e-9));
    });
    // Another prompt: the map stays, named as measured on the one before.
    m.prompt = "the dog sat";
    m.run_prompt();
    model_ui::until_run(ui);
    std::string text = ui.screen_text("Head importance");
    text.erase(std::remove(text.begin(), text.end(), '\n'), text.end());
    CHECK(text.find("Measuredongpt2withtheprompt\"thecatsatonthematandthecat\":measureagainforthisone.") != std::string::npos);
}

TEST_CASE_FIXTURE(ModelWorkspace, "model probes: the rollout map and the head view's rollout lines equal core's rollout of the attention") {
    NEED_CHECKPOINTS();
    open("gpt2", "the cat sat on the mat");
    v.open["model_rollout"] = true; // as View ▸ Attention rollout does
    ui.frames(2);
    const auto opened = own_model();
    const std::vector<int> ids = encoded_prompt();
    const core::model::ForwardResult r = opened.model->forward(ids);
    const int t = static_cast<int>(ids.size());
    const core::model::MatrixF R = core::heads::rollout(r.maps.all().data(), r.layers, r.heads, t);
    const auto& map = v.state<ui::ModelRolloutView>();
    for (int i : {0, t / 2, t - 1})
        for (int j : {0, i}) {
            ui.move(ui.grid_cell("rollout", i, j));
            ui.frame();
            CHECK(map.hovered_row == i);
            CHECK(map.hovered_column == j);
            CHECK(map.hovered_value == doctest::Approx(R(i, j)).epsilon(1e-5));
        }
    // The head view's rollout lines: one per weight ≥ its threshold, with the rollout's values.
    ui.click(ui.item("model head view rollout"));
    ui.frames(2);
    const auto& hv = v.state<ui::ModelHeadView>();
    int expected = 0;
    for (int i = 0; i < t; ++i)
        for (int j = 0; j < t; ++j) expected += R(i, j) >= ui::ModelHeadView::min_weight;
    CHECK(static_cast<int>(hv.lines.size()) == expected);
    for (const auto& line : hv.lines) {
        CHECK(line.head == -1);
        CHECK(line.weight == doctest::Approx(R(line.query, line.key)).epsilon(1e-5));
    }
}

TEST_CASE_FIXTURE(ModelWorkspace, "model probes: the query-key view of the selected head equals core's view of the captured q and k — hover draws its lines") {
    NEED_CHECKPOINTS();
    open("gpt2", "the cat sat on the mat");
    v.open["model_qk"] = true; // as View ▸ Query–key view does
    ui.frames(2);
    until_run(ui);
    ui.click(ui.item("model grid 1.1"));
    ui.frames(2);
    const auto opened = own_model();
    const std::vector<int> ids = encoded_prompt();
    core::model::ForwardOptions o;
    o.capture_qkv = true;
    const core::model::ForwardResult r = opened.model->forward(ids, o);
    const int t = static_cast<int>(ids.size());
    const core::model::HeadCapture& c = r.captures[1 * r.heads + 1];
    const core::Matrix Q = c.q.cast<double>(), K = c.k.cast<double>();
    const auto& qk = v.state<ui::ModelQKView>();
    REQUIRE(qk.layer == 1);
    REQUIRE(qk.head == 1);
    const core::heads::QKView pca = core::heads::query_key_view(Q, K, core::heads::QKPlane::principal);
    CHECK(qk.plane.view.plane == core::heads::QKPlane::principal);
    CHECK(qk.plane.view.variance_kept == doctest::Approx(pca.variance_kept).epsilon(1e-4));
    CHECK(std::abs(qk.plane.view.query_points(t - 1, 0)) == doctest::Approx(std::abs(pca.query_points(t - 1, 0))).epsilon(1e-3));
    CHECK(ui.shows("keeps"));
    CHECK(ui.shows("principal components 1 and 2"));
    // The plane of the last query and its top key: their dot product is exact in it.
    ui.click(ui.item("model qk query plane"));
    ui.frames(2);
    const core::model::MatrixF A = r.maps.head(1, 1);
    const float* a = A.data() + static_cast<std::ptrdiff_t>(t - 1) * t;
    const int top = static_cast<int>(std::max_element(a, a + t) - a);
    CHECK(qk.plane.top_key == top);
    const core::heads::QKView qplane = core::heads::query_key_view(Q, K, core::heads::QKPlane::query_and_key, t - 1, top);
    CHECK(qk.plane.view.plane == core::heads::QKPlane::query_and_key);
    CHECK(qk.plane.view.variance_kept == doctest::Approx(qplane.variance_kept).epsilon(1e-4));
    const double in_plane = qk.plane.view.query_points.row(t - 1).dot(qk.plane.view.key_points.row(top));
    CHECK(in_plane == doctest::Approx(qk.plane.view.queries.row(t - 1).dot(qk.plane.view.keys.row(top))).epsilon(1e-6));
    CHECK(ui.shows("the query and its top key"));
    // Hovering query 2 draws its lines: one per key it can see (causal: 3).
    ui.move(qk.plane.query_dots[2]);
    ui.frame();
    CHECK(qk.plane.hovered_query == 2);
    CHECK(qk.plane.lines_drawn == 3);
    // Names never cover each other.
    const auto& boxes = qk.plane.label_boxes;
    REQUIRE(boxes.size() >= 3);
    for (std::size_t i = 1; i < boxes.size(); ++i)
        for (std::size_t j = 0; j < i; ++j) CHECK_FALSE(boxes[i].Overlaps(boxes[j]));
    // Its tooltip names its top key and that key's weight, as Explore's query-key plane does.
    const float* row2 = A.data() + 2 * t;
    const int top2 = static_cast<int>(std::max_element(row2, row2 + 3) - row2);
    char tip[96];
    std::snprintf(tip, sizeof tip, "top key k_%s, w = %.3f", m.shown->labels[static_cast<std::size_t>(top2)].c_str(), static_cast<double>(row2[top2]));
    CHECK(ui.shows(tip, "##Tooltip_00"));
    // A click selects that query; the plane of the query and its top key follows it.
    ui.click(qk.plane.query_dots[2]);
    ui.frames(2);
    CHECK(m.query_position() == 2);
    CHECK(qk.plane.top_key == top2);
}

TEST_CASE_FIXTURE(ModelWorkspace, "model knock-outs on BERT: clicked heads change the [MASK] predictions to the ablated forward's, zero and mean") {
    NEED_CHECKPOINTS();
    open("bert", "the [MASK] sat on the mat . a dog [MASK] over it");
    const auto opened = own_model();
    const std::vector<int> ids = m.shown->ids;
    REQUIRE(ids == encoded_prompt());
    std::vector<int> masks;
    for (std::size_t i = 0; i < ids.size(); ++i)
        if (ids[i] == 4) masks.push_back(static_cast<int>(i)); // [MASK]
    REQUIRE(masks.size() == 2);
    const core::model::ForwardResult intact = forward(*opened.model, ids, {}, core::model::Ablation::zero);
    for (int i : masks) check_top(m.shown->top[static_cast<std::size_t>(i)], top10_with_p(intact, i));

    knock_out_heads(ui, {"model grid 0.1", "model grid 1.0"});
    const std::vector<core::model::HeadRef> two = {{0, 1}, {1, 0}};
    REQUIRE(m.shown->request.ablate == two);
    for (const core::model::Ablation how : {core::model::Ablation::zero, core::model::Ablation::mean}) {
        CAPTURE(static_cast<int>(how));
        if (how == core::model::Ablation::mean) knock_out_by_mean(ui);
        const core::model::ForwardResult knocked = forward(*opened.model, ids, two, how);
        REQUIRE(m.shown->has_intact);
        const auto& preds = v.state<ui::ModelPredictionsView>();
        std::vector<int> listed, listed_intact;
        for (int i : masks) {
            check_top(m.shown->top[static_cast<std::size_t>(i)], top10_with_p(knocked, i));
            check_top(m.shown->intact_top[static_cast<std::size_t>(i)], top10_with_p(intact, i));
            CHECK(probability_gap(top10_with_p(knocked, i), top10_with_p(intact, i)) > 1e-4); // the knock-out shows
            for (int id : top10_with_p(knocked, i).ids) listed.push_back(id);
            for (int id : top10_with_p(intact, i).ids) listed_intact.push_back(id);
        }
        CHECK(preds.shown == listed); // both masks' lists on screen, the intact ones beside them
        CHECK(preds.intact_shown == listed_intact);
        CHECK(ui.shows("Knocked out"));
        CHECK(ui.shows("Intact"));
    }
    clear_knock_outs(ui);
    CHECK(!m.shown->has_intact);
    for (int i : masks) check_top(m.shown->top[static_cast<std::size_t>(i)], top10_with_p(intact, i));
}

TEST_CASE_FIXTURE(ModelWorkspace, "model knock-outs on a Llama with grouped-query attention: the loss and top 10 follow the ablated forward, zero and mean") {
    NEED_CHECKPOINTS();
    open("llama_gqa", "the cat sat on the mat and the cat");
    const auto opened = own_model();
    REQUIRE(opened.model->config().kv_heads < opened.model->config().heads);
    const std::vector<int> ids = m.shown->ids;
    const int last = static_cast<int>(ids.size()) - 1;
    const core::model::ForwardResult intact = forward(*opened.model, ids, {}, core::model::Ablation::zero);
    const auto& preds = v.state<ui::ModelPredictionsView>();
    CHECK(preds.loss == doctest::Approx(loss_of(intact, ids)).epsilon(1e-5));

    // Two heads of one key/value group (heads 1 and 2 of layer 2 share their keys and values) and one of another.
    knock_out_heads(ui, {"model grid 1.0", "model grid 1.1", "model grid 0.3"});
    const std::vector<core::model::HeadRef> three = {{1, 0}, {1, 1}, {0, 3}};
    REQUIRE(m.shown->request.ablate == three);
    for (const core::model::Ablation how : {core::model::Ablation::zero, core::model::Ablation::mean}) {
        CAPTURE(static_cast<int>(how));
        if (how == core::model::Ablation::mean) knock_out_by_mean(ui);
        const core::model::ForwardResult knocked = forward(*opened.model, ids, three, how);
        CHECK(preds.loss == doctest::Approx(loss_of(knocked, ids)).epsilon(1e-5));
        CHECK(preds.intact_loss == doctest::Approx(loss_of(intact, ids)).epsilon(1e-5));
        CHECK(std::abs(preds.loss - preds.intact_loss) > 1e-5); // the loss moved
        CHECK(preds.shown == top10_with_p(knocked, last).ids);
        CHECK(preds.intact_shown == top10_with_p(intact, last).ids);
        check_top(m.shown->top[static_cast<std::size_t>(last)], top10_with_p(knocked, last));
        CHECK(ui.shows("intact"));
    }
    clear_knock_outs(ui);
    CHECK(preds.loss == doctest::Approx(loss_of(intact, ids)).epsilon(1e-5));
    CHECK(preds.intact_shown.empty());
}

// The Attention sinks panel: the pointer on each corner head and the centre of its layers × heads map
// names that head and its share (the model's own forward, written out here), a click selects it, and
// the selected head's bars are its map's first column at positions 2 … t.
TEST_CASE_FIXTURE(ModelWorkspace, "model sinks: every head of the map answers the pointer with its share, a click selects it, its bars are its weight on position 1") {
    NEED_CHECKPOINTS();
    open("gpt2", "the cat sat on the mat and the cat sat on the mat");
    v.open["model_sinks"] = true;
    ui.frames(3);
    const auto& st = v.state<ui::ModelSinksView>();
    const std::vector<int> ids = encoded_prompt();
    const auto opened = own_model();
    const core::model::ForwardResult r = opened.model->forward(ids);
    const int L = r.layers, H = r.heads, t = static_cast<int>(ids.size());
    const auto every_map = r.maps.all();
    const float* all = every_map.data(); // (L, H, t, t)
    REQUIRE(v.grids.count("sinks"));
    const ui::GridGeometry g = v.grids["sinks"];
    for (const std::pair<int, int>& cell : std::vector<std::pair<int, int>>{{0, 0}, {0, H - 1}, {L - 1, 0}, {L - 1, H - 1}, {L / 2, H / 2}}) {
        const int l = cell.first, h = cell.second;
        CAPTURE(l);
        CAPTURE(h);
        const ImVec2 at(g.cell_origin.x + (static_cast<float>(h) + 0.5f) * g.cell_size.x, g.cell_origin.y + (static_cast<float>(l) + 0.5f) * g.cell_size.y);
        REQUIRE(g.visible.Contains(at));
        double share = 0.0; // the mean of column 1 over queries 2 … t
        for (int i = 1; i < t; ++i) share += all[((static_cast<std::ptrdiff_t>(l) * H + h) * t + i) * t];
        share /= t - 1;
        char said[96];
        std::snprintf(said, sizeof said, "layer %d, head %d: %.3f", l + 1, h + 1, share);
        ui.move(at);
        ui.frame();
        CHECK(st.hovered == l * H + h);
        CHECK(ui.shows(said, "##Tooltip_00"));
        ui.click(at);
        ui.frames(3);
        CHECK(m.layer == l);
        CHECK(m.head == h);
        REQUIRE(st.shares.size() == static_cast<std::size_t>(t - 1));
        for (int i = 1; i < t; ++i) CHECK(st.shares[static_cast<std::size_t>(i - 1)] == all[((static_cast<std::ptrdiff_t>(l) * H + h) * t + i) * t]);
    }
}
