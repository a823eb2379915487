// ui/frame_policy.h — when the window draws. With nothing changing it draws nothing: the frame
// loop asks FramePolicy, after each frame and each wake-up, whether to draw now, to wait until a
// time, or to wait for an event (input, or a worker's core::wake()). No ImGui, no GL: the tests
// drive it with a simulated clock.
#pragma once

#include <algorithm>
#include <limits>

namespace ui {

// What changes on screen without any input, as the App sees it at the end of a frame
// (App::motion()); panels add to View::motion as they draw.
struct Motion {
    // Something changes every frame: a drag, training, a forward's progress, filling thumbnails, an animation.
    bool moving = false;
    // Something changes in this many seconds: a tooltip's hover delay, the text cursor's blink,
    // a decoding step, a status line fading, a save that is due.
    double wake_in = std::numeric_limits<double>::infinity();

    void wake_after(double seconds) { wake_in = std::min(wake_in, seconds); }
    void add(const Motion& m) {
        moving = moving || m.moving;
        wake_after(m.wake_in);
    }
};

class FramePolicy {
public:
    // Frames drawn after an event: ImGui takes the frames after the one that saw a click or a key
    // to open popups, fit windows to their content and size table columns.
    static constexpr int settle_frames = 3;
    // The shortest time between frame starts: where swapping buffers does not wait for the
    // display (no vsync: Xvfb, some drivers) something moving would otherwise draw flat out.
    // Below a 60 Hz display's period, so with vsync no frame ever misses its refresh.
    static constexpr double min_interval = 1.0 / 75.0;

    struct Next {
        enum Kind { draw, wait_until, wait_event } kind = wait_event;
        double until = 0.0; // for wait_until: the time on the loop's clock, in seconds
    };

    // An input event arrived: a key, the mouse, a resize, focus, an expose, a drop.
    void input() { owed_ = settle_frames; }
    // A worker published something to show.
    void woken() { owed_ = std::max(owed_, 1); }
    // A frame that began at `started` was drawn; `m` is what the App said moves after it.
    void drawn(double started, const Motion& m);
    // What to do at `now`.
    Next next(double now) const;

private:
    int owed_ = settle_frames; // the first frames lay the window out
    bool moving_ = false;
    double due_ = std::numeric_limits<double>::infinity(); // when something changes next
    double earliest_ = -std::numeric_limits<double>::infinity(); // the next frame's earliest start
};

} // namespace ui
