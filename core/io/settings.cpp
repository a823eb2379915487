// core/io/settings.cpp — reading and writing settings.json (see settings.h).
//
// [SECTION] Names and steps
// [SECTION] Parsing
// [SECTION] Writing and paths
#include "core/io/settings.h"
#include "core/io/user_dirs.h"

#include "core/io/files.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace core::io {

namespace fs = std::filesystem;
using nlohmann::json;

//-----------------------------------------------------------------------------
// [SECTION] Names and steps
//-----------------------------------------------------------------------------

const char* theme_name(Theme theme) { return theme == Theme::light ? "light" : "dark"; }
const char* weights_map_name(WeightsMap map) { return map == WeightsMap::cividis ? "cividis" : "viridis"; }
const char* signed_map_name(SignedMap map) { return map == SignedMap::purple_orange ? "purple-orange" : "blue-red"; }

int next_zoom_step(int percent, int direction) {
    if (direction > 0) {
        for (int step : zoom_steps)
            if (step > percent) return step;
        return zoom_steps.back();
    }
    for (auto it = zoom_steps.rbegin(); it != zoom_steps.rend(); ++it)
        if (*it < percent) return *it;
    return zoom_steps.front();
}

namespace {

fs::path absolute_normal(const std::string& path) {
    std::error_code ec;
    fs::path absolute = fs::absolute(path, ec);
    return (ec ? fs::path(path) : absolute).lexically_normal();
}

void put_first(std::vector<std::string>& list, const std::string& entry) {
    list.erase(std::remove(list.begin(), list.end(), entry), list.end());
    list.insert(list.begin(), entry);
    if (list.size() > static_cast<std::size_t>(max_recent_files)) list.resize(max_recent_files);
}

} // namespace

void remember_recent_file(Settings& settings, const std::string& path) {
    if (path.empty()) return;
    const fs::path entry = absolute_normal(path);
    put_first(settings.recent_files, entry.string());
    if (entry.has_parent_path()) remember_recent_folder(settings, entry.parent_path().string());
}

void remember_recent_folder(Settings& settings, const std::string& folder) {
    if (folder.empty()) return;
    fs::path entry = absolute_normal(folder);
    if (entry.has_filename() || entry == entry.root_path()) put_first(settings.recent_folders, entry.string());
    else put_first(settings.recent_folders, entry.parent_path().string()); // "/a/b/" → "/a/b"
}

//-----------------------------------------------------------------------------
// [SECTION] Parsing
//-----------------------------------------------------------------------------

namespace {

// Reads one setting, or tells why it was ignored.
class Reader {
public:
    Reader(std::string file, std::vector<std::string>& problems) : file_(std::move(file)), problems_(problems) {}

    void ignore(const std::string& key, const std::string& why) {
        problems_.push_back(file_ + ": " + key + ": " + why + ", ignored");
    }

    // A string that must be one of `names`: the index of the match, or nothing.
    template <std::size_t N>
    std::optional<int> choice(const json& value, const std::string& key, const std::array<const char*, N>& names) {
        std::string list;
        for (std::size_t i = 0; i < N; ++i) {
            if (value.is_string() && value.get<std::string>() == names[i]) return static_cast<int>(i);
            list += (i ? (i + 1 == N ? " or " : ", ") : "") + std::string("\"") + names[i] + "\"";
        }
        ignore(key, value.dump() + " is not " + list);
        return std::nullopt;
    }

    std::optional<int> integer(const json& value, const std::string& key, int lo, int hi) {
        if (value.is_number_integer()) {
            const auto v = value.get<long long>();
            if (v >= lo && v <= hi) return static_cast<int>(v);
        }
        ignore(key, value.dump() + " is not a whole number from " + std::to_string(lo) + " to " + std::to_string(hi));
        return std::nullopt;
    }

private:
    std::string file_;
    std::vector<std::string>& problems_;
};

void read_colour_maps(const json& maps, Settings& s, Reader& r) {
    if (!maps.is_object()) return r.ignore("colour_maps", "not an object");
    for (const auto& [key, value] : maps.items()) {
        if (key == "weights") {
            if (auto i = r.choice(value, "colour_maps.weights", std::array{"viridis", "cividis"})) s.weights_map = static_cast<WeightsMap>(*i);
        } else if (key == "signed") {
            if (auto i = r.choice(value, "colour_maps.signed", std::array{"blue-red", "purple-orange"})) s.signed_map = static_cast<SignedMap>(*i);
        } else {
            r.ignore("colour_maps." + key, "unknown colour map");
        }
    }
}

// recent_files or recent_folders: `what` says what an entry is in the message.
void read_recent(const json& list, const std::string& name, const char* what, std::vector<std::string>& out, Reader& r) {
    if (!list.is_array()) return r.ignore(name, "not a list");
    for (std::size_t i = 0; i < list.size(); ++i) {
        const json& item = list[i];
        const std::string key = name + "[" + std::to_string(i) + "]";
        if (!item.is_string() || item.get<std::string>().empty()) r.ignore(key, std::string("not a ") + what);
        else if (out.size() < static_cast<std::size_t>(max_recent_files) &&
                 std::find(out.begin(), out.end(), item.get<std::string>()) == out.end())
            out.push_back(item.get<std::string>());
    }
}

void read_window(const json& w, Settings& s, Reader& r) {
    if (!w.is_object()) return r.ignore("window", "not an object");
    WindowGeometry g;
    constexpr int far = 100000; // screen coordinates beyond any desktop
    const auto x = w.contains("x") ? r.integer(w["x"], "window.x", -far, far) : std::nullopt;
    const auto y = w.contains("y") ? r.integer(w["y"], "window.y", -far, far) : std::nullopt;
    const auto width = w.contains("width") ? r.integer(w["width"], "window.width", 200, far) : std::nullopt;
    const auto height = w.contains("height") ? r.integer(w["height"], "window.height", 150, far) : std::nullopt;
    if (!x || !y || !width || !height) return r.ignore("window", "needs x, y, width and height");
    g.x = *x, g.y = *y, g.width = *width, g.height = *height;
    if (w.contains("maximized")) {
        if (w["maximized"].is_boolean()) g.maximized = w["maximized"].get<bool>();
        else r.ignore("window.maximized", w["maximized"].dump() + " is not true or false");
    }
    s.window = g;
}

} // namespace

Settings parse_settings(const std::string& text, const std::string& file, std::vector<std::string>& problems) {
    Settings s;
    Reader r(file, problems);
    json doc;
    bool too_deep = false; // nlohmann's parser keeps its own stack, so deep text is safe to scan
    try {
        doc = json::parse(text, [&too_deep](int depth, json::parse_event_t, json&) {
            too_deep = too_deep || depth > max_json_depth;
            return !too_deep;
        });
    } catch (const json::exception& e) {
        problems.push_back(file + ": not JSON (" + e.what() + "), using the default settings");
        return s;
    }
    if (too_deep) {
        problems.push_back(file + ": nested deeper than " + std::to_string(max_json_depth) + " levels, using the default settings");
        return s;
    }
    if (!doc.is_object()) {
        problems.push_back(file + ": not a JSON object, using the default settings");
        return Settings{};
    }
    for (const auto& [key, value] : doc.items()) {
        if (key == "theme") {
            if (auto i = r.choice(value, key, std::array{"dark", "light"})) s.theme = static_cast<Theme>(*i);
        } else if (key == "zoom_percent") {
            if (auto z = r.integer(value, key, zoom_steps.front(), zoom_steps.back())) {
                if (std::find(zoom_steps.begin(), zoom_steps.end(), *z) != zoom_steps.end()) s.zoom_percent = *z;
                else r.ignore(key, std::to_string(*z) + " is not one of the zoom steps");
            }
        } else if (key == "colour_maps") {
            read_colour_maps(value, s, r);
        } else if (key == "recent_files") {
            read_recent(value, key, "file name", s.recent_files, r);
        } else if (key == "recent_folders") {
            read_recent(value, key, "folder name", s.recent_folders, r);
        } else if (key == "window") {
            read_window(value, s, r);
        } else {
            r.ignore(key, "unknown setting");
        }
    }
    return s;
}

//-----------------------------------------------------------------------------
// [SECTION] Writing and paths
//-----------------------------------------------------------------------------

std::string settings_json(const Settings& s) {
    json doc = {
        {"theme", theme_name(s.theme)},
        {"zoom_percent", s.zoom_percent},
        {"colour_maps", {{"weights", weights_map_name(s.weights_map)}, {"signed", signed_map_name(s.signed_map)}}},
        {"recent_files", s.recent_files},
        {"recent_folders", s.recent_folders},
    };
    if (s.window) {
        const WindowGeometry& g = *s.window;
        doc["window"] = {{"x", g.x}, {"y", g.y}, {"width", g.width}, {"height", g.height}, {"maximized", g.maximized}};
    }
    return doc.dump(2) + "\n";
}

std::string settings_path() { return config_dir() + "/settings.json"; }

Settings load_settings(const std::string& path, std::vector<std::string>& problems) {
    std::error_code ec;
    if (path.empty() || !fs::exists(path, ec)) return Settings{};
    if (fs::file_size(path, ec) > (1u << 20) || ec) {
        problems.push_back(path + ": larger than 1 MiB or unreadable, using the default settings");
        return Settings{};
    }
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    if (!in && !in.eof()) {
        problems.push_back(path + ": cannot be read, using the default settings");
        return Settings{};
    }
    return parse_settings(text.str(), path, problems);
}

void save_settings(const std::string& path, const Settings& settings) {
    std::error_code ec;
    fs::create_directories(fs::path(path).parent_path(), ec);
    if (ec) throw WriteError(path + ": cannot create its folder (" + ec.message() + ")");
    write_file_atomically(path, settings_json(settings));
}

} // namespace core::io
