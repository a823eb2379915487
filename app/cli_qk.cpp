// app/cli_qk.cpp — --composition on a checkpoint.
#include "app/cli_qk.h"
#include "app/options.h"

#include "app/cli_flags.h"
#include "core/model/circuits/composition.h"
#include "core/model/format/checkpoint.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <ostream>
#include <string>

namespace app {

namespace {

struct QkOptions {
    std::string model;
    core::model::CompositionKind kind = core::model::CompositionKind::k;
    std::string kind_name = "k";
};

QkOptions parse(int argc, const char* const* argv) {
    QkOptions o;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--composition") o.model = flag_value(argc, argv, i);
        else if (a == "--kind") {
            o.kind_name = flag_value(argc, argv, i);
            if (o.kind_name != "q" && o.kind_name != "k" && o.kind_name != "v") throw UsageError("--kind takes q, k or v, not \"" + o.kind_name + "\"");
            o.kind = o.kind_name == "q" ? core::model::CompositionKind::q : o.kind_name == "k" ? core::model::CompositionKind::k : core::model::CompositionKind::v;
        } else throw UsageError("unknown option " + a + " for --composition");
    }
    return o;
}

int run_composition(const QkOptions& o, std::ostream& out) {
    const core::model::OpenedModel m = core::model::open_model(o.model);
    const core::model::CompositionScores s = core::model::composition_scores(*m.model, o.kind);
    nlohmann::ordered_json scores = nlohmann::ordered_json::array();
    for (int l1 = 0; l1 < s.layers; ++l1) {
        nlohmann::ordered_json writer_layer = nlohmann::ordered_json::array();
        for (int h1 = 0; h1 < s.heads; ++h1) {
            nlohmann::ordered_json writer = nlohmann::ordered_json::array();
            for (int l2 = 0; l2 < s.layers; ++l2) {
                nlohmann::ordered_json reader_layer = nlohmann::ordered_json::array();
                for (int h2 = 0; h2 < s.heads; ++h2) {
                    const double v = s.at(l1, h1, l2, h2);
                    reader_layer.push_back(std::isfinite(v) ? nlohmann::ordered_json(v) : nlohmann::ordered_json(nullptr));
                }
                writer.push_back(std::move(reader_layer));
            }
            writer_layer.push_back(std::move(writer));
        }
        scores.push_back(std::move(writer_layer));
    }
    out << nlohmann::ordered_json{{"kind", o.kind_name}, {"scores", std::move(scores)}}.dump() << "\n";
    return 0;
}

} // namespace

bool wants_qk_mode(int argc, const char* const* argv) {
    for (int i = 1; i < argc; ++i)
        if (std::string(argv[i]) == "--composition") return true;
    return false;
}

int run_qk_mode(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
    return run_reporting_errors(err, [&] { return run_composition(parse(argc, argv), out); });
}

} // namespace app
