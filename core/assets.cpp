#include "core/assets.h"

#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace core {

namespace fs = std::filesystem;

std::string asset_dir() {
    if (const char* env = std::getenv("ATTNVIZ_ASSETS"); env && *env) return env;
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (ec) return {};
    const fs::path dir = exe.parent_path();
    for (const fs::path& candidate : {dir / "share/attnviz", dir / "../share/attnviz", dir / "../../share/attnviz"})
        if (fs::is_directory(candidate, ec)) return fs::weakly_canonical(candidate, ec).string();
    return {};
}

std::string asset_path(const std::string& relative) {
    const std::string dir = asset_dir();
    return dir.empty() ? std::string() : dir + "/" + relative;
}

} // namespace core
