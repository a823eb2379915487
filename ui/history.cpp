#include "ui/history.h"

#include <cstring>
#include <utility>

namespace ui {

namespace {

bool same_bits(const core::Matrix& a, const core::Matrix& b) {
    return a.rows() == b.rows() && a.cols() == b.cols() &&
           (a.size() == 0 || std::memcmp(a.data(), b.data(), static_cast<std::size_t>(a.size()) * sizeof(double)) == 0);
}

} // namespace

bool same_bits(const core::Scenario& a, const core::Scenario& b) {
    if (a.causal != b.causal || a.scale != b.scale || a.window != b.window ||
        std::memcmp(&a.softcap, &b.softcap, sizeof a.softcap) != 0 || std::memcmp(&a.scale_factor, &b.scale_factor, sizeof a.scale_factor) != 0 ||
        a.positional != b.positional || a.heads.size() != b.heads.size() || a.rule != b.rule ||
        std::memcmp(&a.beta, &b.beta, sizeof a.beta) != 0 || std::memcmp(&a.decay, &b.decay, sizeof a.decay) != 0 ||
        a.pin.has_value() != b.pin.has_value() || !same_bits(a.X, b.X) || !same_bits(a.W_O, b.W_O) || a.tokens != b.tokens)
        return false;
    if (a.pin && (a.pin->head != b.pin->head || a.pin->row != b.pin->row || a.pin->q.size() != b.pin->q.size() ||
                  std::memcmp(a.pin->q.data(), b.pin->q.data(), static_cast<std::size_t>(a.pin->q.size()) * sizeof(double)) != 0))
        return false;
    for (std::size_t h = 0; h < a.heads.size(); ++h)
        if (!same_bits(a.heads[h].W_Q, b.heads[h].W_Q) || !same_bits(a.heads[h].W_K, b.heads[h].W_K) ||
            !same_bits(a.heads[h].W_V, b.heads[h].W_V))
            return false;
    return true;
}

std::size_t snapshot_bytes(const core::Scenario& s) {
    std::size_t doubles = static_cast<std::size_t>(s.X.size() + s.W_O.size());
    for (const core::Head& h : s.heads) doubles += static_cast<std::size_t>(h.W_Q.size() + h.W_K.size() + h.W_V.size());
    std::size_t bytes = doubles * sizeof(double) + sizeof(core::Scenario);
    for (const std::string& t : s.tokens) bytes += t.size() + sizeof(std::string);
    return bytes;
}

History::History(core::Scenario start, std::size_t max_steps, std::size_t max_bytes)
    : committed_(std::move(start)), max_steps_(max_steps), max_bytes_(max_bytes) {}

void History::commit(const core::Scenario& current) {
    if (same_bits(current, committed_)) return;
    undo_.push_back(std::move(committed_));
    committed_ = current;
    redo_.clear();
    trim();
}

bool History::undo(core::Scenario& current) { return step(undo_, redo_, current); }
bool History::redo(core::Scenario& current) { return step(redo_, undo_, current); }

bool History::step(std::deque<core::Scenario>& from, std::deque<core::Scenario>& to, core::Scenario& current) {
    commit(current);
    if (from.empty()) return false;
    to.push_back(std::move(committed_));
    committed_ = std::move(from.back());
    from.pop_back();
    current = committed_;
    return true;
}

void History::trim() {
    std::size_t bytes = 0;
    for (const core::Scenario& s : undo_) bytes += snapshot_bytes(s);
    while (!undo_.empty() && (undo_.size() > max_steps_ || bytes > max_bytes_)) {
        bytes -= snapshot_bytes(undo_.front());
        undo_.pop_front();
    }
}

} // namespace ui
