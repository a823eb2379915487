// --bench-frames --type's typist, driven headless on a fixture checkpoint: each key goes into the
// Model workspace's prompt once the run of the key before shows, and each key's wait is measured
// from the key to the frame that shows its run.
#include "app/cli/cli_bench.h"
#include "tests/model_ui.h"

#include <doctest/doctest.h>

#include <chrono>
#include <thread>

using model_ui::ModelWorkspace;

TEST_CASE_FIXTURE(ModelWorkspace, "bench typing: each key typed once the one before shows, its latency at least its forward") {
    NEED_CHECKPOINTS();
    open("gpt2", "the cat");
    app::Typist typist("sé!");
    int frames = 0;
    while (!typist.done() && frames < 2000) {
        ui.frame();
        ++frames;
        typist.after_frame(ui.app(), 1.0);
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    REQUIRE(typist.done());
    CHECK(m.prompt == "the catsé!"); // three keys, "é" one of them
    CHECK(ui.app().shown_run().prompt == "the catsé!");
    const app::TypingFigures& f = typist.figures();
    REQUIRE(f.latency_ms.size() == 3);
    REQUIRE(f.forward_ms.size() == 3);
    for (std::size_t k = 0; k < 3; ++k) {
        CHECK(f.forward_ms[k] > 0.0);
        CHECK(f.latency_ms[k] >= f.forward_ms[k]);
    }
    const std::string json = app::bench_frames_json(app::Options{}, {1.0}, 1.0, 1.0, 1.0, &f);
    CHECK(json.find("\"typing\": {\"keys\": 3,") != std::string::npos);
}
