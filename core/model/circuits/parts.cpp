// core/model/circuits/parts.cpp — the stream's components from a forward that records them.
#include "core/model/circuits/parts.h"

#include <cmath>

namespace core::model {

StreamParts stream_parts(const Model& model, const std::vector<int>& ids, int layer) {
    const int layers = model.config().layers;
    if (layer < 0 || layer > layers)
        throw InputError("the stream at layer " + std::to_string(layer + 1) + ": " + model.config().name + " has " + std::to_string(layers) + " layers");
    StreamRecord record;
    record.upto = layer;
    ForwardOptions o;
    o.attention = false;
    o.logits = Logits::none;
    o.record = &record;
    model.forward(ids, o);
    StreamParts out; // the record's parts, those of one name summed, in the order of their first write
    for (std::size_t c = 0; c < record.names.size(); ++c) {
        const int at = part_index(out, record.names[c]);
        if (at >= 0) {
            out.parts[static_cast<std::size_t>(at)] += record.parts[c];
            continue;
        }
        out.names.push_back(record.names[c]);
        out.parts.push_back(std::move(record.parts[c]));
    }
    return out;
}

int part_index(const StreamParts& p, const std::string& name) {
    for (std::size_t c = 0; c < p.names.size(); ++c)
        if (p.names[c] == name) return static_cast<int>(c);
    return -1;
}

Eigen::MatrixXd through_final_norm(const Model& model, StreamParts& parts, int position) {
    const Model::FinalNorm n = model.final_norm();
    const auto D = static_cast<Eigen::Index>(model.config().d_model);
    if (n.bias && part_index(parts, "biases") < 0) {
        parts.names.push_back("biases");
        parts.parts.push_back(MatrixF::Zero(parts.parts.empty() ? 0 : parts.parts[0].rows(), D));
    }
    Eigen::MatrixXd rows(static_cast<Eigen::Index>(parts.parts.size()), D); // (C, D)
    for (Eigen::Index c = 0; c < rows.rows(); ++c) rows.row(c) = parts.parts[static_cast<std::size_t>(c)].row(position).cast<double>();
    if (!n.gain) return rows;
    const Eigen::RowVectorXd x = rows.colwise().sum();
    const double mean = n.centre ? x.mean() : 0.0;
    const double scale = 1.0 / std::sqrt((x.array() - mean).square().mean() + n.eps);
    const Eigen::RowVectorXd gain = Eigen::Map<const Eigen::RowVectorXf>(n.gain, D).cast<double>();
    for (Eigen::Index c = 0; c < rows.rows(); ++c) {
        if (n.centre) rows.row(c).array() -= rows.row(c).mean();
        rows.row(c) = rows.row(c).cwiseProduct(gain) * scale;
    }
    if (n.bias) rows.row(part_index(parts, "biases")) += Eigen::Map<const Eigen::RowVectorXf>(n.bias, D).cast<double>();
    return rows;
}

} // namespace core::model
