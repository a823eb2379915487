// ui/history.h — undo and redo as whole-scenario snapshots.
//
// The App calls commit() at the end of every frame in which no widget is active, so a drag or a
// typing session becomes one step however many frames it lasts. Snapshots are simple and exact;
// the depth is capped by count and by memory, the oldest steps go first.
#pragma once

#include "core/scenario.h"

#include <cstddef>
#include <deque>

namespace ui {

// Whether two scenarios hold the same bits. Much faster than Scenario::operator== on big weights
// (it runs several times a frame) and never says "same" for different scenarios; it may say
// "different" for equal ones (−0 against 0), which only costs a recompute.
bool same_bits(const core::Scenario& a, const core::Scenario& b);

class History {
public:
    explicit History(core::Scenario start, std::size_t max_steps = 200, std::size_t max_bytes = 256u << 20);

    // Records `current` as a new step when it differs from the last committed scenario.
    void commit(const core::Scenario& current);
    // Both commit a pending change first, then replace `current`; false when there is nothing to do.
    bool undo(core::Scenario& current);
    bool redo(core::Scenario& current);

    bool can_undo(const core::Scenario& current) const { return !undo_.empty() || !same_bits(current, committed_); }
    bool can_redo() const { return !redo_.empty(); }
    std::size_t undo_steps() const { return undo_.size(); }

private:
    // Undo and redo mirrored: the committed scenario goes onto `to`, the newest of `from` replaces it.
    bool step(std::deque<core::Scenario>& from, std::deque<core::Scenario>& to, core::Scenario& current);
    void trim();

    core::Scenario committed_;
    std::deque<core::Scenario> undo_; // oldest first
    std::deque<core::Scenario> redo_; // most recently undone last
    std::size_t max_steps_;
    std::size_t max_bytes_;
};

// Approximate memory a snapshot holds.
std::size_t snapshot_bytes(const core::Scenario& s);

} // namespace ui
