// ui/frame_policy.cpp — see frame_policy.h.
#include "ui/frame_policy.h"

namespace ui {

void FramePolicy::drawn(double started, const Motion& m) {
    if (owed_ > 0) --owed_;
    moving_ = m.moving;
    due_ = started + m.wake_in;
    earliest_ = started + min_interval;
}

FramePolicy::Next FramePolicy::next(double now) const {
    const bool wanted = owed_ > 0 || moving_ || now >= due_;
    if (wanted) return now >= earliest_ ? Next{Next::draw, now} : Next{Next::wait_until, earliest_};
    if (due_ < std::numeric_limits<double>::infinity()) return Next{Next::wait_until, due_};
    return Next{Next::wait_event, 0.0};
}

} // namespace ui
