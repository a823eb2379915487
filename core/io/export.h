// core/io/export.h — matrices and heatmaps in the formats people paste into papers, slides and
// notebooks: CSV, TSV, a NumPy literal, a LaTeX pmatrix, a Markdown table, and the heatmap as a
// PNG with one pixel per cell. The labelled figure (PNG and SVG) is in core/io/figure.h.
#pragma once

#include "core/attention.h"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace core::io {

// A file that cannot be written, or an export that does not fit; what() names the file or the
// matrix ("A has 4096 × 4096 cells; an SVG stops at 1024 × 1024").
struct ExportError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

enum class TextFormat { csv, tsv, numpy, latex, markdown };

// Optional names of the rows (first column) and of the columns (header row).
struct MatrixLabels {
    std::vector<std::string> rows, cols;
};

// One matrix as text, one row per line (LaTeX: one line, as the articles print it):
//   csv, tsv  every number exactly (shortest text that reads back bit for bit); labels when given
//   numpy     np.array([[…], …]) with exact numbers; −∞ as -np.inf
//   latex     \begin{pmatrix} 1.414 & 0.000 \\ … \end{pmatrix}: integers plainly when every entry is
//             one, otherwise 3 decimals; −∞ as -\infty
//   markdown  a table with 3 decimals (same rule), the labels as header row and first column
std::string matrix_text(const Matrix& m, TextFormat format, const MatrixLabels& labels = {});

// Pixels, RGB, row-major, top row first.
struct Image {
    int width = 0, height = 0;
    std::vector<std::uint8_t> rgb; // (height, width, 3)
};

// The heatmap at one pixel per cell, in the window's colours: weight / top on the viridis map,
// masked cells (j > i when `causal`) grey.
Image heatmap_texels(const Matrix& weights, bool causal, double top = 1.0); // weights: (n, n)

// The image encoded as PNG.
std::string png_bytes(const Image& image);

// Every matrix of a scenario and its Result under the name --export uses, per-head ones stacked
// as (heads, rows, cols) when there are several heads.
struct NamedArray {
    std::string name;
    std::vector<std::int64_t> shape;
    std::vector<double> values; // row-major
};
std::vector<NamedArray> scenario_arrays(const Scenario& s, const Result& r);

// The names scenario_arrays uses, in its order: X W_Q W_K W_V W_O Q K V scores scaled A Z concat output.
const std::vector<std::string>& matrix_names();
// True for the names of matrices that have one per head (W_Q … Z); false for any other text.
bool is_per_head(const std::string& name);
// One matrix by name; `head` is 0-based and ignored for X, W_O, concat and output.
// W_O is empty (0 × 0) when the scenario has none.
const Matrix& matrix_by_name(const Scenario& s, const Result& r, const std::string& name, int head);

} // namespace core::io
