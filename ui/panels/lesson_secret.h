// ui/panels/lesson_secret.h — what the panels keep hidden while a lesson's prediction is open and
// not yet committed, so that the answer is predicted rather than read off the screen. Each panel
// asks once per row it draws; the learner can still edit everything.
#pragma once

#include "core/attention.h"
#include "ui/view.h"

#include <imgui.h>
#include <imgui_internal.h>

#include <string>
#include <vector>

namespace ui {

// The colour of a hidden cell, and the words shown where hidden numbers would be.
inline ImU32 hidden_colour() { return IM_COL32(78, 78, 86, 255); }
inline constexpr const char* reveal_hint = "commit your prediction to reveal";

// A table cell whose number is hidden: grey, with "?".
void draw_hidden_cell(const ImRect& rect);

// Whether `row` of `matrix` (X Q K V scores scaled A Z; -1: any row) decides the open prediction.
bool lesson_hides(View& v, const core::Scenario& s, const core::Result& r, const std::string& matrix, int row);
// lesson_hides for each row of `matrix`, 0 or 1 (s.n() entries).
std::vector<char> lesson_hidden_rows(View& v, const core::Scenario& s, const core::Result& r, const std::string& matrix);
// Row `row` of lesson_hidden_rows (false beyond it: a table drawn from a Result of another size).
inline bool hidden_at(const std::vector<char>& hidden, int row) { return row >= 0 && static_cast<size_t>(row) < hidden.size() && hidden[static_cast<size_t>(row)]; }
// Whether the open prediction asks for a size by name (d_k, heads, …).
bool lesson_hides_name(View& v, const core::Scenario& s, const core::Result& r, const std::string& name);
// Whether the open prediction asks about the decoder's KV cache.
bool lesson_hides_decoder(View& v, const core::Scenario& s, const core::Result& r);

} // namespace ui
