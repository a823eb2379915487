// core/learn/progress.h — what a learner has done in each lesson, kept across runs.
//
// One JSON file, $XDG_STATE_HOME/attnviz/progress.json (default ~/.local/state/attnviz/progress.json),
// written atomically (temporary file, fsync, rename) like the autosaved session:
//   {"version": 1, "lessons": {"ID": {"current": 3, "done": ["meet", …],
//     "predictions": {"STEP": {"answer": "cat", "actual": "cat", "correct": true}}}}}
#pragma once

#include <map>
#include <set>
#include <string>

namespace core::learn {

struct PredictionRecord {
    std::string answer; // what the learner committed
    std::string actual; // the answer on the scenario at that moment
    bool correct = false;
    bool operator==(const PredictionRecord& o) const { return answer == o.answer && actual == o.actual && correct == o.correct; }
};

struct LessonProgress {
    int current = 0;                                      // the step to resume at (0-based)
    std::set<std::string> done;                           // step ids
    std::map<std::string, PredictionRecord> predictions;  // by step id
    bool operator==(const LessonProgress& o) const { return current == o.current && done == o.done && predictions == o.predictions; }
};

// progress.json in core::io::state_dir(): $XDG_STATE_HOME/attnviz, else ~/.local/state/attnviz (the
// home as core/io/user_dirs.h finds it).
std::string default_progress_path();

class ProgressStore {
public:
    explicit ProgressStore(std::string path);

    // Reads the file. A missing file is no progress yet; a file that does not read is moved aside
    // to progress.json.bad (kept for the learner) and its problem returned; "" when all is well.
    std::string load();
    // Writes the file atomically, creating its folder; returns "" or the problem. The progress in
    // memory is kept either way, and saving is retried on the next change.
    std::string save() const;

    LessonProgress& lesson(const std::string& id) { return lessons_[id]; }
    const std::map<std::string, LessonProgress>& lessons() const { return lessons_; }
    const std::string& path() const { return path_; }

    std::string to_json() const;
    // Throws std::runtime_error naming what is wrong.
    void from_json(const std::string& text);

private:
    std::string path_;
    std::map<std::string, LessonProgress> lessons_;
};

} // namespace core::learn
