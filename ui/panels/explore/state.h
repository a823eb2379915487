// ui/panels/explore/state.h — the state of the linear and delta rules: the d_k × d_v matrix a head carries
// from token to token, at the selected query, and the output as that state read along the query.
#pragma once

#include "core/attention.h"
#include "ui/view.h"

namespace ui {

struct StateView {
    long long version = -1; // the result version `state` was read from
    int head = -1, row = -1;
    core::Matrix state;     // (d_k, d_v) the selected head's state at the selected row
};

void draw_state_panel(const core::Scenario& s, const core::Result& r, View& v);

} // namespace ui
