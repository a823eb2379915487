// core/wake.h — how a worker tells the window that it has something new to show.
//
// The window rests between frames until something happens (ui/frame_policy.h); a worker that
// publishes a result calls wake(), which counts and, when the window set a waker, wakes its frame
// loop (glfwPostEmptyEvent). No GL here: headless, and in the tests, nothing is woken but the count.
#pragma once

namespace core {

using Waker = void (*)();
// The window sets it before its first frame and clears it (nullptr) before it closes.
void set_waker(Waker waker);
// Any thread, any time: the next frame should show what was just published.
void wake();
// How many wake() calls so far: the frame loop draws a frame when it changed.
unsigned long long wakes();

} // namespace core
