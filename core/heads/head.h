// core/heads/head.h — the words every analysis of heads shares, for the tiny transformer
// (core/train) and the real models (core/model) alike: a head, a knock-out, a float map.
//
// Layers and heads count from 0 here (the command line and the window's labels count from 1).
#pragma once

#include <Eigen/Core>

#include <string>
#include <vector>

namespace core::heads {

// Row-major float matrices, as the forward passes of checkpoints hold their attention.
using MatrixF = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

struct HeadRef {
    int layer = 0; // from 0
    int head = 0;  // from 0
    bool operator==(const HeadRef& o) const { return layer == o.layer && head == o.head; }
};

// What a knocked-out head's output (its slice of the attention output, before the output
// projection) becomes.
enum class Ablation {
    zero, // 0 at every position
    mean, // its mean over the positions of its own sequence
};

// Heads knocked out together, all the same way.
struct Knockouts {
    std::vector<HeadRef> heads;
    Ablation ablation = Ablation::zero;
};

// "(rows, cols)", for messages about a wrong shape.
inline std::string shape_text(Eigen::Index rows, Eigen::Index cols) {
    return "(" + std::to_string(rows) + ", " + std::to_string(cols) + ")";
}

} // namespace core::heads
