// core/io/export.cpp
//
// [SECTION] Numbers
// [SECTION] Text formats
// [SECTION] Heatmap pixels and PNG
// [SECTION] Named matrices
#include "core/io/export.h"

#include "core/colormap.h"
#include "core/io/files.h"

#include <stb_image_write.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace core::io {

//-----------------------------------------------------------------------------
// [SECTION] Numbers
//-----------------------------------------------------------------------------

namespace {

bool all_integers(const Matrix& m) {
    for (Eigen::Index i = 0; i < m.size(); ++i) {
        const double x = m.data()[i];
        if (std::isinf(x)) continue; // −∞ (masked) leaves a matrix of integers one
        if (std::isnan(x) || std::abs(x) >= 1e15 || x != std::round(x)) return false;
    }
    return true;
}

// As the articles print: "2", or "1.414" / "0.000" when the matrix is not all integers.
std::string printed(double x, bool integers, const char* minus_infinity) {
    if (std::isinf(x)) return x < 0 ? std::string(minus_infinity) : std::string(minus_infinity + 1);
    if (std::isnan(x)) return "NaN";
    char buf[64];
    if (integers) std::snprintf(buf, sizeof buf, "%.0f", x == 0 ? 0.0 : x);
    else std::snprintf(buf, sizeof buf, "%.3f", x);
    const std::string s = buf;
    return s == "-0.000" ? "0.000" : s;
}

// Exactly, for files read back by programs: "inf", "-inf" and "nan" as NumPy's loadtxt reads them.
std::string exact(double x) {
    if (std::isnan(x)) return "nan";
    if (std::isinf(x)) return x < 0 ? "-inf" : "inf";
    return json_number(x);
}

// Python float literals: "1.0", not "1" (which would make an int array).
std::string python_number(double x) {
    if (std::isnan(x)) return "np.nan";
    if (std::isinf(x)) return x < 0 ? "-np.inf" : "np.inf";
    std::string s = json_number(x);
    if (s.find_first_of(".e") == std::string::npos) s += ".0";
    return s;
}

} // namespace

//-----------------------------------------------------------------------------
// [SECTION] Text formats
//-----------------------------------------------------------------------------

namespace {

// CSV quoting (RFC 4180) for labels holding the separator, a quote or a line break.
std::string csv_field(const std::string& text, char separator) {
    if (text.find_first_of(std::string("\"\r\n") + separator) == std::string::npos) return text;
    std::string out = "\"";
    for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
}

std::string delimited(const Matrix& m, char sep, const MatrixLabels& labels) {
    const bool row_names = static_cast<Eigen::Index>(labels.rows.size()) == m.rows();
    const bool header = static_cast<Eigen::Index>(labels.cols.size()) == m.cols();
    std::string out;
    if (header) {
        if (row_names) out += sep;
        for (Eigen::Index j = 0; j < m.cols(); ++j) out += (j ? std::string(1, sep) : "") + csv_field(labels.cols[j], sep);
        out += "\n";
    }
    for (Eigen::Index i = 0; i < m.rows(); ++i) {
        if (row_names) out += csv_field(labels.rows[i], sep) + sep;
        for (Eigen::Index j = 0; j < m.cols(); ++j) out += (j ? std::string(1, sep) : "") + exact(m(i, j));
        out += "\n";
    }
    return out;
}

std::string numpy_literal(const Matrix& m) {
    std::string out = "np.array([";
    for (Eigen::Index i = 0; i < m.rows(); ++i) {
        if (i) out += ",\n          ";
        out += "[";
        for (Eigen::Index j = 0; j < m.cols(); ++j) out += (j ? ", " : "") + python_number(m(i, j));
        out += "]";
    }
    return out + "])\n";
}

std::string latex(const Matrix& m) {
    const bool integers = all_integers(m);
    std::string out;
    // pmatrix takes 10 columns unless told otherwise (amsmath's MaxMatrixCols).
    if (m.cols() > 10) out += "% needs \\setcounter{MaxMatrixCols}{" + std::to_string(m.cols()) + "}\n";
    out += "\\begin{pmatrix}";
    for (Eigen::Index i = 0; i < m.rows(); ++i) {
        out += i ? " \\\\ " : " ";
        for (Eigen::Index j = 0; j < m.cols(); ++j) out += (j ? " & " : "") + printed(m(i, j), integers, "-\\infty");
    }
    return out + " \\end{pmatrix}\n";
}

std::string markdown_cell(const std::string& text) {
    std::string out;
    for (char c : text) out += c == '|' ? std::string("\\|") : c == '\n' ? std::string(" ") : std::string(1, c);
    return out;
}

std::string markdown(const Matrix& m, const MatrixLabels& labels) {
    const bool integers = all_integers(m);
    const bool row_names = static_cast<Eigen::Index>(labels.rows.size()) == m.rows();
    const bool col_names = static_cast<Eigen::Index>(labels.cols.size()) == m.cols();
    std::string head = row_names ? "| |" : "|", rule = row_names ? "|---|" : "|";
    for (Eigen::Index j = 0; j < m.cols(); ++j) {
        head += " " + (col_names ? markdown_cell(labels.cols[j]) : std::to_string(j + 1)) + " |";
        rule += "---:|";
    }
    std::string out = head + "\n" + rule + "\n";
    for (Eigen::Index i = 0; i < m.rows(); ++i) {
        out += row_names ? "| " + markdown_cell(labels.rows[i]) + " |" : "|";
        for (Eigen::Index j = 0; j < m.cols(); ++j) out += " " + printed(m(i, j), integers, "−∞") + " |";
        out += "\n";
    }
    return out;
}

} // namespace

std::string matrix_text(const Matrix& m, TextFormat format, const MatrixLabels& labels) {
    switch (format) {
    case TextFormat::csv: return delimited(m, ',', labels);
    case TextFormat::tsv: return delimited(m, '\t', labels);
    case TextFormat::numpy: return numpy_literal(m);
    case TextFormat::latex: return latex(m);
    case TextFormat::markdown: return markdown(m, labels);
    }
    return {};
}

//-----------------------------------------------------------------------------
// [SECTION] Heatmap pixels and PNG
//-----------------------------------------------------------------------------

Image heatmap_texels(const Matrix& weights, bool causal, double top) {
    Image image;
    image.width = static_cast<int>(weights.cols());
    image.height = static_cast<int>(weights.rows());
    image.rgb.resize(static_cast<std::size_t>(weights.size()) * 3);
    std::uint8_t* p = image.rgb.data();
    for (Eigen::Index i = 0; i < weights.rows(); ++i)
        for (Eigen::Index j = 0; j < weights.cols(); ++j, p += 3) {
            const Rgb c = causal && j > i ? masked_rgb() : viridis(weights(i, j) / top);
            p[0] = c.r, p[1] = c.g, p[2] = c.b;
        }
    return image;
}

std::string png_bytes(const Image& image) {
    std::string png;
    const auto append = [](void* context, void* data, int size) {
        static_cast<std::string*>(context)->append(static_cast<const char*>(data), static_cast<std::size_t>(size));
    };
    if (image.width <= 0 || image.height <= 0 ||
        !stbi_write_png_to_func(append, &png, image.width, image.height, 3, image.rgb.data(), image.width * 3))
        throw ExportError("cannot encode a " + std::to_string(image.width) + " × " + std::to_string(image.height) + " PNG");
    return png;
}

//-----------------------------------------------------------------------------
// [SECTION] Named matrices
//-----------------------------------------------------------------------------

const std::vector<std::string>& matrix_names() {
    static const std::vector<std::string> names = {"X", "W_Q", "W_K", "W_V", "W_O", "Q", "K", "V",
                                                   "scores", "scaled", "A", "Z", "concat", "output"};
    return names;
}

bool is_per_head(const std::string& name) {
    const auto& names = matrix_names();
    return std::find(names.begin(), names.end(), name) != names.end() && name != "X" && name != "W_O" && name != "concat" && name != "output";
}

const Matrix& matrix_by_name(const Scenario& s, const Result& r, const std::string& name, int head) {
    const Head& h = s.heads.at(static_cast<std::size_t>(head));
    const HeadResult& hr = r.heads.at(static_cast<std::size_t>(head));
    if (name == "X") return s.X;
    if (name == "W_Q") return h.W_Q;
    if (name == "W_K") return h.W_K;
    if (name == "W_V") return h.W_V;
    if (name == "W_O") return s.W_O;
    if (name == "Q") return hr.Q;
    if (name == "K") return hr.K;
    if (name == "V") return hr.V;
    if (name == "scores") return hr.scores;
    if (name == "scaled") return hr.scaled;
    if (name == "A") return hr.weights;
    if (name == "Z") return hr.output;
    if (name == "concat") return r.concat;
    if (name == "output") return r.output;
    throw ExportError("no matrix called " + name);
}

std::vector<NamedArray> scenario_arrays(const Scenario& s, const Result& r) {
    std::vector<NamedArray> arrays;
    const auto heads = static_cast<std::int64_t>(s.heads.size());
    for (const std::string& name : matrix_names()) {
        if (name == "W_O" && s.W_O.size() == 0) continue;
        NamedArray a{name, {}, {}};
        const int copies = is_per_head(name) ? static_cast<int>(heads) : 1;
        for (int h = 0; h < copies; ++h) {
            const Matrix& m = matrix_by_name(s, r, name, h);
            a.values.insert(a.values.end(), m.data(), m.data() + m.size());
            a.shape = {m.rows(), m.cols()};
        }
        if (copies > 1) a.shape.insert(a.shape.begin(), heads);
        arrays.push_back(std::move(a));
    }
    return arrays;
}

} // namespace core::io
