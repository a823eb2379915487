// ui/panels/shared/matrix_menu.h — right-click a matrix's title: copy it as CSV, TSV, a NumPy literal, a LaTeX
// pmatrix or a Markdown table, or save it as .csv or .npy; for the weights, save the heatmap as a
// PNG (a pixel per cell), a labelled PNG or an SVG (core/io/export.h, core/io/figure.h).
#pragma once

#include "core/io/export.h"
#include "core/io/figure.h"
#include "ui/view.h"

#include <string>

namespace ui {

// Call right after the title item. `name` names the matrix (the popup id, the default file name);
// the Save items ask where through the file dialog (View::file_request).
// `figure` non-null adds the heatmap exports. Records "copy as LaTeX" etc. in v.items as
// "<name> menu: <item>" for the tests.
void matrix_menu(const std::string& name, const core::Matrix& m, const core::io::MatrixLabels& labels, View& v,
                 const core::io::FigureSpec* figure = nullptr);

} // namespace ui
