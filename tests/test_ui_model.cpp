// The Model panels driven headless: a prompt typed into the box runs on the session's worker and the
// grid, the head view, the map and the top 10 follow a clicked head and token (against the model's
// own forward); a model directory that does not open leaves the open one and shows the error naming
// the file; File ▸ Open model… lists the Hugging Face cache with sizes and opens from it.
#include "headless.h"
#include "tests/model_ui.h"

#include "tests/checkpoint_fixtures.h"
#include "ui/model_service.h"
#include "ui/panels/model/model_grid.h"
#include "ui/panels/model/model_head_view.h"
#include "ui/panels/model/model_map.h"
#include "ui/panels/model/model_predictions.h"
#include "core/wake.h"

#include <doctest/doctest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace {

using headless::Ui;

using model_ui::ModelWorkspace;
using model_ui::tiny;
using model_ui::top10;
using model_ui::until_run;

} // namespace

TEST_CASE_FIXTURE(ModelWorkspace, "model panels: type a prompt, select a head and a token — the grid, head view, map and top 10 follow") {
    NEED_CHECKPOINTS();
    open("gpt2");
    CHECK(v.open["model_grid"]);
    // Typing: select what is in the box and type a new prompt.
    const std::string text = "A dog saw a dog";
    ui.click(ui.item("model prompt"));
    ui.key('A', true);
    ui.type(text);
    until_run(ui);
    const auto opened = own_model();
    const std::vector<int> ids = core::model::load_tokenizer(tiny("gpt2")).encode_ids(text);
    REQUIRE(v.state<ui::ModelService>().shown->ids == ids);
    const core::model::ForwardResult direct = opened.model->forward(ids);
    const int t = static_cast<int>(ids.size());
    // The grid: click layer 2, head 1.
    ui.click(ui.item("model grid 1.0"));
    ui.frames(2);
    CHECK(v.state<ui::ModelService>().layer == 1);
    CHECK(v.state<ui::ModelService>().head == 0);
    const auto& map = v.state<ui::ModelMapView>();
    CHECK(map.layer == 1);
    CHECK(map.head == 0);
    CHECK(map.row_labels > 0);
    CHECK(map.column_labels > 0);
    // The head view draws that head's lines with the model's weights.
    const auto& hv = v.state<ui::ModelHeadView>();
    CHECK(hv.layer == 1);
    CHECK(hv.heads == std::vector<int>{0});
    const core::model::MatrixF A = direct.maps.head(1, 0);
    const float* a = A.data();
    int expected = 0;
    for (int k = 0; k < t * t; ++k) expected += a[k] >= ui::ModelHeadView::min_weight;
    CHECK(static_cast<int>(hv.lines.size()) == expected);
    for (const auto& line : hv.lines) CHECK(line.weight == a[line.query * t + line.key]);
    // The top 10 after the last token, then after a clicked chip.
    CHECK(v.state<ui::ModelPredictionsView>().shown == top10(direct, t - 1));
    ui.click(ui.item("model chip 2"));
    ui.frames(2);
    CHECK(v.state<ui::ModelService>().query_position() == 2);
    CHECK(v.state<ui::ModelPredictionsView>().shown == top10(direct, 2));
    // Hovering a query in the head view shows only its row.
    ui.move(ui.item("model head view query 3"));
    ui.frame();
    REQUIRE(!hv.lines.empty());
    for (const auto& line : hv.lines) CHECK(line.query == 3);
    // Another head from the grid: the head view follows.
    ui.click(ui.item("model grid 0.1"));
    ui.frames(2);
    CHECK(hv.layer == 0);
    CHECK(hv.heads == std::vector<int>{1});
}

// The window rests during a forward (ui/frame_policy.h): it draws when a layer is done, as the
// session tells it, and when the run is published.
TEST_CASE_FIXTURE(ModelWorkspace, "model panels: a forward wakes the window once a layer, then for its run, and moves nothing between") {
    open("gpt2");
    const int layers = m.session.opened()->model->config().layers;
    REQUIRE(layers >= 2);
    const unsigned long long before = core::wakes();
    m.prompt = "A dog saw a cat";
    m.run_prompt();
    REQUIRE(m.session.wait_idle(60));
    CHECK(core::wakes() - before == static_cast<unsigned long long>(layers) + 1);
    ui.frame();
    CHECK(m.seen == m.asked);
    CHECK_FALSE(ui.app().motion().moving);
}

TEST_CASE_FIXTURE(ModelWorkspace, "model panels: a model directory that does not open leaves the open one and names the file") {
    NEED_CHECKPOINTS();
    open("gpt2");
    const auto before = ui.st().view.state<ui::ModelService>().shown;
    const std::string bad = fixtures::temp_dir();
    std::ofstream(bad + "/config.json") << R"({"architectures": ["GPT2LMHeadModel"], "n_embd": 64, "n_head": 4, "n_layer": 2})";
    ui.app().drop_files({bad});
    ui.frames(4);
    CHECK(m.open_error.find(bad) != std::string::npos);
    CHECK(m.session.model_path() == tiny("gpt2"));
    CHECK(m.shown == before);
    CHECK(ui.st().view.status == m.open_error);
    CHECK(ui.st().view.status_is_error);
}

TEST_CASE_FIXTURE(ModelWorkspace, "model panels: a failed open's message goes once the next run shows, and the tokens · ms line is back") {
    NEED_CHECKPOINTS();
    open("gpt2", "the cat sat");
    const std::string missing = fixtures::temp_dir() + "/no-such-model";
    CHECK_FALSE(m.open(missing, v));
    ui.frames(2);
    CHECK(ui.shows(missing, "Model"));
    ui.click(ui.item("model prompt"));
    ui.key('A', true);
    ui.type("the cat sat on the mat");
    until_run(ui);
    CHECK(m.shown->request.text == "the cat sat on the mat");
    CHECK(m.open_error.empty());
    CHECK_FALSE(ui.shows(missing, "Model"));
    CHECK(ui.shows(std::to_string(m.shown->t()) + " tokens ·", "Model"));
}

TEST_CASE("model panels: Open model lists the Hugging Face cache with sizes and opens a model from it") {
    NEED_CHECKPOINTS();
    const std::string hub = fixtures::temp_dir();
    fixtures::add_to_fake_cache(hub, "tiny/bert", tiny("bert"));
    fixtures::add_to_fake_cache(hub, "tiny/gpt2", tiny("gpt2"));
    ::setenv("HF_HUB_CACHE", hub.c_str(), 1);
    Ui ui;
    ui::ask_model(ui.st().view); // as File ▸ Open model… does
    model_ui::until_listed(ui);
    CHECK(ui.shows("tiny/bert"));
    CHECK(ui.shows("tiny/gpt2"));
    const auto listed = core::model::list_cached_models(hub);
    REQUIRE(listed.size() == 2);
    CHECK(listed[1].bytes > 0);
    char size[32];
    std::snprintf(size, sizeof size, "%.1f MB", static_cast<double>(listed[1].bytes) / (1 << 20));
    if (listed[1].bytes < (1u << 20)) std::snprintf(size, sizeof size, "%.0f KB", static_cast<double>(listed[1].bytes) / 1024.0);
    CHECK(ui.shows(size));
    ui.click(ui.item("model cached 1"));
    until_run(ui);
    CHECK(ui.st().view.state<ui::ModelService>().session.model_name() == "tiny/gpt2");
    CHECK(!ui.st().view.state<ui::ModelService>().show_chooser);
    ::unsetenv("HF_HUB_CACHE");
}

namespace {

namespace fs = std::filesystem;

// A copy of a fixture checkpoint to break.
std::string copy_of(const std::string& name) {
    const std::string dir = fixtures::temp_dir() + "/" + name;
    fs::create_directories(dir);
    for (const auto& f : fs::directory_iterator(tiny(name))) fs::copy_file(f.path(), dir + "/" + f.path().filename().string());
    return dir;
}

} // namespace

TEST_CASE_FIXTURE(ModelWorkspace, "model panels: each bad model or prompt is one line naming what is wrong, and the open model stays") {
    NEED_CHECKPOINTS();
    open("gpt2");
    const auto good = m.shown;
    REQUIRE(good != nullptr);
    SUBCASE("models that do not open") {
        struct Bad {
            std::string dir, names;
        };
        std::vector<Bad> bad;
        const std::string no_config = copy_of("gpt2");
        fs::remove(no_config + "/config.json");
        bad.push_back({no_config, "config.json"});
        const std::string unknown = copy_of("gpt2");
        std::ofstream(unknown + "/config.json") << R"({"architectures": ["MambaForCausalLM"], "model_type": "mamba"})";
        bad.push_back({unknown, "MambaForCausalLM"});
        const std::string truncated = copy_of("gpt2");
        fs::resize_file(truncated + "/model.safetensors", fs::file_size(truncated + "/model.safetensors") / 2);
        bad.push_back({truncated, "model.safetensors"});
        const std::string tokenizer = copy_of("gpt2");
        std::ofstream(tokenizer + "/tokenizer.json") << "{\"model\": ";
        bad.push_back({tokenizer, "tokenizer.json"});
        for (const Bad& b : bad) {
            INFO(b.dir);
            ui.app().drop_files({b.dir});
            ui.frames(3);
            CHECK(m.open_error.find(b.names) != std::string::npos);
            CHECK(m.open_error.find('\n') == std::string::npos);
            CHECK(m.session.model_path() == tiny("gpt2"));
            CHECK(m.shown == good);
            CHECK(ui.st().view.status_is_error);
        }
        CHECK(ui.shows("the open model stays", "Model"));
    }
    SUBCASE("a prompt past the context, then invalid UTF-8: the maps keep the run before") {
        ui.click(ui.item("model prompt"));
        ui.key('A', true);
        std::string words;
        for (int k = 0; k < 40; ++k) words += " cat";
        ui.type(words);
        until_run(ui);
        CHECK(m.run_error == "the text is 40 tokens; " + tiny("gpt2") + " takes at most 32");
        CHECK(m.shown == good);
        CHECK(ui.shows("the maps show the run before", "Model"));
        ui.click(ui.item("model chip 0")); // out of the box, which would keep its own copy of the text
        m.prompt = "caf\xc3 au lait";       // pasted: a lone lead byte
        m.run_prompt();
        until_run(ui);
        INFO(m.run_error);
        CHECK(m.run_error.find("byte 3") != std::string::npos);
        CHECK(m.shown == good);
        CHECK(m.session.model_path() == tiny("gpt2"));
    }
}

TEST_CASE("model panels: the command line's model is read in the background — its head and prompt come with it") {
    NEED_CHECKPOINTS();
    Ui ui;
    ui::ModelService& m = ui.st().view.state<ui::ModelService>();
    const auto arrive = [&] {
        for (int k = 0; k < 400 && m.opening(); ++k) {
            m.loading.wait_idle(headless::worker_wait);
            ui.frame();
        }
        REQUIRE_FALSE(m.opening());
    };
    std::string error;
    REQUIRE(ui.app().open_model(tiny("gpt2"), "A dog saw a dog", false, error, 1, 1));
    ui.frames(2);
    CHECK(ui.app().workspace() == "model");
    arrive();
    REQUIRE(m.session.has_model());
    until_run(ui);
    CHECK(m.shown->ids == core::model::load_tokenizer(tiny("gpt2")).encode_ids("A dog saw a dog"));
    CHECK(m.layer == 1);
    CHECK(m.head == 1);
    CHECK(ui.shows("Layer 2, head 2", "Head map"));
    // A tokenizer that does not load: the line names it, and the model before stays.
    const std::string bad = copy_of("gpt2");
    std::ofstream(bad + "/tokenizer.json") << "[";
    REQUIRE(ui.app().open_model(bad, "", false, error));
    arrive();
    ui.frame();
    CHECK(m.open_error.find(bad + "/tokenizer.json") != std::string::npos);
    CHECK(m.session.model_path() == tiny("gpt2"));
    CHECK(ui.st().view.status == m.open_error);
}

TEST_CASE("model panels: with no model open the workspace is one start — its first button opens the bundled model and the panels come") {
    Ui ui;
    ui::View& v = ui.st().view;
    ui::ModelService& m = v.state<ui::ModelService>();
    v.request_workspace = "model";
    ui.frames(4);
    REQUIRE(ui.app().workspace() == "model");
    const char* panels[] = {"model_tokens", "model_grid", "model_head_view", "model_map", "model_predictions", "model_steps", "model_scores", "model_importance"};
    for (const char* id : panels) {
        CAPTURE(id);
        CHECK_FALSE(v.open[id]);
    }
    CHECK(v.open["model"]);
    CHECK_FALSE(ui.shows("No model is open."));
    CHECK(ui.shows("Open a model to type a sentence"));
    for (const char* item : {"model open bundled", "model open cache", "model open folder"}) {
        CAPTURE(item);
        CHECK(v.items.count(item) == 1);
    }
    ui.click(ui.item("model open cache"));
    ui.frames(2);
    CHECK(m.show_chooser); // the chooser lists the cache
    m.show_chooser = false;
    ui.frames(2);
    ui.click(ui.item("model open bundled"));
    until_run(ui);
    REQUIRE(m.session.has_model());
    CHECK(m.session.model_name() == std::filesystem::path(ui::bundled_model_dir()).filename().string());
    for (const char* id : panels) {
        CAPTURE(id);
        CHECK(v.open[id]);
    }
    CHECK_FALSE(ui.shows("Open a model to type a sentence"));
}
