// ui/app_model.cpp — App::open_model: the Model panels' entry from the command line.
#include "ui/app_state.h"
#include "ui/model_service.h"

namespace ui {

bool App::open_model(const std::string& path, const std::string& text, bool wait, std::string& error) {
    ModelService& m = state_->view.state<ModelService>();
    if (!text.empty()) m.prompt = text;
    if (!m.open(path, state_->view)) {
        error = m.open_error;
        return false;
    }
    if (wait) m.session.wait_idle(600);
    return true;
}

} // namespace ui
