// ui/app_model.cpp — App::open_model: the Model panels' entry from the command line.
#include "ui/app_state.h"
#include "ui/model_service.h"

#include <algorithm>

namespace ui {

bool App::open_model(const std::string& path, const std::string& text, bool wait, std::string& error, int layer, int head) {
    ModelService& m = state_->view.state<ModelService>();
    if (!text.empty()) m.prompt = text;
    m.layer = std::max(layer, 0);
    m.head = std::max(head, 0);
    if (!wait) { // the window: its first frame comes before the tokenizer is read
        m.open_in_background(path, state_->view);
        return true;
    }
    if (!m.open(path, state_->view)) {
        error = m.open_error;
        return false;
    }
    const core::model::ModelConfig& c = m.session.opened()->model->config();
    m.layer = std::clamp(layer, 0, c.layers - 1);
    m.head = std::clamp(head, 0, c.heads - 1);
    m.session.wait_idle(600);
    return true;
}

bool App::model_shown() const { return state_->view.state<ModelService>().has_attention(); }

std::string App::type_into_prompt(const std::string& key) {
    ModelService& m = state_->view.state<ModelService>();
    m.prompt += key;
    m.run_prompt();
    return m.prompt;
}

App::ShownRun App::shown_run() const {
    const ModelService& m = state_->view.state<ModelService>();
    if (!m.shown) return {};
    return {m.shown->request.text, m.shown->seconds * 1000.0};
}

} // namespace ui
