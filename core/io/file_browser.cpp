// core/io/file_browser.cpp — listing folders and resolving typed paths for the file dialog.
//
// [SECTION] Filters, sizes and dates
// [SECTION] Listing and paths
// [SECTION] FileBrowser
#include "core/io/file_browser.h"
#include "core/io/user_dirs.h"

#include "core/io/tensor.h"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>

namespace core::io {

namespace fs = std::filesystem;

//-----------------------------------------------------------------------------
// [SECTION] Filters, sizes and dates
//-----------------------------------------------------------------------------

namespace {

std::string lower(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

bool ends_with(const std::string& s, const std::string& suffix) {
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

} // namespace

bool FileFilter::matches(const std::string& name) const {
    if (extensions.empty()) return true;
    const std::string low = lower(name);
    return std::any_of(extensions.begin(), extensions.end(), [&](const std::string& e) { return ends_with(low, e); });
}

std::string FileFilter::text() const {
    if (extensions.empty()) return label;
    std::string out = label + " (";
    for (std::size_t i = 0; i < extensions.size(); ++i) out += (i ? " " : "") + extensions[i];
    return out + ")";
}

std::string size_text(std::uintmax_t bytes) {
    if (bytes < 1024) return std::to_string(bytes) + " B";
    const char* units[] = {"KB", "MB", "GB", "TB"};
    double value = static_cast<double>(bytes) / 1024.0;
    int unit = 0;
    while (value >= 1024.0 && unit < 3) value /= 1024.0, ++unit;
    char text[32];
    std::snprintf(text, sizeof text, "%.1f %s", value, units[unit]);
    return text;
}

std::string date_text(std::int64_t seconds) {
    const std::time_t t = static_cast<std::time_t>(seconds);
    std::tm local{};
    if (!localtime_r(&t, &local)) return "";
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%d %H:%M", &local);
    return text;
}

//-----------------------------------------------------------------------------
// [SECTION] Listing and paths
//-----------------------------------------------------------------------------

std::vector<FolderEntry> list_folder(const std::string& folder, bool hidden) {
    std::error_code ec;
    fs::directory_iterator it(folder, ec);
    if (ec) {
        const bool missing = ec == std::errc::no_such_file_or_directory;
        const bool not_folder = ec == std::errc::not_a_directory;
        throw FileError(folder + ": " + (missing ? "no such folder" : not_folder ? "not a folder" : ec.message()));
    }
    std::vector<FolderEntry> entries;
    for (; it != fs::directory_iterator(); it.increment(ec)) {
        if (ec) throw FileError(folder + ": " + ec.message());
        FolderEntry e;
        e.name = it->path().filename().string();
        if (!hidden && !e.name.empty() && e.name[0] == '.') continue;
        struct stat info {};
        if (::stat(it->path().c_str(), &info) == 0) { // follows links: a link to a folder is a folder
            e.folder = S_ISDIR(info.st_mode);
            e.size = e.folder ? 0 : static_cast<std::uintmax_t>(info.st_size);
            e.modified = static_cast<std::int64_t>(info.st_mtime);
        }
        entries.push_back(std::move(e));
    }
    std::sort(entries.begin(), entries.end(), [](const FolderEntry& a, const FolderEntry& b) {
        if (a.folder != b.folder) return a.folder;
        const std::string la = lower(a.name), lb = lower(b.name);
        return la != lb ? la < lb : a.name < b.name;
    });
    return entries;
}

std::string resolve_typed_path(const std::string& typed, const std::string& base) {
    fs::path p = typed;
    if (typed == "~" || typed.rfind("~/", 0) == 0) p = fs::path(home_dir()) / typed.substr(std::min<std::size_t>(2, typed.size()));
    if (p.is_relative()) p = fs::path(base) / p;
    std::string out = p.lexically_normal().string();
    while (out.size() > 1 && out.back() == '/') out.pop_back();
    return out;
}

std::vector<Crumb> breadcrumbs(const std::string& folder) {
    std::vector<Crumb> crumbs;
    fs::path so_far;
    for (const fs::path& part : fs::path(folder).lexically_normal()) {
        so_far /= part;
        if (part.empty()) continue; // the "" a trailing "/" gives
        crumbs.push_back({part.string(), so_far.string()});
    }
    return crumbs;
}

std::string with_extension(const std::string& path, const FileFilter& filter) {
    if (filter.extensions.empty() || filter.matches(fs::path(path).filename().string())) return path;
    return path + filter.extensions.front();
}

//-----------------------------------------------------------------------------
// [SECTION] FileBrowser
//-----------------------------------------------------------------------------

FileBrowser::FileBrowser(Mode mode, std::vector<FileFilter> filters, const std::string& folder)
    : mode_(mode), filters_(std::move(filters)) {
    filters_.push_back({"All files", {}});
    std::error_code ec;
    const std::string here = fs::current_path(ec).string();
    if (!go_to(folder.empty() ? here : resolve_typed_path(folder, here))) { // relative: to the working folder
        const std::string why = error_;
        go_to(here);
        error_ = why;
    }
}

bool FileBrowser::go_to(const std::string& folder) {
    const std::string target = resolve_typed_path(folder, folder_.empty() ? "/" : folder_);
    try {
        all_ = list_folder(target, hidden_);
    } catch (const FileError& e) {
        error_ = e.what();
        return false;
    }
    folder_ = target;
    error_.clear();
    apply_filter();
    selected_ = -1;
    return true;
}

bool FileBrowser::go_up() {
    const fs::path parent = fs::path(folder_).parent_path();
    if (parent.empty() || parent == fs::path(folder_)) return false;
    const std::string left = fs::path(folder_).filename().string();
    if (!go_to(parent.string())) return false;
    for (std::size_t i = 0; i < shown_.size(); ++i) // the folder we came from stays selected
        if (shown_[i].name == left) selected_ = static_cast<int>(i);
    return true;
}

void FileBrowser::refresh() {
    const std::string keep = selected_ >= 0 ? shown_[static_cast<std::size_t>(selected_)].name : "";
    if (!go_to(folder_)) return;
    for (std::size_t i = 0; i < shown_.size(); ++i)
        if (shown_[i].name == keep) selected_ = static_cast<int>(i);
}

void FileBrowser::apply_filter() {
    const FileFilter& f = filters_[static_cast<std::size_t>(filter_)];
    shown_.clear();
    for (const FolderEntry& e : all_)
        if (e.folder || f.matches(e.name)) shown_.push_back(e);
    selected_ = std::min(selected_, static_cast<int>(shown_.size()) - 1);
}

void FileBrowser::set_filter(int index) {
    filter_ = std::clamp(index, 0, static_cast<int>(filters_.size()) - 1);
    apply_filter();
}

void FileBrowser::set_hidden(bool hidden) {
    hidden_ = hidden;
    refresh();
}

void FileBrowser::select(int index) { selected_ = std::clamp(index, -1, static_cast<int>(shown_.size()) - 1); }

void FileBrowser::move_selection(int by) {
    if (shown_.empty()) return;
    selected_ = selected_ < 0 ? (by > 0 ? 0 : static_cast<int>(shown_.size()) - 1)
                              : std::clamp(selected_ + by, 0, static_cast<int>(shown_.size()) - 1);
}

std::string FileBrowser::selected_path() const {
    if (selected_ < 0) return "";
    return (fs::path(folder_) / shown_[static_cast<std::size_t>(selected_)].name).string();
}

FileBrowser::Outcome FileBrowser::submit(const std::string& typed) {
    using Kind = Outcome::Kind;
    if (typed.empty() && selected_ < 0) return {};
    std::string path = typed.empty() ? selected_path() : resolve_typed_path(typed, folder_);
    std::error_code ec;
    if (fs::is_directory(path, ec)) return go_to(path) ? Outcome{Kind::folder_entered, path, true} : Outcome{Kind::error, path, true};
    if (mode_ == Mode::open) {
        if (fs::exists(path, ec)) return {Kind::file, path, true};
        error_ = path + ": no such file";
        return {Kind::error, path, false};
    }
    const FileFilter& f = filters_[static_cast<std::size_t>(filter_)];
    path = with_extension(path, f.extensions.empty() ? filters_.front() : f);
    const fs::path parent = fs::path(path).parent_path();
    if (!fs::is_directory(parent, ec)) {
        error_ = parent.string() + ": no such folder";
        return {Kind::error, path, false};
    }
    if (fs::is_directory(path, ec)) return go_to(path) ? Outcome{Kind::folder_entered, path, true} : Outcome{Kind::error, path, true};
    return {Kind::file, path, fs::exists(path, ec)};
}

} // namespace core::io
