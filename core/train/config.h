// core/train/config.h — the shape of a tiny decoder-only transformer and how it is trained.
//
// Everything here is plain data: the CLI, the Train panel and the model file all fill or read it.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace core::train {

enum class Task { repeat, previous, sort };
// "small": every matrix N(0, 0.02²). "large": W_E and W_pos N(0, 1), the rest N(0, 0.02²): the heads
// form in a few hundred steps instead of thousands.
enum class Init { small, large };

struct ModelConfig {
    int vocab = 64;   // tokens are ids 0 … vocab-1
    int T = 32;       // context length (rows of W_pos)
    int D = 32;       // d_model
    int H = 4;        // heads per layer; d_head = D / H
    int L = 2;        // layers
    bool mlp = false; // an MLP of width 4D after each attention
    int d_head() const { return D / H; }
    bool operator==(const ModelConfig& o) const {
        return vocab == o.vocab && T == o.T && D == o.D && H == o.H && L == o.L && mlp == o.mlp;
    }
};

struct TrainConfig {
    ModelConfig model;
    Task task = Task::repeat;
    Init init = Init::large;
    double lr = 5e-3;
    double weight_decay = 0.01; // on the matrices only
    int steps = 1000;           // the cosine reaches its end here
    int warmup = 100;
    int batch = 32;
    std::uint64_t seed = 1;
    int threads = 1;            // 1 or 2: the batch is always cut in two halves, so losses do not depend on this
    bool float32 = true;        // the forward and backward in float32 (model_f32.h); false: in double (model.h)
};

// A configuration that cannot be built; the message names the field.
struct ConfigError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// The repeat segment's shortest and longest length for a context of T.
int repeat_min_length(int T);
int repeat_max_length(int T);
// The sort task's list length (the sequence is list, separator, sorted list).
int sort_length(int T);

// Empty when the model can be built, else the first problem ("D = 30 is not a multiple of H = 4").
std::string validate(const ModelConfig& m);
// Also checks the task against the model (sort needs vocab ≥ 3, repeat needs T ≥ 8 …).
std::string validate(const TrainConfig& c);

const char* task_name(Task t);
const char* init_name(Init i);
// Throws ConfigError for an unknown name.
Task task_from_name(const std::string& name);
Init init_from_name(const std::string& name);

} // namespace core::train
