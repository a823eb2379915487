// ui/widgets.h — small pieces every panel uses: sizes in em, the number font, colour maps,
// delayed tooltips, and the one editor for a matrix entry.
#pragma once

#include "ui/view.h"

#include <imgui.h>

#include <functional>
#include <string>
#include <vector>

namespace ui {

// The font size in pixels: every size in the UI is a multiple of it.
inline float em() { return ImGui::GetFontSize(); }

// Fonts[1] (DejaVu Sans Mono) when the window loaded it, so digits line up; else the default.
ImFont* number_font();
struct NumberFont {
    NumberFont() { ImGui::PushFont(number_font()); }
    ~NumberFont() { ImGui::PopFont(); }
    NumberFont(const NumberFont&) = delete;
    NumberFont& operator=(const NumberFont&) = delete;
};

// Tooltip for the last item, after the mouse rested on it for tip_delay seconds.
void tip(const char* text);
inline constexpr float tip_delay = 0.35f;
// Records the last item's rectangle under `name` (View::items) so tests can click it.
void remember(View& v, const char* name);
// A running measurement's Cancel button (remembered as `cancel_name`) and a bar "done / total
// UNIT" beside it, the frames kept moving; true when Cancel was clicked.
bool cancel_and_progress(View& v, const char* cancel_name, int done, int total, const char* unit);
// SameLine() when an item `width` wide still fits on the current line (true); else false, and the
// next item goes below.
bool same_line_if_fits(float width);
// `text` cut to fit `width` with a trailing "…" (whole UTF-8 characters), or whole when it fits.
std::string fit_text(const std::string& text, float width);

// Colours, in the maps View ▸ Colour maps chose (ui/colour_maps.h). Sequential: the weights map,
// t in [0, 1]. Diverging: the signed map, t in [−1, 1], 0 in the middle.
ImU32 sequential_color(double t);
ImU32 diverging_color(double t);
ImU32 masked_color();
ImU32 selection_color();
// A vertical colour bar `height` tall at `at` (0.8 em wide, labels to its right): the sequential map
// from 0 (bottom) to `top`, or the diverging one from −top to +top.
void colour_bar(ImDrawList* draw, ImVec2 at, float height, double top, bool diverging = false);
// The labels of a map's columns first … last−1 under it at height y, each centred under its column
// (x0 + (j + ½)·cell), cut to 4 em, every k-th where they would overlap, kept within [lo, hi].
// Returns how many it drew.
int column_labels(ImDrawList* draw, const std::vector<std::string>& labels, int first, int last, float x0, float cell, float y, float lo, float hi);
// Red text for refusals and file errors, readable on the theme's background.
ImVec4 error_text_colour();
// Green text for results that agree ("same as …"), readable on the theme's background.
ImVec4 good_text_colour();
// Wrapped text in `colour`; in the theme's dimmed text colour; in error_text_colour().
void coloured_text(const ImVec4& colour, const std::string& text);
void dim_text(const std::string& text);
void error_text(const std::string& text);
// Black or white, whichever reads better on `background`.
ImU32 text_color_on(ImU32 background);

// Width of a number cell that fits `chars` characters of the number font, with padding.
float number_cell_width(int chars);
// Characters format_number() needs for values up to `max_abs` (sign and 3 decimals included).
int number_chars(double max_abs, bool all_integers);

// One editable matrix entry: drag it, or double-click / Ctrl+click and type. Letters cannot be
// typed; NaN is refused and values beyond ±1e6 are clamped, both with a message in v.status.
// Returns true when `value` changed.
bool number_cell(const char* id, double& value, float width, View& v);

// A dimension (d_model, d_k, d_v): − and + buttons and a box that applies on Enter. True on change.
bool dimension_input(const char* label, int& value, int min, int max, const char* tooltip, View& v);

// One query's weights as horizontal bars, one line per key: its name (clipped to `name_w`), a bar
// as long as its weight, and the weight after it. Only the lines on screen are drawn. Bars of
// weight `top` (the largest) get the selection colour; masked keys are grey and read "masked".
void weight_bars(int count, float name_w, ImU32 color, double top, const std::function<const char*(int)>& name,
                 const std::function<double(int)>& weight, const std::function<bool(int)>& masked);

// Where a square map of the model's t x t weights goes in the rest of a panel: row labels (at most
// `label_em` wide) on its left, a colour bar on its right, a line of column labels below, the whole
// centred in a wide panel. `p0` is the labels' top left, the map starts at p0.x + label_w.
struct SquareMap {
    ImVec2 p0;
    float label_w, side, below;
};
SquareMap square_map_layout(const std::vector<std::string>& labels, float label_em);

} // namespace ui
