// app/cli/cli_probes.cpp — --heads, --head-importance, --expert-importance and --rollout on a checkpoint.
//
// [SECTION] flags
// [SECTION] modes
#include "app/cli/cli_probes.h"
#include "app/options.h"

#include "app/cli/cli_flags.h"
#include "app/cli/cli_model.h"
#include "core/model/requests/forward.h"
#include "core/heads/scores.h"
#include "core/model/expert_importance.h"
#include "core/model/head_importance.h"
#include "core/model/input.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <ostream>
#include <sstream>
#include <stdexcept>

namespace app {

namespace {

// [SECTION] flags ---------------------------------------------------------------------------------

enum class Mode { heads, importance, expert_importance, rollout };

struct ProbeOptions {
    Mode mode = Mode::heads;
    std::string model, text, sequence;
    bool text_given = false, sequence_given = false, probe_given = false, seed_given = false;
    int probe = 0;
    std::uint64_t seed = 1;
};

ProbeOptions parse(int argc, const char* const* argv) {
    ProbeOptions o;
    bool mode_set = false;
    auto value_of = [&](int& i) { return flag_value(argc, argv, i); };
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--heads" || a == "--head-importance" || a == "--expert-importance" || a == "--rollout") {
            if (mode_set) throw UsageError("only one of --heads, --head-importance, --expert-importance, --rollout at a time (" + a + ")");
            o.mode = a == "--heads" ? Mode::heads : a == "--rollout" ? Mode::rollout : a == "--expert-importance" ? Mode::expert_importance : Mode::importance;
            o.model = value_of(i);
            mode_set = true;
        } else if (a == "--text") { o.text = value_of(i); o.text_given = true; }
        else if (a == "--sequence") { o.sequence = value_of(i); o.sequence_given = true; }
        else if (a == "--probe") { o.probe = whole_flag(a, value_of(i), 1, 100000); o.probe_given = true; }
        else if (a == "--seed") { o.seed = static_cast<std::uint64_t>(whole_flag(a, value_of(i), 0, 999999)); o.seed_given = true; }
        else throw unknown_option(a, {"--heads", "--head-importance", "--expert-importance", "--rollout", "--text", "--sequence", "--probe", "--seed"}, "a head probe");
    }
    if (o.probe_given && o.mode != Mode::heads) throw UsageError("--probe goes with --heads");
    if (o.seed_given && !o.probe_given) throw UsageError("--seed goes with --probe");
    if (o.text_given + o.sequence_given + o.probe_given != 1)
        throw UsageError(std::string(o.mode == Mode::heads ? "--heads needs --text TEXT, --sequence \"ids\" or --probe M" : "it needs --text TEXT or --sequence \"ids\"") +
                         " (one of them)");
    return o;
}

// [SECTION] modes ---------------------------------------------------------------------------------

// --probe M (core::model::probe_ids for the model), else --text or --sequence.
ModelInput input_of(const ProbeOptions& o, const core::model::OpenedModel& m) {
    if (!o.probe_given) return model_input(m, o.text_given, o.text, o.sequence);
    return model_input(m, {false, "", o.probe, o.seed}, "--probe");
}

int run_heads(const ProbeOptions& o, const core::model::OpenedModel& m, std::ostream& out) {
    const ModelInput in = input_of(o, m);
    out << head_scores_json(core::model::head_scores(*m.model, in.ids), m.model->config().heads) << "\n";
    return 0;
}

// Each cell of a Δloss map as a row {"layer", UNIT, "delta_loss"}, layers and units from 1: row r
// of the map is the model's layer layer_of(r).
template <class LayerOf>
std::string delta_loss_rows(const core::Matrix& delta, const char* unit, LayerOf layer_of) {
    nlohmann::ordered_json rows = nlohmann::ordered_json::array();
    for (Eigen::Index r = 0; r < delta.rows(); ++r)
        for (Eigen::Index c = 0; c < delta.cols(); ++c) rows.push_back({{"layer", layer_of(r) + 1}, {unit, c + 1}, {"delta_loss", delta(r, c)}});
    return rows.dump();
}

int run_importance(const ProbeOptions& o, const core::model::OpenedModel& m, std::ostream& out) {
    const core::model::HeadImportance imp = core::model::head_importance(*m.model, input_of(o, m).ids);
    out << delta_loss_rows(imp.delta, "head", [](Eigen::Index l) { return l; }) << "\n";
    return 0;
}

// A row per expert of each mixture layer.
int run_expert_importance(const ProbeOptions& o, const core::model::OpenedModel& m, std::ostream& out) {
    const core::model::ExpertImportance imp = core::model::expert_importance(*m.model, input_of(o, m).ids);
    out << delta_loss_rows(imp.delta, "expert", [&](Eigen::Index i) { return imp.layers[static_cast<std::size_t>(i)]; }) << "\n";
    return 0;
}

int run_rollout(const ProbeOptions& o, const core::model::OpenedModel& m, std::ostream& out) {
    const core::model::MatrixF R = core::model::rollout(*m.model, input_of(o, m).ids); // (t, t)
    std::string s = "{\"rollout\": ";
    append_matrix(s, R.data(), static_cast<long>(R.rows()), static_cast<long>(R.cols()));
    out << s << "}\n";
    return 0;
}

} // namespace

bool wants_probes_mode(int argc, const char* const* argv) {
    bool heads = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--train") return false; // --heads H is the trainer's
        if (a == "--head-importance" || a == "--expert-importance" || a == "--rollout") return true;
        heads = heads || a == "--heads";
    }
    return heads;
}

int run_probes_mode(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
    return run_on_model(argc, argv, err, parse, [&](const ProbeOptions& o, const core::model::OpenedModel& m) {
        switch (o.mode) {
        case Mode::heads: return run_heads(o, m, out);
        case Mode::rollout: return run_rollout(o, m, out);
        case Mode::expert_importance: return run_expert_importance(o, m, out);
        case Mode::importance: break;
        }
        return run_importance(o, m, out);
    });
}

} // namespace app
