// ui/panels/shared/help.cpp — the quick guide (Help ▸ Quick guide).
#include "ui/panels/shared/help.h"

#include <imgui.h>

namespace ui {

void draw_help_panel() {
    ImGui::TextWrapped("Attention(Q, K, V) = softmax(QKᵀ / √d_k) · V, with Q = X·W_Q, K = X·W_K, V = X·W_V.");
    ImGui::Spacing();
    ImGui::BulletText("Edit a token's embedding or a weight: drag a cell, or double-click it and type.");
    ImGui::BulletText("Every matrix, the heatmap and the calculation follow in the same frame.");
    ImGui::BulletText("Click a heatmap row (or its label) to read that token's calculation.");
    ImGui::BulletText("Drag the tip of q in the query arrow panel to steer one query.");
    ImGui::BulletText("Heatmap: mouse wheel zooms, dragging pans.");
    ImGui::BulletText("Ctrl+Z undoes, Ctrl+Shift+Z redoes; one drag is one step.");
    ImGui::Spacing();
    ImGui::TextDisabled("attnviz: scaled dot-product attention, made visible.");
}

} // namespace ui
