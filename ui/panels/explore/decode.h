// ui/panels/explore/decode.h — generate one token at a time and watch the KV cache grow.
#pragma once

#include "core/decoder.h"
#include "ui/view.h"

#include <optional>

namespace ui {

struct DecodeView {
    std::optional<core::Decoder> decoder; // built from the computed scenario
    long long version = -1;               // result version the decoder was built for
    int steps = 0;                        // steps taken: tokens 1..steps are in the caches
    core::DecodeStep last;                // the result of step `steps` (when steps ≥ 1)
    bool playing = false;
    float timer = 0.0f;                   // seconds since the last automatic step
};

void draw_decode_panel(const core::Scenario& s, const core::Result& r, View& v);

} // namespace ui
