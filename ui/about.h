// ui/about.h — Help ▸ About: the version, the libraries attnviz is built with and their licences,
// and where it keeps the session, the settings and the layout.
#pragma once

#include <string>

namespace ui {

struct FileLocations {
    std::string session;  // the autosaved scenario
    std::string settings; // settings.json
    std::string layout;   // imgui.ini
};

constexpr const char* about_window_title = "About attnviz";

void draw_about_window(bool* open, const FileLocations& where);

} // namespace ui
