// app/window/window_backend.h — the GLFW window, its OpenGL 3.3 context, the fonts at the window's
// scale and the panels' textures: set up in order, taken down in reverse by ~Backend.
#pragma once

#include "core/io/settings.h"
#include "ui/appearance.h"
#include "ui/ui.h"

#include <glad/gl.h>
#define GLFW_INCLUDE_NONE // glad provides the GL declarations
#include <GLFW/glfw3.h>
#include <imgui.h>

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>
#include <unordered_map>

namespace app {

// Everything the window sets up; the destructor takes down what was set up, in reverse order.
struct Backend {
    bool glfw_up = false;
    GLFWwindow* window = nullptr;
    ImGuiContext* imgui = nullptr;
    bool imgui_glfw_up = false;
    bool imgui_opengl_up = false;
    std::string ini_path;           // io.IniFilename points into it
    ui::Appearance appearance;      // what the fonts and the style were last made for
    ImVector<ImWchar> glyph_ranges; // the font atlas reads it when it is built
    std::unique_ptr<ImFontAtlas> fonts; // built before the context, which shares it

    Backend() = default;
    Backend(const Backend&) = delete;
    Backend& operator=(const Backend&) = delete;
    ~Backend();
};

// glfwInit, with GLFW's reason on `err` when it fails.
bool start_glfw(Backend& b, std::ostream& err);
// A hidden window placed at `place` (its frame included), then shown with the icon, the GL 3.3
// core context current and vsync on.
bool open_window(Backend& b, const std::string& title, const core::io::WindowGeometry& place, std::ostream& err);
// Dear ImGui on the window: the context (sharing b.fonts), the layout file `ini_path` (none: ""),
// the style of b.appearance, the GLFW and OpenGL 3 back ends and the first font atlas.
void start_imgui(Backend& b, const std::string& ini_path);

// The primary monitor's content scale: the first fonts are built for it while the window opens.
float monitor_scale();
// The window's content scale now (it follows the window to a monitor of another scale).
float content_scale();
// Makes the fonts and the style match `wanted`, between frames: fonts are rasterised again only
// when the size changed, then sent to OpenGL in place of the old atlas.
void apply_appearance(Backend& b, const ui::Appearance& wanted);

inline GLuint gl_name(ImTextureID id) { return static_cast<GLuint>(reinterpret_cast<std::intptr_t>(id)); }
inline ImTextureID imgui_id(GLuint name) { return reinterpret_cast<ImTextureID>(static_cast<std::intptr_t>(name)); }

// RGBA8 textures with nearest filtering, so magnified heatmap cells stay sharp squares.
class GlTextures final : public ui::TextureUploader {
public:
    GlTextures() = default;
    GlTextures(const GlTextures&) = delete;
    GlTextures& operator=(const GlTextures&) = delete;
    ~GlTextures() override {
        for (const auto& texture : widths_) glDeleteTextures(1, &texture.first);
    }

    ImTextureID create(int width, int height) override {
        GLuint name = 0;
        glGenTextures(1, &name);
        glBindTexture(GL_TEXTURE_2D, name);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
        glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, width, height, 0, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
        widths_.emplace(name, width);
        return imgui_id(name);
    }

    void write_rows(ImTextureID texture, int first, int rows, const unsigned char* rgba) override {
        const auto known = widths_.find(gl_name(texture));
        if (known == widths_.end()) return;
        glBindTexture(GL_TEXTURE_2D, known->first);
        glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
        glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
        glTexSubImage2D(GL_TEXTURE_2D, 0, 0, first, known->second, rows, GL_RGBA, GL_UNSIGNED_BYTE, rgba);
    }

    void release(ImTextureID texture) override {
        const auto known = widths_.find(gl_name(texture));
        if (known == widths_.end()) return;
        glDeleteTextures(1, &known->first);
        widths_.erase(known);
    }

private:
    std::unordered_map<GLuint, int> widths_; // every live texture and its width in texels
};

} // namespace app
