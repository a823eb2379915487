// File ▸ Open model… headless in a fake HOME: the Hugging Face cache, Ollama, LM Studio and llama.cpp's
// models listed with where they are and their sizes, a bad manifest as one line naming it, and a
// model opened from the list.
#include "headless.h"
#include "tests/model_ui.h"

#include "core/model/format/stores.h"
#include "tests/checkpoint_fixtures.h"
#include "tests/store_home.h"
#include "ui/model_service.h"

#include <doctest/doctest.h>

#include <cstdio>

namespace {

std::string size_text(std::uint64_t bytes) {
    char size[32];
    if (bytes < (1u << 20)) std::snprintf(size, sizeof size, "%.0f KB", static_cast<double>(bytes) / 1024.0);
    else std::snprintf(size, sizeof size, "%.1f MB", static_cast<double>(bytes) / (1 << 20));
    return size;
}

} // namespace

TEST_CASE("model stores: Open model lists every store's models with their sizes, a bad manifest as a line, and opens one") {
    NEED_CHECKPOINTS();
    Stores home;
    fixtures::add_to_fake_cache(home.dir + "/.cache/huggingface/hub", "tiny/gpt2", model_ui::tiny("gpt2"));
    headless::Ui ui;
    ui::ask_model(ui.st().view);
    model_ui::until_listed(ui);
    for (const char* name : {"qwen3:0.6b", "someone/tiny:latest", "tiny/gpt2", "Qwen/Qwen3-0.6B", "Ollama", "LM Studio", "llama.cpp", "BF16", "Q4_K_M", "Q6_K"}) {
        INFO(name);
        CHECK(ui.shows(name));
    }
    CHECK(ui.shows("Qwen3-0.6B-Q8_0.gguf")); // the end of a long name stays
    CHECK(ui.shows("broken/latest:"));
    CHECK(ui.shows("Ollama manifest (JSON with \"layers\")"));
    const auto listing = core::model::list_models(core::model::store_places());
    REQUIRE(listing.models.size() == 9);
    std::size_t gpt2 = 0;
    while (gpt2 < listing.models.size() && listing.models[gpt2].name != "tiny/gpt2") ++gpt2;
    REQUIRE(gpt2 < listing.models.size());
    CHECK(ui.shows(size_text(listing.models[gpt2].bytes)));
    ui.click(ui.item("model cached " + std::to_string(gpt2)));
    model_ui::until_run(ui);
    CHECK(ui.st().view.state<ui::ModelService>().session.model_name() == "tiny/gpt2");
    CHECK(!ui.st().view.state<ui::ModelService>().show_chooser);
}

TEST_CASE("model stores: Open model is opaque at 1366×768, and after a model that does not open its Close button is still in it") {
    StoreHome home;
    headless::Ui ui(core::preset_three_tokens(), ImVec2(1366, 768));
    ui::View& v = ui.st().view;
    ui::ask_model(v);
    model_ui::until_listed(ui);
    const ImGuiWindow* chooser = ImGui::FindWindowByName("Open model");
    REQUIRE(chooser);
    REQUIRE(chooser->DrawList->VtxBuffer.Size > 0);
    CHECK((chooser->DrawList->VtxBuffer[0].col >> IM_COL32_A_SHIFT & 0xFF) == 255); // its background, drawn first
    const ImRect before = v.items.at("model chooser close");
    CHECK(chooser->InnerClipRect.Contains(before));
    CHECK_FALSE(v.state<ui::ModelService>().open(home.dir + "/no-such-model", v));
    ui.frames(3);
    CHECK(ui.shows("no-such-model: no such file", "Open model"));
    const ImRect after = v.items.at("model chooser close");
    CHECK(after.Min.y > before.Min.y); // below the error line
    CHECK(chooser->InnerClipRect.Contains(after));
}
