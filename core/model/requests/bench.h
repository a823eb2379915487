// core/model/requests/bench.h — how fast a model answers what the window asks of it (--bench-model):
// the forward that keeps what rebuilds every map, the top predictions, and one decoding step.
#pragma once

#include "core/model/forward.h"

#include <optional>

namespace core::model {

struct BenchRequest {
    int tokens = 0;         // random ids (a fixed seed), at most the context
    int reps = 5;           // timed runs after a warm-up
    ForwardOptions options; // knock-outs and fast products
};

struct BenchResult {
    double median_ms = 0, min_ms = 0; // the forward and every position's top 10
    double forward_ms = 0;            // the forward alone (median)
    std::optional<double> step_ms;    // one decoding step after the ids (median); none where a model cannot take one
    double attention_mb = 0;          // what the forward kept to rebuild the maps
};

// Throws InputError for tokens past the context.
BenchResult bench_model(const Model& model, const BenchRequest& request, const std::string& model_path);

} // namespace core::model
