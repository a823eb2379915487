// ui/panels/model/model_qk.h — the query–key view of the selected head of the live model, drawn by the
// shared query–key plane (ui/panels/shared/qk_plane.h) on the head's captured queries and keys: the first two
// principal components or the plane of the selected query and its top key, named with the share of
// the variance it keeps. Hovering a query draws its lines to the keys with the head's weights; a
// click selects the query.
#pragma once

#include "ui/panels/shared/qk_plane.h"
#include "ui/view.h"

namespace ui {

struct ModelQKView {
    bool principal = true;  // else the plane of the selected query and its top key
    QKPlaneView plane;      // what the last frame drew (the tests read it)
    // The head the plane was made for, and its queries, keys and weights (as doubles) on that run.
    long long serial = -1;
    int layer = -1, head = -1, query = -1;
    long long copies = 0;   // how many times they were copied: the plane's QKPlaneInput::version
    core::Matrix Q, K;      // (t, d_head)
    core::Matrix weights;   // (t, t) rows are queries
};

void draw_model_qk_panel(View& v, TextureUploader& textures);

} // namespace ui
