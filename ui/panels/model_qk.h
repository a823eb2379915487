// ui/panels/model_qk.h — the query–key view of the selected head of the live model: every token's
// query and key in one plane (core::model::query_key_view: the keys moved to the queries' mean,
// α-scaled), the first two principal components or the plane of the selected query and its top
// key, named with the share of the variance it keeps. Hovering a query draws its lines to the keys
// with the head's weights; a click selects the query.
#pragma once

#include "core/model/probes.h"
#include "ui/view.h"

namespace ui {

struct ModelQKView {
    bool principal = true;  // else the plane of the selected query and its top key
    // What the last frame drew, for the tests.
    long long serial = -1;
    int layer = -1, head = -1, query = -1, top_key = -1;
    core::model::QKView view;
    int hovered_query = -1;
    int lines_drawn = 0;
    std::vector<ImVec2> query_dots, key_dots;
};

void draw_model_qk_panel(View& v);

} // namespace ui
