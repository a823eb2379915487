// app/cli/cli_export.cpp — one matrix, the heatmap or everything, written to a file.
//
//   WHAT    X W_Q W_K W_V W_O Q K V scores scaled A Z concat output | heatmap | all
//   FORMAT  csv tsv tex md json npy (a matrix) · png (A: one pixel per cell) ·
//           png svg (heatmap: the labelled figure) · npz json (all)
#include "app/cli/cli_export.h"
#include "app/cli/cli_scenario.h"

#include "core/io/export.h"
#include "core/io/figure.h"
#include "core/io/npy.h"
#include "core/io/npz.h"
#include "core/io/files.h"
#include "core/io/scenario_io.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <ostream>

namespace app {

namespace {

bool one_of(const std::string& s, std::initializer_list<const char*> set) {
    return std::any_of(set.begin(), set.end(), [&](const char* x) { return s == x; });
}

const char* const text_formats = "csv tsv tex md json npy";

// Formats that hold one 2-d matrix: a per-head matrix of several heads needs --head.
bool two_dimensional(const std::string& format) { return format != "json" && format != "npy"; }

core::io::Tensor tensor_of(const core::io::NamedArray& a) { return {a.shape, a.values, core::io::DType::f64}; }

// Every matrix of the scenario, as np.load gives it back: per-head ones as (heads, rows, cols).
std::string all_npz(const core::Scenario& s, const core::Result& r, const std::string& path) {
    core::io::TensorFile file;
    for (const core::io::NamedArray& a : core::io::scenario_arrays(s, r)) file.tensors[a.name] = tensor_of(a);
    return core::io::npz_bytes(file, true, path);
}

// One matrix as .npy: (rows, cols), or (heads, rows, cols) for every head at once.
std::string matrix_npy(const Options& o, const core::Scenario& s, const core::Result& r) {
    if (o.head || !core::io::is_per_head(o.export_what)) {
        const core::Matrix& m = core::io::matrix_by_name(s, r, o.export_what, std::max(0, o.head - 1));
        return core::io::npy_bytes({{m.rows(), m.cols()}, std::vector<double>(m.data(), m.data() + m.size()), core::io::DType::f64}, o.export_out);
    }
    for (const core::io::NamedArray& a : core::io::scenario_arrays(s, r))
        if (a.name == o.export_what) return core::io::npy_bytes(tensor_of(a), o.export_out);
    return {};
}

core::io::TextFormat text_format(const std::string& f) {
    if (f == "csv") return core::io::TextFormat::csv;
    if (f == "tsv") return core::io::TextFormat::tsv;
    if (f == "tex") return core::io::TextFormat::latex;
    return core::io::TextFormat::markdown;
}

// Token names where a matrix's rows (or columns) are tokens.
core::io::MatrixLabels labels_of(const core::Scenario& s, const core::Matrix& m, const std::string& what) {
    core::io::MatrixLabels labels;
    const bool token_rows = !one_of(what, {"W_Q", "W_K", "W_V", "W_O"}) && m.rows() == s.n();
    if (token_rows) labels.rows = s.tokens;
    if (token_rows && one_of(what, {"scores", "scaled", "A"})) labels.cols = s.tokens;
    return labels;
}

std::string heads_json(const core::Scenario& s, const core::Result& r, const std::string& what) {
    if (!core::io::is_per_head(what) || s.heads.size() == 1) return core::io::matrix_json(core::io::matrix_by_name(s, r, what, 0), "  ");
    std::string out = "[\n  ";
    for (std::size_t h = 0; h < s.heads.size(); ++h)
        out += (h ? ",\n  " : "") + core::io::matrix_json(core::io::matrix_by_name(s, r, what, static_cast<int>(h)), "  ");
    return out + "\n]";
}

// {"tokens": […], "X": […], "W_Q": […] or [[…] per head], …}
std::string all_json(const core::Scenario& s, const core::Result& r) {
    std::string out = "{\"tokens\": " + nlohmann::json(s.tokens).dump();
    for (const std::string& name : core::io::matrix_names()) {
        if (name == "W_O" && s.W_O.size() == 0) continue;
        out += ",\n\"" + name + "\": " + heads_json(s, r, name);
    }
    return out + "\n}\n";
}

std::string figure_title(const core::Scenario& s, int head) {
    std::string t = "Attention weights A";
    if (s.heads.size() > 1) t += ", head " + std::to_string(head + 1) + " of " + std::to_string(s.heads.size());
    return t;
}

// The bytes to write; throws ExportError.
std::string export_bytes(const Options& o, const core::Scenario& s, const core::Result& r) {
    const int head = std::max(0, o.head - 1);
    if (o.export_what == "all") return o.export_format == "npz" ? all_npz(s, r, o.export_out) : all_json(s, r);
    if (o.export_format == "npy") return matrix_npy(o, s, r);
    if (o.export_what == "heatmap") {
        const core::Matrix& A = r.heads[static_cast<std::size_t>(head)].weights;
        const core::io::FigureSpec spec = core::io::heatmap_spec(s, A, figure_title(s, head), false);
        return o.export_format == "svg" ? core::io::heatmap_figure_svg(A, spec) : core::io::png_bytes(core::io::heatmap_figure_png(A, spec));
    }
    if (o.export_format == "json") return o.head ? core::io::matrix_json(core::io::matrix_by_name(s, r, o.export_what, head), "  ") + "\n"
                                                 : heads_json(s, r, o.export_what) + "\n";
    const core::Matrix& m = core::io::matrix_by_name(s, r, o.export_what, head);
    if (o.export_format == "png") return core::io::png_bytes(core::io::heatmap_texels(m, s.causal));
    return core::io::matrix_text(m, text_format(o.export_format), labels_of(s, m, o.export_what));
}

} // namespace

void check_export_options(const Options& o) {
    const std::string& what = o.export_what;
    const std::string& f = o.export_format;
    const auto& names = core::io::matrix_names();
    const bool matrix = std::find(names.begin(), names.end(), what) != names.end();
    if (!matrix && what != "heatmap" && what != "all")
        throw UsageError("--export takes X, W_Q, W_K, W_V, W_O, Q, K, V, scores, scaled, A, Z, concat, output, heatmap or all, not \"" + what + "\"");
    if (!one_of(f, {"csv", "tsv", "npy", "npz", "tex", "md", "png", "svg", "json"}))
        throw UsageError("--format takes csv, tsv, npy, npz, tex, md, png, svg or json, not \"" + f + "\"");
    if (o.export_out.empty()) throw UsageError("--export needs --out PATH");
    const auto no = [&](const std::string& goes) { throw UsageError("--export " + what + " cannot be written as " + f + " (" + goes + ")"); };
    if (what == "all" && f != "json" && f != "npz") no("all is written as npz or json");
    if (what != "all" && f == "npz") no("npz holds every matrix: --export all --format npz");
    if (what == "heatmap" && !one_of(f, {"png", "svg"})) no("the heatmap is a png or svg figure");
    if (matrix && f == "png" && what != "A") no("png draws the weights A, one pixel per cell; or try --export heatmap");
    if (matrix && f == "svg") no("svg draws the weights: try --export heatmap --format svg");
    if (matrix && !one_of(f, {"csv", "tsv", "tex", "md", "json", "npy", "png"})) no(std::string("a matrix is written as ") + text_formats + (what == "A" ? " or png" : ""));
    if (o.head && (what == "all" || (matrix && !core::io::is_per_head(what))))
        throw UsageError("--head goes with a per-head matrix (W_Q W_K W_V Q K V scores scaled A Z) or the heatmap, not " + what);
}

int run_export(const Options& o, std::ostream& err) {
    core::Scenario s;
    if (!load_scenario(o, s, err)) return 2;
    const std::string where = scenario_name(o);
    const int heads = static_cast<int>(s.heads.size());
    if (o.head > heads) {
        err << "attnviz: " << where << ": --head " << o.head << ", but the scenario has " << heads << (heads == 1 ? " head\n" : " heads\n");
        return 2;
    }
    const bool per_head = o.export_what == "heatmap" || core::io::is_per_head(o.export_what);
    if (per_head && heads > 1 && !o.head && (o.export_what == "heatmap" || two_dimensional(o.export_format))) {
        err << "attnviz: " << where << ": the scenario has " << heads << " heads; say which with --head 1.." << heads << "\n";
        return 2;
    }
    if (o.export_what == "W_O" && s.W_O.size() == 0) {
        err << "attnviz: " << where << ": the scenario has no W_O (output projection)\n";
        return 2;
    }
    try {
        core::io::write_file_atomically(o.export_out, export_bytes(o, s, core::compute(s)));
    } catch (const core::io::ExportError& e) {
        err << "attnviz: " << o.export_out << ": " << e.what() << "\n";
        return 2;
    } catch (const core::io::WriteError& e) {
        err << "attnviz: " << e.what() << "\n";
        return 2;
    } catch (const core::ScenarioError& e) {
        err << "attnviz: " << e.what() << "\n";
        return 2;
    } catch (const core::io::FileError& e) {
        err << "attnviz: " << e.what() << "\n";
        return 2;
    }
    return 0;
}

} // namespace app
