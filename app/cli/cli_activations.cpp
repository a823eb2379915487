// app/cli/cli_activations.cpp — one layer's activations as JSON (cli_activations.h).
#include "app/cli/cli_activations.h"

#include "app/cli/cli_flags.h"
#include "app/cli/cli_model.h"
#include "core/model/activations.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <ostream>

namespace app {

namespace {

struct ActivationsOptions {
    std::string model, text, sequence;
    bool text_given = false, sequence_given = false;
    int layer = 0; // from 1
};

ActivationsOptions parse(int argc, const char* const* argv) {
    ActivationsOptions o;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--forward") o.model = flag_value(argc, argv, i);
        else if (a == "--activations") o.layer = whole_flag(a, flag_value(argc, argv, i), 1, 1 << 20);
        else if (a == "--text") o.text = flag_value(argc, argv, i), o.text_given = true;
        else if (a == "--sequence") o.sequence = flag_value(argc, argv, i), o.sequence_given = true;
        else throw unknown_option(a, {"--forward", "--activations", "--text", "--sequence"}, "--activations");
    }
    if (o.model.empty()) throw UsageError("--activations goes with --forward MODEL");
    if (o.text_given == o.sequence_given) throw UsageError("--activations needs --text TEXT or --sequence \"ids\" (one of them)");
    return o;
}

// "[head 1's (rows, cols), head 2's …]" from blocks stacked (heads · rows, cols).
std::string per_head(const core::model::MatrixF& stacked, int heads) {
    const long rows = static_cast<long>(stacked.rows()) / std::max(heads, 1), cols = static_cast<long>(stacked.cols());
    std::string s = "[";
    for (int h = 0; h < heads; ++h) {
        if (h) s += ", ";
        append_matrix(s, stacked.data() + static_cast<std::ptrdiff_t>(h) * rows * cols, rows, cols);
    }
    return s + "]";
}

int run(const ActivationsOptions& o, std::ostream& out) {
    const core::model::OpenedModel m = core::model::open_model(o.model);
    const int layers = m.model->config().layers;
    if (o.layer > layers) throw core::model::InputError("--activations " + std::to_string(o.layer) + ": " + m.path + " has layers 1 … " + std::to_string(layers));
    const ModelInput in = model_input(m, o.text_given, o.text, o.sequence);
    const core::model::LayerActivations a = core::model::layer_activations(*m.model, in.ids, o.layer - 1);
    std::string s = "{\"layer\": " + std::to_string(o.layer) + ", \"kind\": " +
                    nlohmann::json(core::model::kind_label(m.model->attention_kind(o.layer - 1))).dump() + ", \"ids\": " + nlohmann::json(in.ids).dump() +
                    ", \"tokens\": " + nlohmann::json(in.tokens).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    s += ", \"q\": " + per_head(a.q, a.q_heads) + ", \"k\": " + per_head(a.k, a.q_heads) + ", \"v\": " + per_head(a.v, a.v_heads);
    if (a.linear) {
        s += ", \"beta\": ";
        append_matrix(s, a.beta.data(), static_cast<long>(a.beta.rows()), static_cast<long>(a.beta.cols()));
        s += ", \"g\": ";
        append_matrix(s, a.g.data(), static_cast<long>(a.g.rows()), static_cast<long>(a.g.cols()));
    }
    out << s << "}\n";
    return 0;
}

} // namespace

int run_activations_mode(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
    return run_reporting_errors(err, [&] { return run(parse(argc, argv), out); });
}

} // namespace app
