#include "core/learn/progress.h"
#include "core/io/user_dirs.h"

#include "core/io/files.h"

#include <nlohmann/json.hpp>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <sys/stat.h>

namespace core::learn {

std::string default_progress_path() { return io::state_dir() + "/progress.json"; }

ProgressStore::ProgressStore(std::string path) : path_(std::move(path)) {}

std::string ProgressStore::to_json() const {
    nlohmann::json lessons = nlohmann::json::object();
    for (const auto& [id, p] : lessons_) {
        nlohmann::json predictions = nlohmann::json::object();
        for (const auto& [step, r] : p.predictions) predictions[step] = {{"answer", r.answer}, {"actual", r.actual}, {"correct", r.correct}};
        lessons[id] = {{"current", p.current}, {"done", p.done}, {"predictions", predictions}};
    }
    return nlohmann::json{{"version", 1}, {"lessons", lessons}}.dump(2) + "\n";
}

void ProgressStore::from_json(const std::string& text) {
    const nlohmann::json j = nlohmann::json::parse(text, nullptr, true, false); // throws parse_error
    if (!j.is_object() || !j.contains("lessons") || !j["lessons"].is_object()) throw std::runtime_error("no \"lessons\" object");
    std::map<std::string, LessonProgress> read;
    for (const auto& [id, l] : j["lessons"].items()) {
        LessonProgress p;
        p.current = std::max(0, l.at("current").get<int>());
        for (const auto& d : l.at("done")) p.done.insert(d.get<std::string>());
        for (const auto& [step, r] : l.at("predictions").items())
            p.predictions[step] = {r.at("answer").get<std::string>(), r.at("actual").get<std::string>(), r.at("correct").get<bool>()};
        read[id] = std::move(p);
    }
    lessons_ = std::move(read);
}

std::string ProgressStore::load() {
    std::ifstream in(path_, std::ios::binary);
    if (!in) return {};
    std::ostringstream text;
    text << in.rdbuf();
    try {
        from_json(text.str());
        return {};
    } catch (const std::exception& e) {
        const std::string aside = path_ + ".bad";
        const bool kept = std::rename(path_.c_str(), aside.c_str()) == 0;
        return path_ + ": " + e.what() + (kept ? " (kept as " + aside + "; starting afresh)" : "");
    }
}

std::string ProgressStore::save() const {
    for (size_t slash = path_.find('/', 1); slash != std::string::npos; slash = path_.find('/', slash + 1)) {
        const std::string dir = path_.substr(0, slash);
        if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) return "cannot create the folder " + dir + ": " + std::strerror(errno);
    }
    try {
        io::write_file_atomically(path_, to_json());
    } catch (const std::exception& e) {
        return e.what();
    }
    return {};
}

} // namespace core::learn
