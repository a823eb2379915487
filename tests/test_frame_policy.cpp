// The frame policy (ui/frame_policy.h): the window draws only while something changes. The loop
// the window runs (app/window/window.cpp) is simulated here on a clock of its own, drawing the real App
// headless, with a frame taking 2 ms: a wait jumps the clock to its end.
#include "headless.h"
#include "train_fixtures.h"

#include "core/wake.h"
#include "ui/frame_policy.h"
#include "ui/panels/explore/decode.h"
#include "ui/panels/train/train.h"
#include "ui/widgets.h"

#include <doctest/doctest.h>

#include <cfloat>

using headless::Ui;
using Next = ui::FramePolicy::Next;

namespace {

constexpr double frame_seconds = 0.002;

struct Loop {
    explicit Loop(Ui& shown) : ui(shown) {}
    Ui& ui;
    ui::FramePolicy policy;
    double now = 0.0, last_frame = 0.0;
    unsigned long long wakes = core::wakes();

    // Frames drawn in the next `seconds`.
    int run(double seconds) {
        const double end = now + seconds;
        int drawn = 0;
        while (now < end) {
            if (core::wakes() != wakes) wakes = core::wakes(), policy.woken();
            const Next next = policy.next(now);
            if (next.kind == Next::wait_event) break;
            if (next.kind == Next::wait_until) {
                now = std::min(end, next.until);
                continue;
            }
            const double started = now;
            ImGui::GetIO().DeltaTime = static_cast<float>(std::max(started - last_frame, 1e-4));
            last_frame = started;
            ui.frame();
            ++drawn;
            now += frame_seconds;
            policy.drawn(started, ui.app().motion());
            ImGui::GetIO().DeltaTime = 1.0f / 60.0f; // for frames drawn outside the loop (Ui::click)
        }
        now = std::max(now, end);
        return drawn;
    }
    // An input event: the window's loop tells the policy (app/window/window_events.h).
    int input(double seconds) {
        policy.input();
        return run(seconds);
    }
    // A click at `p`, each event followed by the frames the loop draws after it.
    void click(ImVec2 p) {
        ImGuiIO& io = ImGui::GetIO();
        io.MousePos = p;
        input(0.1);
        io.MouseDown[0] = true;
        input(0.1);
        io.MouseDown[0] = false;
        input(0.1);
    }
    // The item `id` clicked once the window has settled, a second after it opened.
    void click_once_settled(const std::string& id) {
        run(1.0);
        click(ui.item(id));
    }
};

ui::Motion moving() {
    ui::Motion m;
    m.moving = true;
    return m;
}

} // namespace

TEST_CASE("frame policy: idle waits for an event — input, a timer and a worker's result draw what they need") {
    ui::FramePolicy p;
    for (int k = 0; k < ui::FramePolicy::settle_frames; ++k) { // the first frames lay the window out
        REQUIRE(p.next(k).kind == Next::draw);
        p.drawn(k, ui::Motion());
    }
    CHECK(p.next(10.0).kind == Next::wait_event);

    p.input();
    for (int k = 0; k < ui::FramePolicy::settle_frames; ++k) {
        REQUIRE(p.next(20.0 + k).kind == Next::draw);
        p.drawn(20.0 + k, ui::Motion());
    }
    CHECK(p.next(30.0).kind == Next::wait_event);

    p.woken(); // a worker's result: one frame shows it
    REQUIRE(p.next(40.0).kind == Next::draw);
    p.drawn(40.0, ui::Motion());
    CHECK(p.next(40.1).kind == Next::wait_event);

    ui::Motion blink;
    blink.wake_after(0.8);
    p.input();
    for (int k = 0; k < ui::FramePolicy::settle_frames; ++k) p.drawn(50.0 + k, blink);
    const Next timer = p.next(52.5);
    CHECK(timer.kind == Next::wait_until);
    CHECK(timer.until == doctest::Approx(52.8));
    CHECK(p.next(52.8).kind == Next::draw);

    p.drawn(60.0, moving()); // something moving: a frame as soon as the shortest interval allows
    CHECK(p.next(60.001).kind == Next::wait_until);
    CHECK(p.next(60.001).until == doctest::Approx(60.0 + ui::FramePolicy::min_interval));
    CHECK(p.next(60.0 + ui::FramePolicy::min_interval).kind == Next::draw);
}

TEST_CASE("frame policy: the idle window draws no frames in a second with no input") {
    Ui ui;
    Loop loop(ui);
    const int first = loop.run(2.0);
    CHECK(first >= ui::FramePolicy::settle_frames);
    CHECK(first <= 20); // the layout settles in a few frames, then nothing
    CHECK(loop.run(1.0) == 0);
    CHECK(loop.run(5.0) <= 1); // ImGui writes the layout 5 s after the windows were made
    CHECK(loop.run(60.0) == 0);
    CHECK(loop.policy.next(loop.now).kind == Next::wait_event);

    // An event draws the frames ImGui needs to settle after it, then the window rests again.
    CHECK(loop.input(1.0) == ui::FramePolicy::settle_frames);
    CHECK(loop.run(1.0) == 0);

    // A worker's result (core::wake, as Session and TrainSession call it): one frame.
    core::wake();
    CHECK(loop.run(1.0) == 1);
    CHECK(loop.run(1.0) == 0);
}

TEST_CASE("frame policy: a click shows in the frames right after it — a tooltip's delay is a timer") {
    Ui ui;
    Loop loop(ui);
    loop.run(2.0);
    const bool causal = ui.scenario().causal;
    loop.click(ui.item("causal"));
    CHECK(ui.scenario().causal != causal);
    ImGuiIO& io = ImGui::GetIO();
    // The pointer rests on the checkbox: one frame when its tooltip is due, then none.
    const int after = loop.run(1.0);
    CHECK(after >= 1);
    CHECK(after <= 3);
    CHECK(ImGui::GetCurrentContext()->HoveredIdTimer >= ui::tip_delay);
    io.MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
    loop.input(1.0);
    CHECK(loop.run(6.0) <= 1); // the layout written, a window having moved
    CHECK(loop.run(20.0) == 0);
    CHECK(loop.policy.next(loop.now).kind == Next::wait_event);
}

TEST_CASE("frame policy: training keeps the window drawing, and it rests once paused") {
    Ui ui;
    Loop loop(ui);
    loop.run(1.0);
    headless::menu_click(ui, "View", "Train a tiny transformer");
    loop.input(1.0);
    ui::TrainView& t = ui.st().view.state<ui::TrainView>();
    t.config = train_fixtures::tiny_repeat_run(1000000);
    ui.click(ui.item("train.reset"));
    loop.input(6.0);
    CHECK(loop.run(1.0) == 0);
    ui.click(ui.item("train.start"));
    loop.input(0.1);
    REQUIRE(t.shown.running);
    const int drawn = loop.run(1.0);
    CHECK(drawn >= 60);
    CHECK(drawn <= 1.0 / ui::FramePolicy::min_interval + 1);
    ui.click(ui.item("train.start")); // Pause
    t.session->wait_idle();
    loop.input(1.0);
    CHECK_FALSE(t.shown.running);
    loop.run(6.0);
    CHECK(loop.run(1.0) == 0);
}

TEST_CASE("frame policy: a playing decoder draws a frame for each of its steps, not every frame") {
    Ui ui;
    ui.st().view.open["decode"] = true;
    Loop loop(ui);
    loop.click_once_settled("decode_play");
    const ui::DecodeView& d = ui.st().view.state<ui::DecodeView>();
    REQUIRE(d.playing);
    const int steps = d.steps;
    const int drawn = loop.run(1.05);
    CHECK(d.steps == steps + 2); // two steps a second
    CHECK(drawn >= 2);
    CHECK(drawn <= 2 + 2 * ui::FramePolicy::settle_frames);
}

TEST_CASE("frame policy: an active text field wakes the window when its cursor blinks, and only then") {
    Ui ui;
    ui.st().view.open["decode"] = false;
    Loop loop(ui);
    loop.click_once_settled("d_model");
    ImGui::GetIO().MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
    loop.input(0.5);
    const ImGuiContext& g = *ImGui::GetCurrentContext();
    REQUIRE(g.ActiveId != 0);
    REQUIRE(g.InputTextState.ID == g.ActiveId);
    loop.run(6.0); // the layout written, a window having moved
    // Shown 0.8 s, hidden 0.4 s: two frames every 1.2 s.
    const int drawn = loop.run(12.0);
    CHECK(drawn >= 19);
    CHECK(drawn <= 21);
}
