#include "core/train/optim.h"

#include <algorithm>
#include <cmath>

namespace core::train {

double learning_rate(double lr, int step, int warmup, int steps) {
    if (step < warmup) return lr * (step + 1) / warmup;
    const double span = std::max(1, steps - warmup);
    const double progress = std::min(1.0, (step - warmup) / span);
    const double lr_min = lr / 10.0;
    return lr_min + 0.5 * (lr - lr_min) * (1.0 + std::cos(3.141592653589793 * progress));
}

double clip_grad_norm(std::vector<double>& grad, double max_norm) {
    double sum = 0.0;
    for (double g : grad) sum += g * g;
    const double norm = std::sqrt(sum);
    if (norm > max_norm) {
        const double s = max_norm / norm;
        for (double& g : grad) g *= s;
    }
    return norm;
}

void AdamW::step(std::vector<double>& params, const std::vector<double>& grad, double lr) {
    constexpr double b1 = 0.9, b2 = 0.999, eps = 1e-8;
    ++t_;
    const double c1 = 1.0 - std::pow(b1, t_), c2 = 1.0 - std::pow(b2, t_);
    for (const TensorSpec& s : layout_->tensors) {
        const double wd = s.decay ? decay_ : 0.0;
        for (size_t i = s.offset; i < s.offset + s.size(); ++i) {
            m_[i] = b1 * m_[i] + (1.0 - b1) * grad[i];
            v_[i] = b2 * v_[i] + (1.0 - b2) * grad[i] * grad[i];
            params[i] -= lr * ((m_[i] / c1) / (std::sqrt(v_[i] / c2) + eps) + wd * params[i]);
        }
    }
}

} // namespace core::train
