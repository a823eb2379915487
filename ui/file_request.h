// ui/file_request.h — what a menu or a panel asks of the file dialog (View::file_request); the
// dialog itself is ui/file_dialog.h.
#pragma once

#include "core/io/file_browser.h"

#include <functional>
#include <string>
#include <vector>

namespace ui {

// What a menu or a panel asks for (View::file_request).
struct FileRequest {
    core::io::FileBrowser::Mode mode = core::io::FileBrowser::Mode::open;
    std::string title;                        // "Open scenario"; also the modal's name
    std::vector<core::io::FileFilter> filters; // "All files" is added
    std::string name;                         // Save: the suggested file name
    std::string folder;                       // where to start; empty: the most recent folder
    // Called with the chosen absolute path. Throwing std::exception keeps the dialog open with
    // the message (which names the file); the caller's data must then be unchanged.
    std::function<void(const std::string&)> accept;
};

} // namespace ui
