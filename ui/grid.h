// ui/grid.h — a matrix drawn as a scrollable grid that only touches the cells on screen.
//
// ImGui tables are limited to 64 columns and d_model reaches 512 and n 4096, so matrices are drawn
// in a child window whose content size is the whole matrix; only the visible rows and columns are
// submitted, with the row and column labels frozen at the left and top.
#pragma once

#include "core/edits.h"
#include "ui/view.h"

#include <functional>
#include <string>

namespace ui {

struct GridSpec {
    const char* id = "grid";
    int rows = 0, cols = 0;
    float cell_w = 0, cell_h = 0;   // pixels (callers derive them from em)
    float row_header_w = 0;         // width of the frozen label column
    ImVec2 max_size{0, 0};          // the grid scrolls beyond this
    int highlight_row = -1;         // the selected query, outlined
    std::function<std::string(int)> row_label;              // plain labels…
    std::function<void(int, const ImRect&)> row_header;     // …or widgets in the label column
    std::function<std::string(int)> col_label;
    std::function<void(int, int, const ImRect&)> cell;      // draws one cell (widgets allowed)
    std::function<void(int, int)> cell_tooltip;              // optional, for the hovered cell
};

// Draws the grid at the cursor and returns where its cells are.
GridGeometry draw_grid(const GridSpec& spec);
// Outer size draw_grid will use, for flowing several grids side by side.
ImVec2 grid_size(const GridSpec& spec);

// Starts the next block of `width` pixels on the current line when it fits, else on a new line.
void flow(float width, bool first);

// Text centred in a cell, clipped to it.
void cell_text(const ImRect& cell, const std::string& text, ImU32 color);

// The colour of a cell an open lesson prediction hides (View::lesson), and such a cell: grey, with "?".
inline ImU32 hidden_colour() { return IM_COL32(78, 78, 86, 255); }
void draw_hidden_cell(const ImRect& rect);
// Outlines the open lesson's highlights of `matrix` (as lessons name it: X Q K V scores scaled A Z)
// on a grid of rows × cols cells that the current window just drew, pulsing so that they are told
// apart from the selection; only the part no window in front covers.
void outline_highlights(View& v, const std::string& matrix, const GridGeometry& g, int rows, int cols);

// The widest of the first 256 token names: the width of a column of row labels.
float token_label_width(const core::Scenario& s);

NumberRange number_range(const Eigen::Ref<const core::Matrix>& m);
// number_range of a matrix of the Result, remembered until the result version changes.
NumberRange result_range(const core::Matrix& m, View& v);

// An editable matrix of the scenario (core::edits::matrix_of; none: no cells): every entry a
// number_cell (widgets.h), wide enough for its widest number, changed through core::edits::set_cell.
// Labels and the tooltip are left to the caller.
GridSpec number_grid(const char* id, core::Scenario& s, core::edits::Which which, int head, ImVec2 max_size, View& v);

// A read-only matrix, its first `rows` rows: each entry written on a diverging colour scaled to the
// largest |entry|, with a tooltip. Labels and the highlighted row are left to the caller.
GridSpec value_grid(const char* id, const core::Matrix& m, int rows, ImVec2 max_size);

} // namespace ui
