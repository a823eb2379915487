// core/io/file_browser.h — what the file dialog shows and does, without drawing it: one folder's
// entries (folders first, then files matching the chosen filter), breadcrumbs, the selection, and
// what Enter does with a typed path. ui/file_dialog.cpp draws it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace core::io {

// One choice of the dialog's filter box, e.g. {"Scenarios", {".json"}}; no extensions: all files.
struct FileFilter {
    std::string label;
    std::vector<std::string> extensions; // lower case, with the dot; ".labelled.png" works too
    // Whether a file `name` matches (case-insensitive); always true without extensions.
    bool matches(const std::string& name) const;
    // "Scenarios (.json)"
    std::string text() const;
};

struct FolderEntry {
    std::string name;
    bool folder = false;
    std::uintmax_t size = 0;   // bytes; 0 for a folder
    std::int64_t modified = 0; // seconds since 1970 (UTC)
};

// One clickable segment of a folder's path: "/", "home", "me".
struct Crumb {
    std::string label;
    std::string path; // the folder up to and including this segment
};

// The entries of `folder`, folders first, each group by name (case-insensitive); names starting
// with "." only with `hidden`. Throws FileError ("FOLDER: no such folder", "…: permission denied").
std::vector<FolderEntry> list_folder(const std::string& folder, bool hidden);
// A typed path made absolute: "~" and "~/…" from $HOME, a relative one from `base`; normalised
// ("a/../b" is "b"), without a trailing "/".
std::string resolve_typed_path(const std::string& typed, const std::string& base);
std::vector<Crumb> breadcrumbs(const std::string& folder);
// `path` with the filter's first extension added when its name matches none of them.
std::string with_extension(const std::string& path, const FileFilter& filter);
// "812 B", "4.2 KB", "1.5 MB", "3.0 GB" (1 KB = 1024 B).
std::string size_text(std::uintmax_t bytes);
// "2026-11-30 19:56", local time.
std::string date_text(std::int64_t seconds);

class FileBrowser {
public:
    enum class Mode { open, save };
    // What Enter (or a double click) came to.
    struct Outcome {
        enum class Kind { nothing, folder_entered, file, error } kind = Kind::nothing;
        std::string path;    // file: the absolute path to open or to write
        bool exists = false; // file: it is there already (Save then asks before overwriting)
    };

    // `filters` as given, with "All files" added at the end; the first is chosen. Starts in
    // `folder` (a relative one from the working folder), or in the working folder when that
    // cannot be listed.
    FileBrowser(Mode mode, std::vector<FileFilter> filters, const std::string& folder);

    Mode mode() const { return mode_; }
    const std::string& folder() const { return folder_; }
    const std::vector<FolderEntry>& entries() const { return shown_; }
    const std::vector<FileFilter>& filters() const { return filters_; }
    int filter() const { return filter_; }
    bool hidden() const { return hidden_; }
    int selected() const { return selected_; } // index into entries(), −1 for none
    // The last problem (unreadable folder, missing file, a file that did not load), naming the path.
    const std::string& error() const { return error_; }
    void set_error(std::string message) { error_ = std::move(message); }

    // Navigation keeps the current folder when the new one cannot be listed (error() says why).
    bool go_to(const std::string& folder);
    bool go_up();
    void refresh();
    void set_filter(int index);
    void set_hidden(bool hidden);
    void select(int index);       // clamped; −1 clears
    void move_selection(int by);  // Up/Down: from no selection, Down picks the first entry
    // The selected entry's full path ("" when none).
    std::string selected_path() const;

    // Enter on the typed text: a folder is entered; a file is returned (Open: it must exist; Save:
    // its folder must, and the filter's extension is added if missing). Empty text: the selection.
    Outcome submit(const std::string& typed);

private:
    void apply_filter();

    Mode mode_;
    std::vector<FileFilter> filters_;
    std::string folder_;
    std::vector<FolderEntry> all_; // every entry of the folder (hidden ones only if hidden_)
    std::vector<FolderEntry> shown_;
    int filter_ = 0;
    bool hidden_ = false;
    int selected_ = -1;
    std::string error_;
};

} // namespace core::io
