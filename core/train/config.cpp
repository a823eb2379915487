#include "core/train/config.h"

#include <algorithm>

namespace core::train {

int repeat_min_length(int T) { return std::max(2, T / 8); }
int repeat_max_length(int T) { return std::max(repeat_min_length(T), T * 3 / 8); }
int sort_length(int T) { return (T - 1) / 2; }

namespace {
std::string range_error(const char* name, int v, int lo, int hi) {
    if (v >= lo && v <= hi) return {};
    return std::string(name) + " = " + std::to_string(v) + " is outside " + std::to_string(lo) + " … " + std::to_string(hi);
}
} // namespace

std::string validate(const ModelConfig& m) {
    for (const std::string& e : {range_error("vocab", m.vocab, 3, 512), range_error("T", m.T, 2, 256), range_error("D", m.D, 1, 512),
                                 range_error("H", m.H, 1, 16), range_error("L", m.L, 1, 8)})
        if (!e.empty()) return e;
    if (m.D % m.H != 0) return "D = " + std::to_string(m.D) + " is not a multiple of H = " + std::to_string(m.H);
    return {};
}

std::string validate(const TrainConfig& c) {
    if (std::string e = validate(c.model); !e.empty()) return e;
    if (c.task == Task::repeat && c.model.T < 8) return "the repeat task needs T ≥ 8, not " + std::to_string(c.model.T);
    if (c.task == Task::repeat && c.model.vocab < repeat_max_length(c.model.T) + 2)
        return "the repeat task needs vocab ≥ " + std::to_string(repeat_max_length(c.model.T) + 2) + " for T = " + std::to_string(c.model.T);
    if (c.task == Task::sort && (c.model.vocab < 3 || c.model.T < 5))
        return "the sort task needs vocab ≥ 3 and T ≥ 5";
    if (!(c.lr > 0.0 && c.lr <= 1.0)) return "lr = " + std::to_string(c.lr) + " is outside (0, 1]";
    for (const std::string& e : {range_error("steps", c.steps, 1, 10000000), range_error("batch", c.batch, 2, 4096),
                                 range_error("warmup", c.warmup, 0, 10000000), range_error("threads", c.threads, 1, 2)})
        if (!e.empty()) return e;
    return {};
}

const char* task_name(Task t) {
    switch (t) {
    case Task::repeat: return "repeat";
    case Task::previous: return "previous";
    case Task::sort: return "sort";
    }
    return "?";
}

const char* init_name(Init i) { return i == Init::small ? "small" : "large"; }

Task task_from_name(const std::string& name) {
    for (Task t : {Task::repeat, Task::previous, Task::sort})
        if (name == task_name(t)) return t;
    throw ConfigError("unknown task \"" + name + "\" (repeat, previous or sort)");
}

Init init_from_name(const std::string& name) {
    for (Init i : {Init::small, Init::large})
        if (name == init_name(i)) return i;
    throw ConfigError("unknown initialisation \"" + name + "\" (small or large)");
}

} // namespace core::train
