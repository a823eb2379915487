// core/io/settings.h — the user's settings file: $XDG_CONFIG_HOME/attnviz/settings.json
// (default ~/.config/attnviz/settings.json).
//
//   {"theme": "light", "zoom_percent": 150,
//    "colour_maps": {"weights": "cividis", "signed": "blue-red"},
//    "recent_files": ["/home/me/heads.json", "/home/me/cat.npy"],
//    "recent_folders": ["/home/me", "/home/me/models"],
//    "window": {"x": 40, "y": 30, "width": 1280, "height": 720, "maximized": false}}
//
// Every key is optional. A value of the wrong type or out of range, an unknown key or a file that
// is not JSON at all is ignored with one message naming the file and the key; the rest is kept.
// The file is written atomically (temporary file, fsync, rename).
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace core::io {

enum class Theme { dark, light };
// The map for values in [0, 1] (attention weights).
enum class WeightsMap { viridis, cividis };
// The map for signed values (scores, Q, K, V, Z): diverging, centred on 0.
enum class SignedMap { blue_red, purple_orange };

// The zoom steps Ctrl+= and Ctrl+- walk through, in percent of the monitor's scale.
constexpr std::array<int, 10> zoom_steps = {75, 90, 100, 110, 125, 150, 175, 200, 250, 300};
constexpr int max_recent_files = 10;

struct WindowGeometry {
    int x = 0, y = 0;          // top-left corner of the window, its frame included (screen coordinates)
    int width = 0, height = 0; // the window with its frame (screen coordinates)
    bool maximized = false;
    bool operator==(const WindowGeometry& o) const {
        return x == o.x && y == o.y && width == o.width && height == o.height && maximized == o.maximized;
    }
};

struct Settings {
    Theme theme = Theme::dark;
    int zoom_percent = 100; // one of zoom_steps
    WeightsMap weights_map = WeightsMap::viridis;
    SignedMap signed_map = SignedMap::blue_red;
    // Files opened or saved, most recent first: absolute paths, no duplicates, at most
    // max_recent_files. File ▸ Recent and the file dialogs share this one list.
    std::vector<std::string> recent_files;
    // Folders the file dialog opened or saved a file in, the same way (a file remembers its folder).
    std::vector<std::string> recent_folders;
    std::optional<WindowGeometry> window;

    bool operator==(const Settings& o) const {
        return theme == o.theme && zoom_percent == o.zoom_percent && weights_map == o.weights_map &&
               signed_map == o.signed_map && recent_files == o.recent_files &&
               recent_folders == o.recent_folders && window == o.window;
    }
    bool operator!=(const Settings& o) const { return !(*this == o); }
};

// Puts `path` (made absolute) first in settings.recent_files, dropping an older entry for the
// same file and the oldest beyond max_recent_files; its folder goes first in recent_folders.
void remember_recent_file(Settings& settings, const std::string& path);
// Puts `folder` (made absolute) first in settings.recent_folders, the same way.
void remember_recent_folder(Settings& settings, const std::string& folder);

// The next zoom step above (direction > 0) or below (< 0) `percent`, clamped to the ends.
int next_zoom_step(int percent, int direction);

// Parses settings.json text. `file` names the file in the messages pushed onto `problems`.
Settings parse_settings(const std::string& text, const std::string& file, std::vector<std::string>& problems);
std::string settings_json(const Settings& settings);

// settings.json in core::io::config_dir(): $XDG_CONFIG_HOME/attnviz, else ~/.config/attnviz (the home
// as core/io/user_dirs.h finds it).
std::string settings_path();
// A missing file gives the defaults without a problem; an unreadable or bad one, the defaults and
// a message.
Settings load_settings(const std::string& path, std::vector<std::string>& problems);
// Creates the folder if needed and writes atomically. Throws WriteError naming the path.
void save_settings(const std::string& path, const Settings& settings);

// Names as they appear in the file (and in the menus).
const char* theme_name(Theme theme);
const char* weights_map_name(WeightsMap map);
const char* signed_map_name(SignedMap map);

} // namespace core::io
