// A GGUF file in the Model workspace, headless: dropped on the window it opens there, and what the
// panels read (attention, rollout, top predictions, loss, head scores) equals the same checkpoint's in
// safetensors to 1e-4 (the file written in F32 by tests/fixtures/make_gguf.py).
#include "headless.h"
#include "tests/model_ui.h"

#include "tests/checkpoint_fixtures.h"
#include "ui/model_service.h"

#include <doctest/doctest.h>

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
    std::shared_ptr<const core::model::Snapshot> from_safetensors;
    {
        headless::Ui b;
        from_safetensors = shown_after(b, tiny("llama_sharded"), "A dog saw a dog", false);
    }
    headless::Ui a;
    std::string ids; // the file has no tokenizer: its prompt is the checkpoint's ids
    for (int id : from_safetensors->ids) ids += std::to_string(id) + " ";
    const auto from_gguf = shown_after(a, gguf, ids, true);
    CHECK(a.st().view.open["model_grid"]);
    REQUIRE(from_gguf->ids == from_safetensors->ids);
    REQUIRE(from_gguf->result.attention.size() == from_safetensors->result.attention.size());
    close_to(from_gguf->result.attention.data(), from_safetensors->result.attention.data(),
             static_cast<std::ptrdiff_t>(from_safetensors->result.attention.size()));
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
