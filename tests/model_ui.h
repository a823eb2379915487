// What the headless Model-workspace tests share: a fixture checkpoint's folder, and frames until the
// model session has answered the last request.
#pragma once

#include "headless.h"
#include "tests/checkpoint_fixtures.h"
#include "ui/model_service.h"

#include <doctest/doctest.h>

#include <string>

namespace model_ui {

inline std::string tiny(const std::string& name) { return fixtures::checkpoints() + "/" + name; }

// Frames until the worker has answered the last request (at most a few hundred frames).
inline void until_run(headless::Ui& ui) {
    ui::ModelService& m = ui.st().view.state<ui::ModelService>();
    for (int k = 0; k < 400; ++k) {
        m.session.wait_idle(0.05);
        ui.frame();
        if (m.seen == m.asked && !m.session.progress().running) return;
    }
    FAIL("the model's run did not finish");
}

} // namespace model_ui
