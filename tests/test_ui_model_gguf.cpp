// A GGUF file in the Model workspace, headless: dropped on the window it opens there, and what the
// panels read (attention, rollout, top predictions, loss, head scores) equals the same checkpoint's in
// safetensors to 1e-4 (the file written in F32 by tests/fixtures/make_gguf.py).
#include "headless.h"
#include "tests/model_ui.h"

#include "tests/checkpoint_fixtures.h"
#include "tests/cli_run.h"
#include "tests/store_home.h"
#include "core/model/fast_product.h"
#include "ui/model_service.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <string>

namespace {

using model_ui::tiny;
using model_ui::until_run;

// Checkpoint `name` written as a GGUF file of `type`, or empty without NumPy.
std::string gguf_of(const std::string& name, const std::string& type) {
    const std::string out = fixtures::temp_dir() + "/" + name + ".gguf";
    const std::string cmd = fixtures::numpy_python() + " " + fixtures::path("make_gguf.py") + " " + tiny(name) + " " + out + " " + type;
    return std::system(cmd.c_str()) == 0 ? out : std::string();
}

// The snapshot the panels show after `prompt` runs on the model at `path`.
std::shared_ptr<const core::model::Snapshot> shown_after(headless::Ui& ui, const std::string& path, const std::string& prompt, bool drop) {
    ui::ModelService& m = ui.st().view.state<ui::ModelService>();
    m.prompt = prompt;
    if (drop) ui.app().drop_files({path});
    else REQUIRE(m.open(path, ui.st().view));
    ui.frames(4);
    until_run(ui);
    REQUIRE(m.session.model_path() == path);
    REQUIRE(m.shown);
    return m.shown;
}

// The snapshot the panels show for `prompt` on fixture checkpoint `name`, in safetensors.
std::shared_ptr<const core::model::Snapshot> checkpoint_shown(const std::string& name, const std::string& prompt) {
    headless::Ui ui;
    return shown_after(ui, tiny(name), prompt, false);
}

void close_to(const float* a, const float* b, std::ptrdiff_t n) {
    double worst = 0, top = 1e-30;
    for (std::ptrdiff_t i = 0; i < n; ++i) worst = std::max(worst, std::abs(double(a[i]) - b[i])), top = std::max(top, std::abs(double(b[i])));
    CHECK(worst / top <= 1e-4);
}

} // namespace

TEST_CASE("model panels: a dropped GGUF file opens in the Model workspace and shows what its safetensors checkpoint shows") {
    NEED_CHECKPOINTS();
    const std::string gguf = gguf_of("llama_sharded", "F32");
    REQUIRE(!gguf.empty());
    const auto from_safetensors = checkpoint_shown("llama_sharded", "A dog saw a dog");
    headless::Ui a;
    std::string ids; // the file has no tokenizer: its prompt is the checkpoint's ids
    for (int id : from_safetensors->ids) ids += std::to_string(id) + " ";
    const auto from_gguf = shown_after(a, gguf, ids, true);
    CHECK(a.st().view.open["model_grid"]);
    REQUIRE(from_gguf->ids == from_safetensors->ids);
    const std::vector<float> maps = from_gguf->result.maps.all(), want = from_safetensors->result.maps.all();
    REQUIRE(maps.size() == want.size());
    close_to(maps.data(), want.data(), static_cast<std::ptrdiff_t>(want.size()));
    close_to(from_gguf->rollout.data(), from_safetensors->rollout.data(), from_safetensors->rollout.size());
    CHECK(std::abs(from_gguf->loss - from_safetensors->loss) <= 1e-4 * std::abs(from_safetensors->loss));
    REQUIRE(from_gguf->top.size() == from_safetensors->top.size());
    for (std::size_t i = 0; i < from_gguf->top.size(); ++i) {
        REQUIRE(from_gguf->top[i].size() == from_safetensors->top[i].size());
        CHECK(from_gguf->top[i][0].id == from_safetensors->top[i][0].id);
    }
    REQUIRE(from_gguf->scores.size() == from_safetensors->scores.size());
    for (std::size_t i = 0; i < from_gguf->scores.size(); ++i)
        CHECK(from_gguf->scores[i].entropy == doctest::Approx(from_safetensors->scores[i].entropy).epsilon(1e-4));
}

TEST_CASE("model panels: the Fast toggle reruns a Q8_0 GGUF file with the fast products and shows its distance from the exact run") {
    NEED_CHECKPOINTS();
    const std::string gguf = gguf_of("gpt2", "Q8_0");
    REQUIRE(!gguf.empty());
    headless::Ui ui;
    ui::ModelService& m = ui.st().view.state<ui::ModelService>();
    const auto exact = shown_after(ui, gguf, "A dog saw a dog", false);
    CHECK_FALSE(exact->fast);
    ui.click(ui.item("model fast"));
    ui.frames(2);
    if (!core::model::fast::available()) { // the toggle is disabled: nothing changes
        CHECK_FALSE(m.fast_products);
        return;
    }
    REQUIRE(m.fast_products);
    until_run(ui);
    REQUIRE(m.session.wait_idle(60)); // the exact run that measures it, after the fast one
    ui.frames(2);
    REQUIRE(m.shown);
    const auto fast = m.shown;
    CHECK(fast->fast);
    CHECK(fast->request.fast_products);
    const std::vector<float> fast_maps = fast->result.maps.all(), exact_maps = exact->result.maps.all();
    REQUIRE(fast_maps.size() == exact_maps.size());
    float worst = 0;
    for (std::size_t i = 0; i < exact_maps.size(); ++i) worst = std::max(worst, std::abs(fast_maps[i] - exact_maps[i]));
    const core::model::FastDifference d = m.session.fast_difference();
    CHECK(d.serial == fast->serial);
    CHECK(d.attention == worst); // the worker's figure is this difference, the exact run being the first one
    CHECK(worst > 0);
    CHECK(worst < 0.05f);
    CHECK(d.probability < 0.05f);
    // Off again: exact, and the same as before.
    ui.click(ui.item("model fast"));
    ui.frames(2);
    CHECK_FALSE(m.fast_products);
    until_run(ui);
    CHECK_FALSE(m.shown->fast);
    CHECK(m.shown->result.maps.all() == exact->result.maps.all());
}

TEST_CASE("model panels: a GGUF file opened by its Ollama NAME:TAG reads the prompt with the file's own tokenizer") {
    NEED_CHECKPOINTS();
    const std::string gguf = gguf_of("gpt2", "F32");
    REQUIRE(!gguf.empty());
    const auto from_safetensors = checkpoint_shown("gpt2", "A dog saw a dog");
    StoreHome home;
    const std::string blob = home.ollama("registry.ollama.ai/library/tiny/latest", "ff66", fixtures::read(gguf));
    headless::Ui a;
    ui::ModelService& m = a.st().view.state<ui::ModelService>();
    m.prompt = "A dog saw a dog";
    REQUIRE(m.open("tiny:latest", a.st().view));
    a.frames(4);
    until_run(a);
    CHECK(m.session.model_path() == blob); // the name stands for its model layer's blob
    REQUIRE(m.shown);
    CHECK(m.shown->ids == from_safetensors->ids); // tokenizer.ggml.* inside the blob, as tokenizer.json gives them
    const std::vector<float> shown = m.shown->result.maps.all(), want = from_safetensors->result.maps.all();
    REQUIRE(shown.size() == want.size());
    close_to(shown.data(), want.data(), static_cast<std::ptrdiff_t>(want.size()));
}

TEST_CASE("model panels: an Ollama model is called by its NAME:TAG — opened from Open model, in the window's words and the command line's messages") {
    NEED_CHECKPOINTS();
    const std::string gguf = gguf_of("gpt2", "F32");
    REQUIRE(!gguf.empty());
    StoreHome home;
    const std::string blob = home.ollama("registry.ollama.ai/library/tinyllm/q8", "ff77", fixtures::read(gguf));
    headless::Ui ui;
    ui::View& v = ui.st().view;
    ui::ModelService& m = v.state<ui::ModelService>();
    ui::ask_model(v);
    model_ui::until_listed(ui);
    CHECK(ui.shows("1 model in the Hugging Face cache, Ollama"));
    ui.click(ui.item("model cached 0"));
    until_run(ui);
    CHECK(m.session.model_path() == blob);
    CHECK(m.session.model_name() == "tinyllm:q8");
    CHECK(v.status == "Opened tinyllm:q8");
    // The command line names the model as it was given, with the forms MODEL takes and the near names for a tag not in the store.
    const Run target = run({"--attribute", "tinyllm:q8", "--sequence", "1 2", "--target", "Hello world"});
    CHECK(target.code == 2);
    CHECK(target.err.find("tinyllm:q8's vocabulary, not one") != std::string::npos);
    CHECK(target.err.find("ff77") == std::string::npos);
    const Run missing = run({"--forward", "tinyllm:q4", "--sequence", "1 2"});
    CHECK(missing.code == 2);
    CHECK(missing.err == "attnviz: tinyllm:q4: no such file, directory or Ollama model (give a model directory, a Hugging Face cache snapshot or "
                         "models--ORG--NAME folder, a GGUF file, an Ollama NAME:TAG or attnviz's own trained .safetensors); there are tinyllm:q8\n");
}
