// ui/file_drop.cpp — dropped files and arrays into matrices (see file_drop.h).
//
// [SECTION] Reading an array and what it fits
// [SECTION] Taking dropped files
// [SECTION] The questions
#include "ui/file_drop.h"

#include "core/io/arrays.h"
#include "core/error_text.h"
#include "core/io/attention_file.h"
#include "core/io/formats.h"
#include "core/io/scenario_io.h"
#include "ui/app_state.h"
#include "ui/model_service.h"
#include "ui/panels/model/attention.h"
#include "ui/panels/learn/lesson.h"
#include "ui/widgets.h"

#include <algorithm>
#include <filesystem>

namespace ui {

namespace {

//-----------------------------------------------------------------------------
// [SECTION] Reading an array and what it fits
//-----------------------------------------------------------------------------

std::string shape_of(const std::vector<core::Matrix>& arrays) {
    const core::Matrix& a = arrays.front();
    const std::string rc = std::to_string(a.rows()) + ", " + std::to_string(a.cols()) + ")";
    return arrays.size() == 1 ? "(" + rc : "(" + std::to_string(arrays.size()) + ", " + rc;
}

bool opens_as_attention(const std::string& path) {
    if (!core::io::opens_as(path, core::io::Kind::attention)) return false;
    try {
        return core::io::AttentionFile::open(path) != nullptr;
    } catch (const core::io::FileError&) {
        return false;
    }
}

} // namespace

void offer_array(App::State& st, const std::string& path) {
    ArrayOffer offer{path, "", {}, {}, opens_as_attention(path)};
    try {
        offer.arrays = core::io::load_matrices({path, "", false}, "", "array");
        offer.shape = shape_of(offer.arrays);
        offer.fits = core::edits::fitting_slots(st.scenario, offer.arrays);
    } catch (const core::ScenarioError& e) {
        if (!offer.attention) throw core::ScenarioError(std::string(e.what()).substr(7)); // less "array: "
    }
    if (offer.fits.empty() && !offer.attention)
        throw core::ScenarioError(path + ": an array of shape " + offer.shape + " fits no matrix of this scenario: " +
                                  core::edits::slot_shapes(st.scenario));
    st.drops.offer = std::move(offer);
}

//-----------------------------------------------------------------------------
// [SECTION] Taking dropped files
//-----------------------------------------------------------------------------

namespace {

std::string what_opens() {
    using core::io::Kind;
    using core::io::extension_list;
    return "attnviz opens " + extension_list(Kind::scenario, " and ") + " scenarios, " + extension_list(Kind::lesson, " and ") +
           " lessons and arrays (" + extension_list(Kind::array, ", ") + ")";
}

void open_scenario_or_ask(App::State& st, const std::string& path) {
    if (st.scenario != st.saved) {
        st.drops.waiting_scenario = path;
        return;
    }
    try {
        open_scenario_file(st, path);
    } catch (const std::exception& e) {
        st.drops.problems.push_back(core::error_text(e));
    }
}

void take(App::State& st, const std::string& path) {
    const core::io::Format* format = core::io::format_of(path);
    const bool model_only = format && (format->directory() || format->kinds == core::io::Kind::checkpoint);
    if (model_only) { // a model directory (or a cache entry, or a GGUF file) opens in the Model panels
        if (!st.view.state<ModelService>().open(path, st.view)) st.drops.problems.push_back(st.view.state<ModelService>().open_error);
        return;
    }
    if (core::io::opens_as(path, core::io::Kind::scenario)) return open_scenario_or_ask(st, path);
    if (core::io::opens_as(path, core::io::Kind::lesson)) {
        std::string error;
        if (!start_lesson(st.view, path, 0, error)) st.drops.problems.push_back(error);
        else core::io::remember_recent_file(st.settings, path);
        return;
    }
    if (!core::io::opens_as(path, core::io::Kind::array)) return st.drops.problems.push_back(path + ": " + what_opens());
    try {
        offer_array(st, path);
    } catch (const std::exception& err) {
        if (core::io::names_a_scenario(path)) return open_scenario_or_ask(st, path); // X, W_Q, … by name
        st.drops.problems.push_back(err.what());
    }
}

} // namespace

void take_dropped_files(App::State& st) {
    Drops& d = st.drops;
    while (!d.queue.empty() && !d.offer && d.waiting_scenario.empty() && !st.dialog.open()) {
        const std::string path = d.queue.front();
        d.queue.pop_front();
        take(st, path);
    }
}

//-----------------------------------------------------------------------------
// [SECTION] The questions
//-----------------------------------------------------------------------------

namespace {

bool button(Drops& d, const std::string& label, const std::string& item) {
    const bool clicked = ImGui::Button(label.c_str());
    d.items[item] = ImRect(ImGui::GetItemRectMin(), ImGui::GetItemRectMax());
    return clicked;
}

bool escape() { return ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape), false); }

bool begin_modal(const char* title, bool wanted) {
    if (wanted && !ImGui::IsPopupOpen(title)) ImGui::OpenPopup(title);
    // A fixed width, so that wrapped file names and messages get whole lines.
    ImGui::SetNextWindowSize(ImVec2(std::min(36.0f * em(), 0.9f * ImGui::GetIO().DisplaySize.x), 0.0f));
    ImGui::SetNextWindowBgAlpha(1.0f);
    return ImGui::BeginPopupModal(title, nullptr, ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoSavedSettings);
}

void end_modal(bool done) {
    if (done) ImGui::CloseCurrentPopup();
    ImGui::EndPopup();
}

void fill(App::State& st, const ArrayOffer& o, const core::edits::MatrixSlot& slot) {
    try {
        core::edits::fill_matrix(st.scenario, slot, o.arrays);
        st.view.tell(slot.label() + " now holds " + std::filesystem::path(o.path).filename().string(), false);
        core::io::remember_recent_file(st.settings, o.path);
    } catch (const std::exception& e) {
        st.view.tell(o.path + ": " + core::error_text(e), true);
    }
}

void offer_modal(App::State& st) {
    Drops& d = st.drops;
    if (!begin_modal("Put the array in a matrix", d.offer.has_value())) return;
    const ArrayOffer& o = *d.offer;
    ImGui::TextWrapped("%s", o.path.c_str());
    bool done = false;
    if (!o.fits.empty()) {
        ImGui::TextDisabled("shape %s: it fits these matrices of the scenario", o.shape.c_str());
        for (const core::edits::MatrixSlot& slot : o.fits) {
            if (button(d, slot.label(), "fill " + slot.label())) fill(st, o, slot), done = true;
            const int rows = static_cast<int>(o.arrays[0].rows());
            if (slot.field == "X" && rows != st.scenario.n()) {
                ImGui::SameLine();
                ImGui::TextDisabled("the scenario then has %d tokens instead of %d", rows, st.scenario.n());
            }
        }
    } else {
        ImGui::TextDisabled("It fits no matrix of this scenario (%s).", core::edits::slot_shapes(st.scenario).c_str());
    }
    if (o.attention) {
        ImGui::Separator();
        if (button(d, "Open in the attention viewer", "attention")) {
            AttentionView& viewer = st.view.state<AttentionView>();
            if (viewer.open(o.path, "")) st.view.open["attention"] = true, core::io::remember_recent_file(st.settings, o.path);
            else st.view.tell(viewer.error, true);
            done = true;
        }
        tip("A model's attention weights: every layer and head, in a panel of their own");
    }
    ImGui::Separator();
    if (button(d, "Cancel", "cancel") || escape()) done = true;
    if (done) d.offer.reset();
    end_modal(done);
}

void unsaved_modal(App::State& st) {
    Drops& d = st.drops;
    if (!begin_modal("Open the dropped scenario?", !d.waiting_scenario.empty())) return;
    const std::string name = std::filesystem::path(d.waiting_scenario).filename().string();
    ImGui::TextWrapped("The scenario has changes that are not saved. Open %s instead?", name.c_str());
    bool done = false;
    std::string open;
    if (!st.path.empty() && button(d, "Save, then open", "save first")) {
        try {
            save_scenario_to(st, st.path);
            open = d.waiting_scenario;
        } catch (const std::exception& e) {
            st.view.tell(core::error_text(e), true);
        }
        done = true;
    }
    if (!st.path.empty()) ImGui::SameLine();
    if (button(d, "Open without saving", "open anyway")) open = d.waiting_scenario, done = true;
    ImGui::SameLine();
    if (button(d, "Keep the scenario", "keep") || escape()) done = true;
    if (!open.empty()) {
        try {
            open_scenario_file(st, open);
        } catch (const std::exception& e) {
            d.problems.push_back(core::error_text(e));
        }
    }
    if (done) d.waiting_scenario.clear();
    end_modal(done);
}

void problems_modal(App::State& st) {
    Drops& d = st.drops;
    const bool wanted = !d.problems.empty() && d.queue.empty() && !d.offer && d.waiting_scenario.empty();
    if (!begin_modal("Dropped files not opened", wanted)) return;
    ImGui::PushStyleColor(ImGuiCol_Text, error_text_colour());
    for (const std::string& p : d.problems) ImGui::TextWrapped("%s", p.c_str());
    ImGui::PopStyleColor();
    ImGui::TextDisabled("Nothing was taken from these files.");
    const bool done = button(d, "OK", "ok") || escape() || ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Enter), false);
    if (done) d.problems.clear();
    end_modal(done);
}

} // namespace

void draw_drop_modals(App::State& st) {
    offer_modal(st);
    unsaved_modal(st);
    problems_modal(st);
}

} // namespace ui
