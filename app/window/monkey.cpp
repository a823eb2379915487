#include "app/window/monkey.h"

#include "app/window/autosave.h"
#include "core/presets.h"
#include "ui/headless.h"
#include "ui/ui.h"

#include <imgui.h>
#include <imgui_internal.h>

#include <ostream>
#include <random>

namespace app {

namespace {

// Keys a user presses: the ones ImGui maps, plus letters for Ctrl+Z style shortcuts.
constexpr ImGuiKey mapped_keys[] = {ImGuiKey_Tab,   ImGuiKey_LeftArrow, ImGuiKey_RightArrow, ImGuiKey_UpArrow,
                                    ImGuiKey_DownArrow, ImGuiKey_PageUp, ImGuiKey_PageDown, ImGuiKey_Home,
                                    ImGuiKey_End,   ImGuiKey_Delete,    ImGuiKey_Backspace,  ImGuiKey_Space,
                                    ImGuiKey_Enter, ImGuiKey_Escape,    ImGuiKey_KeyPadEnter, ImGuiKey_A,
                                    ImGuiKey_C,     ImGuiKey_V,         ImGuiKey_X,          ImGuiKey_Y,
                                    ImGuiKey_Z};
constexpr const char* typed_texts[] = {"0", "1", "-", ".", "e", "9", "1e9", "nan", "inf", "abc", "-0.5", "√", "Σ",
                                       "12345678901234567890", "\t", " ", "x", "1e-320", "é"};

struct Monkey {
    std::mt19937_64 rng;
    ImVec2 position{100, 100};
    bool held = false;

    int below(int n) { return static_cast<int>(rng() % static_cast<std::uint64_t>(n)); }
    float uniform(float lo, float hi) { return lo + (hi - lo) * static_cast<float>(rng() >> 40) / static_cast<float>(1 << 24); }

    // A point inside a random visible window (menus and popups included), else anywhere.
    ImVec2 random_target() {
        ImGuiContext& g = *GImGui;
        const ImVec2 display = ImGui::GetIO().DisplaySize;
        if (g.Windows.Size > 0 && below(10) < 8) {
            const ImGuiWindow* w = g.Windows[below(g.Windows.Size)];
            if (w->Active && !w->Hidden && w->Size.x > 1 && w->Size.y > 1)
                return ImVec2(uniform(w->Pos.x, w->Pos.x + w->Size.x), uniform(w->Pos.y, w->Pos.y + w->Size.y));
        }
        return ImVec2(uniform(-10, display.x + 10), uniform(-10, display.y + 10));
    }

    // Input for the next frame: what a hurried user might do.
    void act(ImGuiIO& io) {
        for (bool& down : io.KeysDown) down = false;
        io.KeyCtrl = io.KeyShift = io.KeyAlt = false;
        io.MouseWheel = io.MouseWheelH = 0;
        const int choice = below(100);
        if (held) { // a drag goes on for a few frames, then ends
            position = ImVec2(position.x + uniform(-40, 40), position.y + uniform(-40, 40));
            if (below(4) == 0) held = false;
        } else if (choice < 35) {
            position = random_target();
        } else if (choice < 60) {
            position = random_target();
            held = true; // press now; release on a later frame (a click when that is the next one)
        } else if (choice < 70) {
            io.MouseWheel = uniform(-3, 3);
            io.KeyCtrl = below(3) == 0;
        } else if (choice < 85) {
            const ImGuiKey key = mapped_keys[below(static_cast<int>(std::size(mapped_keys)))];
            io.KeysDown[io.KeyMap[key]] = true;
            io.KeyCtrl = below(3) == 0;
            io.KeyShift = below(4) == 0;
        } else {
            io.AddInputCharactersUTF8(typed_texts[below(static_cast<int>(std::size(typed_texts)))]);
        }
        io.MousePos = position;
        io.MouseDown[0] = held;
        io.MouseDown[1] = !held && choice == 99; // now and then a right click
    }
};

} // namespace

int run_monkey(long frames, std::uint64_t seed, std::ostream& out, std::ostream& err) {
    ui::HeadlessContext context(ImVec2(1600, 1000), err);
    ImGuiIO& io = ImGui::GetIO();

    // Always the default scenario, so that a seed replays the same run; saved where the window saves.
    Autosave autosave(default_session_path());
    ui::NullTextureUploader textures;
    int code = 0;
    {
        ui::App app(core::preset_three_tokens(), textures);
        Monkey monkey{std::mt19937_64(seed)};
        std::string save_error;
        for (long frame = 0; frame < frames && code == 0; ++frame) {
            monkey.act(io);
            ImGui::NewFrame();
            app.frame();
            ImGui::Render();
            if (const std::string problem = core::validate(app.scenario()); !problem.empty()) {
                err << "attnviz: monkey frame " << frame << ": the scenario became invalid: " << problem << "\n";
                code = 1;
            }
            for (const core::HeadResult& h : app.result().heads)
                if (code == 0 && !h.weights.allFinite()) {
                    err << "attnviz: monkey frame " << frame << ": non-finite attention weights\n";
                    code = 1;
                }
            save_error = autosave.tick(app.scenario());
        }
        if (code == 0) save_error = autosave.flush(app.scenario());
        if (code == 0 && !save_error.empty()) {
            err << "attnviz: " << save_error << "\n";
            code = 1;
        }
        if (code == 0) out << "monkey: " << frames << " frames, seed " << seed << ", no problem\n";
    }
    return code;
}

} // namespace app
