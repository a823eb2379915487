// ui/attention_window.cpp — the attention viewer alone in the window (see ui.h).
#include "ui/panels/attention.h"
#include "ui/ui.h"

namespace ui {

AttentionWindow::AttentionWindow(TextureUploader& textures) : textures_(textures), view_(std::make_unique<AttentionView>()) {}

AttentionWindow::~AttentionWindow() = default;

bool AttentionWindow::open(const std::string& file, const std::string& labels, std::string& error) {
    if (view_->open(file, labels)) return true;
    error = view_->error;
    return false;
}

void AttentionWindow::frame() {
    const ImGuiViewport* screen = ImGui::GetMainViewport();
    ImGui::SetNextWindowPos(screen->WorkPos);
    ImGui::SetNextWindowSize(screen->WorkSize);
    ImGui::Begin("Attention weights", nullptr, ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings);
    draw_attention_viewer(*view_, textures_);
    ImGui::End();
}

AttentionWindow::Figures AttentionWindow::figures() const {
    const core::io::AttentionFile* f = view_->file.get();
    return {f ? f->layers() : 0, f ? f->heads() : 0, f ? f->n() : 0, view_->uploaded, view_->total()};
}

} // namespace ui
