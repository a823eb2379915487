#include "app/cli.h"

#include "core/explain.h"
#include "core/presets.h"
#include "core/report_json.h"
#include "core/scenario_io.h"

#include <ostream>

namespace app {

const char* const usage_text =
    "usage: attnviz [FILE]                          open the window (seed 000's three tokens by default)\n"
    "       attnviz --screenshot OUT.png [--select ROW] [FILE]\n"
    "                                               draw the window once, save it as a PNG, exit\n"
    "       attnviz --dump [FILE]                   print every matrix as JSON\n"
    "       attnviz --explain ROW [FILE]            write out the calculation of one row\n"
    "       attnviz --decode [FILE]                 step a decoder through its KV cache, as JSON\n"
    "       attnviz --help | --version\n"
    "ROW is a 1-based index or a token name. FILE is a scenario in JSON (see README.md).\n";

Options parse_args(int argc, const char* const* argv) {
    Options o;
    bool mode_set = false;
    auto set_mode = [&](Options::Mode m, const std::string& flag) {
        if (mode_set) throw UsageError("only one of --dump, --explain, --decode, --screenshot, --help, --version at a time (" + flag + ")");
        o.mode = m;
        mode_set = true;
    };
    auto value_of = [&](int& i, const std::string& flag) -> std::string {
        if (i + 1 >= argc) throw UsageError(flag + " needs a value");
        return argv[++i];
    };
    bool select_given = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--dump") set_mode(Options::Mode::dump, a);
        else if (a == "--decode") set_mode(Options::Mode::decode, a);
        else if (a == "--help" || a == "-h") set_mode(Options::Mode::help, a);
        else if (a == "--version") set_mode(Options::Mode::version, a);
        else if (a == "--explain") { set_mode(Options::Mode::explain, a); o.row = value_of(i, a); }
        else if (a == "--screenshot") { set_mode(Options::Mode::screenshot, a); o.screenshot_path = value_of(i, a); }
        else if (a == "--select") { o.row = value_of(i, a); select_given = true; }
        else if (a.size() > 1 && a[0] == '-') throw UsageError("unknown option " + a);
        else if (!o.file.empty()) throw UsageError("more than one FILE (" + o.file + ", " + a + ")");
        else o.file = a;
    }
    if (select_given && o.mode != Options::Mode::screenshot && o.mode != Options::Mode::window)
        throw UsageError("--select goes with the window or --screenshot");
    return o;
}

bool load_scenario(const Options& o, core::Scenario& s, std::ostream& err) {
    try {
        s = o.file.empty() ? core::preset_three_tokens() : core::load_scenario_file(o.file);
        return true;
    } catch (const core::ScenarioError& e) {
        err << "attnviz: " << e.what() << "\n";
        return false;
    }
}

int row_of(const Options& o, const core::Scenario& s, std::ostream& err) {
    const int row = core::find_row(s, o.row);
    if (row < 0) {
        const std::string where = o.file.empty() ? "default scenario" : o.file;
        err << "attnviz: " << where << ": no row \"" << o.row << "\" (give 1.." << s.n() << " or a token name)\n";
    }
    return row;
}

int run_text_mode(const Options& o, std::ostream& out, std::ostream& err) {
    if (o.mode == Options::Mode::help) { out << usage_text; return 0; }
    if (o.mode == Options::Mode::version) { out << "attnviz " << ATTNVIZ_VERSION << "\n"; return 0; }
    core::Scenario s;
    if (!load_scenario(o, s, err)) return 2;
    switch (o.mode) {
    case Options::Mode::dump: out << core::dump_json(s, core::compute(s)); return 0;
    case Options::Mode::decode: out << core::decode_json(core::decode_all(s)); return 0;
    case Options::Mode::explain: {
        const int row = row_of(o, s, err);
        if (row < 0) return 2;
        out << core::to_text(core::explain_row(s, core::compute(s), row));
        return 0;
    }
    default: err << "attnviz: this mode needs the window\n"; return 2;
    }
}

int main_with(int argc, const char* const* argv, std::ostream& out, std::ostream& err, WindowRunner run_window) {
    Options o;
    try {
        o = parse_args(argc, argv);
    } catch (const UsageError& e) {
        err << "attnviz: " << e.what() << " (see attnviz --help)\n";
        return 2;
    }
    if (o.mode == Options::Mode::window || o.mode == Options::Mode::screenshot) {
        if (!run_window) {
            err << "attnviz: this build has no window; try --dump, --explain or --decode\n";
            return 2;
        }
        return run_window(o);
    }
    return run_text_mode(o, out, err);
}

} // namespace app
