// core/model/circuits/attribution.cpp — direct logit attribution from the stream's components.
#include "core/model/circuits/attribution.h"

#include "core/model/circuits/parts.h"

namespace core::model {

namespace {

// The head's row of `id` minus that of `vs` (when ≥ 0), (D) in float64, and the same of its bias.
Eigen::RowVectorXd direction(const Model& model, int id, int vs, double& bias) {
    const Model::Unembedding u = model.unembedding();
    const int D = u.width;
    auto row = [&](int i) {
        Eigen::RowVectorXf r(D); // (D)
        u.weight->rows(i, 1, r.data());
        return Eigen::RowVectorXd(r.cast<double>());
    };
    Eigen::RowVectorXd d = row(id);
    bias = u.bias ? u.bias[id] : 0.0;
    if (vs < 0) return d;
    d -= row(vs);
    if (u.bias) bias -= u.bias[vs];
    return d;
}

void check(const Model& model, const std::vector<int>& ids, int target, int vs, int position) {
    const ModelConfig& c = model.config();
    if (!model.unembedding().weight || !model.linear_head())
        throw InputError(c.name + ": direct attribution needs logits linear in the last hidden state, and " + c.architecture +
                         "'s head is not");
    for (const int id : {target, vs})
        if ((id < 0 && id != vs) || id < -1 || id >= c.vocab)
            throw InputError("token id " + std::to_string(id) + " is outside " + c.name + "'s vocabulary (0 … " + std::to_string(c.vocab - 1) + ")");
    if (position < 0 || position >= static_cast<int>(ids.size()))
        throw InputError("position " + std::to_string(position + 1) + " is outside the " + std::to_string(ids.size()) + " tokens");
}

} // namespace

Attribution direct_attribution(const Model& model, const std::vector<int>& ids, int target, int vs, int position) {
    check(model, ids, target, vs, position);
    const ModelConfig& c = model.config();
    StreamParts parts = stream_parts(model, ids, c.layers);
    const Eigen::MatrixXd rows = through_final_norm(model, parts, position); // (C, D)
    double head_bias = 0.0;
    const Eigen::VectorXd each = rows * direction(model, target, vs, head_bias).transpose(); // (C)
    Attribution a;
    a.position = position;
    a.target = target;
    a.vs = vs;
    a.heads = core::Matrix::Zero(c.layers, c.heads);
    a.mlps.assign(static_cast<std::size_t>(c.layers), 0.0);
    a.bias = head_bias;
    for (int l = 0; l < c.layers; ++l) {
        for (int h = 0; h < c.heads; ++h) { // a linear layer with fewer value heads has no part for the rest: 0
            const int k = part_index(parts, head_part(l, h));
            a.heads(l, h) = k >= 0 ? each(k) : 0.0;
        }
        const int mlp = part_index(parts, mlp_part(l));
        if (mlp >= 0) a.mlps[static_cast<std::size_t>(l)] = each(mlp);
    }
    for (const char* name : {"token embedding", "position embedding"})
        if (part_index(parts, name) >= 0) a.embed += each(part_index(parts, name));
    if (part_index(parts, "biases") >= 0) a.bias += each(part_index(parts, "biases"));
    ForwardOptions o; // the model's own logit, from its last hidden state
    o.attention = false;
    o.logits = Logits::none;
    a.logit = model.forward(ids, o).hidden.row(position).cast<double>().dot(direction(model, target, vs, head_bias)) + head_bias;
    return a;
}

} // namespace core::model
