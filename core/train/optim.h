// core/train/optim.h — AdamW with a linear warm-up then a cosine, and clipping by the global norm.
#pragma once

#include "core/train/model.h"

#include <vector>

namespace core::train {

// The learning rate of step `step` (0-based): rises linearly over `warmup` steps, then follows a
// cosine from lr down to lr / 10 at step `steps`, and stays there.
double learning_rate(double lr, int step, int warmup, int steps);

// Scales grad so that its Euclidean norm is at most max_norm; returns the norm before.
double clip_grad_norm(std::vector<double>& grad, double max_norm);

class AdamW {
public:
    AdamW(const Layout& layout, double weight_decay) : layout_(&layout), decay_(weight_decay), m_(layout.total, 0.0), v_(layout.total, 0.0) {}
    // One update with β = (0.9, 0.999), ε = 1e-8; decay (decoupled) on the matrices only.
    void step(std::vector<double>& params, const std::vector<double>& grad, double lr);
    int steps() const { return t_; }

private:
    const Layout* layout_;
    double decay_;
    std::vector<double> m_, v_;
    int t_ = 0;
};

} // namespace core::train
