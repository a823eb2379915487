// app/cli/cli_flags.cpp — the command-line modes' shared flag reading (see cli_flags.h).
#include "app/cli/cli_flags.h"

#include "app/options.h"
#include "core/error_text.h"
#include "core/io/tensor.h"
#include "core/model/forward.h"
#include "core/model/tokenizer/tokenizer.h"
#include "core/train/config.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <new>
#include <ostream>

namespace app {

std::string flag_value(int argc, const char* const* argv, int& i) {
    if (i + 1 >= argc) throw UsageError(std::string(argv[i]) + " needs a value");
    return argv[++i];
}

int whole_flag(const std::string& flag, const std::string& text, int lo, int hi) {
    const bool digits = !text.empty() && text.size() <= 10 && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
    const long long v = digits ? std::strtoll(text.c_str(), nullptr, 10) : -1;
    if (!digits || v < lo || v > hi)
        throw UsageError(flag + " takes a whole number from " + std::to_string(lo) + " to " + std::to_string(hi) + ", not \"" + text + "\"");
    return static_cast<int>(v);
}

UsageError unknown_option(const std::string& option, const std::vector<std::string>& known, const std::string& where) {
    std::string message = "unknown option " + option + (where.empty() ? "" : " for " + where);
    const std::size_t close = option.size() >= 8 ? 2 : 1; // a short option is near too many others
    std::size_t best = close + 1;
    std::string nearest;
    for (const std::string& k : known)
        if (const std::size_t d = core::edit_distance(option, k); d < best) best = d, nearest = k;
    if (!nearest.empty()) message += "; did you mean " + nearest + "?";
    return UsageError(message);
}

std::optional<double> number_of(const std::string& text) {
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (text.empty() || *end != '\0') return std::nullopt;
    return v;
}

int run_reporting_errors(std::ostream& err, const std::function<int()>& mode) {
    try {
        return mode();
    } catch (const UsageError& e) {
        err << "attnviz: " << e.what() << " (see attnviz --help)\n";
    } catch (const core::model::InputError& e) {
        err << "attnviz: " << e.what() << "\n";
    } catch (const core::model::TokenizerError& e) {
        err << "attnviz: " << e.what() << "\n";
    } catch (const core::train::ConfigError& e) {
        err << "attnviz: " << e.what() << "\n";
    } catch (const core::io::FileError& e) {
        err << "attnviz: " << e.what() << "\n";
    } catch (const std::bad_alloc& e) {
        err << "attnviz: " << core::error_text(e) << "\n";
    }
    return 2;
}

std::string head_scores_json(const std::vector<core::heads::HeadScores>& scores, int heads) {
    const auto value = [](const std::optional<double>& v) { return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr); };
    nlohmann::ordered_json rows = nlohmann::ordered_json::array();
    for (std::size_t k = 0; k < scores.size(); ++k) {
        const core::heads::HeadScores& s = scores[k];
        const int layer = static_cast<int>(k) / std::max(heads, 1) + 1, head = static_cast<int>(k) % std::max(heads, 1) + 1;
        nlohmann::ordered_json row = {{"layer", layer}, {"head", head}, {"previous", value(s.previous)}, {"duplicate", value(s.duplicate)},
                                      {"induction", value(s.induction)}, {"entropy", value(core::heads::score_value(s, core::heads::Score::entropy))}, {"sink", value(s.sink)}};
        if (s.copy) row["copy"] = *s.copy;
        rows.push_back(std::move(row));
    }
    return rows.dump();
}

} // namespace app
