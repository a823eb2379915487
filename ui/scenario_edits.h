// ui/scenario_edits.h — structural edits of a Scenario that keep it valid.
//
// Each edit changes every place a dimension appears at once (X, every head's W_Q/W_K/W_V, W_O and
// the pinned query), so the scenario is valid before and after. New entries are 0: nothing that
// was computed changes until the user gives them a value. Pure functions, no ImGui.
#pragma once

#include "core/scenario.h"

#include <string>

namespace ui::edit {

// Appends a token with a zero embedding.
void add_token(core::Scenario& s, const std::string& name);
// Removes token `row` (0-based); refused (false) when it is the last one. A pin on it is released.
bool remove_token(core::Scenario& s, int row);
// Swaps token `row` with token `row + by` (by = ±1); false when that would leave the list.
bool move_token(core::Scenario& s, int row, int by);

// Widths, clamped to 1 … Limits::max_dim. Columns are added or dropped at the end.
void set_d_model(core::Scenario& s, int d_model); // X columns, W_Q/W_K/W_V rows, W_O columns
void set_d_k(core::Scenario& s, int d_k);         // W_Q and W_K columns of every head, pin.q
void set_d_v(core::Scenario& s, int d_v);         // W_V columns of every head, each head's block of W_O rows

// A name for a new token that is not taken yet: "t4", "t5", …
std::string unused_token_name(const core::Scenario& s);

} // namespace ui::edit
