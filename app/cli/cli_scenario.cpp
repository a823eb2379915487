// app/cli/cli_scenario.cpp — see cli_scenario.h.
#include "app/cli/cli_scenario.h"

#include "app/cli/cli_presets.h"
#include "core/attention.h"
#include "core/decoder.h"
#include "core/explain.h"
#include "core/io/report_json.h"
#include "core/io/scenario_io.h"
#include "core/presets.h"

#include <ostream>

namespace app {

bool load_scenario(const Options& o, core::Scenario& s, std::ostream& err) {
    try {
        s = !o.preset.empty() ? preset_scenario(o) : o.file.empty() ? core::preset_three_tokens() : core::io::load_scenario_file(o.file);
        return true;
    } catch (const core::ScenarioError& e) {
        err << "attnviz: " << e.what() << "\n";
        return false;
    }
}

std::string scenario_name(const Options& o) {
    return !o.preset.empty() ? "preset " + o.preset : o.file.empty() ? "default scenario" : o.file;
}

int row_of(const Options& o, const core::Scenario& s, std::ostream& err) {
    const int row = core::find_row(s, o.row);
    if (row < 0) {
        err << "attnviz: " << scenario_name(o) << ": no row \"" << o.row << "\" (give 1.." << s.n() << " or a token name)\n";
    }
    return row;
}

int run_dump(const Options& o, std::ostream& out, std::ostream& err) {
    core::Scenario s;
    if (!load_scenario(o, s, err)) return 2;
    out << core::io::dump_json(s, core::compute(s));
    return 0;
}

int run_explain(const Options& o, std::ostream& out, std::ostream& err) {
    core::Scenario s;
    if (!load_scenario(o, s, err)) return 2;
    const int row = row_of(o, s, err);
    if (row < 0) return 2;
    out << core::to_text(core::explain_row(s, core::compute(s), row));
    return 0;
}

int run_decode(const Options& o, std::ostream& out, std::ostream& err) {
    core::Scenario s;
    if (!load_scenario(o, s, err)) return 2;
    out << core::io::decode_json(core::decode_all(s));
    return 0;
}

} // namespace app
