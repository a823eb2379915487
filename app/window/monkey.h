// app/window/monkey.h — `attnviz --monkey FRAMES --seed S`: random input against the real UI, headless.
#pragma once

#include <cstdint>
#include <iosfwd>

namespace app {

// Runs ui::App on an ImGui context with no window and no GPU for `frames` frames, feeding random
// mouse moves, clicks, drags, wheel turns, key presses and typed text over every panel and menu,
// and autosaving exactly as the window does. After every frame the scenario must still be valid
// and the result finite. Returns 0, or 1 with a message on `err` naming the frame.
int run_monkey(long frames, std::uint64_t seed, std::ostream& out, std::ostream& err);

} // namespace app
