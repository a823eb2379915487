// core/io/figure.h — the heatmap as a figure for a paper: title, token labels, the cells in the
// window's colours, a colour bar, and the weights written in the cells when they are big enough.
// The same layout is drawn as a PNG (text rasterised with stb_truetype from DejaVu Sans) and as
// an SVG (one <rect> per cell, text as <text>, so it stays sharp at any size).
#pragma once

#include "core/io/export.h"

namespace core::io {

struct FigureSpec {
    std::string title;               // above the map
    std::vector<std::string> tokens; // n labels for rows and columns (may be empty)
    bool causal = false;             // cells with j > i are masked (grey)
    double top = 1.0;                // the weight drawn in the top colour
    // Signed entries (a linear head's M): core::diverging from −top through 0 to +top, the colour bar
    // and its ticks centred at 0.
    bool diverging = false;
};

// The figure of one head's map of `s` (weights: (n, n)): masked where s sees only the past; under a
// signed rule (linear, delta) M on the diverging map from −max|M| to +max|M|; else the weights from 0
// to 1, or to their largest where `stretch`. The window's heatmap and --export heatmap both take it.
FigureSpec heatmap_spec(const Scenario& s, const Matrix& weights, std::string title, bool stretch);

// The largest n an SVG is written for: it holds one element per cell.
constexpr int max_svg_tokens = 1024;

// Throws ExportError when DejaVu Sans (fonts-dejavu-core) is not installed.
Image heatmap_figure_png(const Matrix& weights, const FigureSpec& spec); // weights: (n, n)
// Throws ExportError beyond max_svg_tokens.
std::string heatmap_figure_svg(const Matrix& weights, const FigureSpec& spec); // weights: (n, n)

// Where the figure's font is looked for.
extern const char* const figure_font_path;

} // namespace core::io
