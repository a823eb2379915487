// core/fill.h — which matrices of a scenario an array read from a file can fill, and filling one
// (File ▸ Import array and drag and drop). An edit like those of core/edits.h: the scenario is
// valid before and after, and unchanged when the array does not fit.
#pragma once

#include "core/scenario.h"

#include <string>
#include <vector>

namespace core::edits {

struct MatrixSlot {
    std::string field; // "X", "W_Q", "W_K", "W_V", "W_O", or, for a direct scenario, "Q", "K", "V"
    int head = -1;     // the head; −1 for X and W_O, and for every head at once (one array per head)
    // "W_Q of head 2", "W_Q of every head", "X"
    std::string label() const;
    bool operator==(const MatrixSlot& o) const { return field == o.field && head == o.head; }
};

// The slots `arrays` fits: one array (rows, cols) fits a matrix of that shape, and X of any
// number of rows (the tokens follow); one array per head fits a per-head matrix of every head.
std::vector<MatrixSlot> fitting_slots(const Scenario& s, const std::vector<Matrix>& arrays);
// The shapes the scenario's matrices have, for a "fits none" message: "X (3, 4), W_Q (4, 2), …".
std::string slot_shapes(const Scenario& s);
// Puts the array(s) into the slot; when X gets more or fewer rows, tokens are added ("t4", …) or
// dropped at the end. Throws ScenarioError, changing nothing, when they do not fit or a value is
// past the limits.
void fill_matrix(Scenario& s, const MatrixSlot& slot, const std::vector<Matrix>& arrays);

} // namespace core::edits
