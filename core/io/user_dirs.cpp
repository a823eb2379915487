// core/io/user_dirs.cpp — the home folder and the XDG base folders (see core/io/user_dirs.h).
#include "core/io/user_dirs.h"

#include <cstdlib>
#include <pwd.h>
#include <unistd.h>
#include <vector>

namespace core::io {

namespace {

// The password database's home folder for this user, or "".
std::string passwd_home() {
    long size = ::sysconf(_SC_GETPW_R_SIZE_MAX);
    std::vector<char> buffer(static_cast<std::size_t>(size > 0 ? size : 16384));
    struct passwd entry {};
    struct passwd* found = nullptr;
    if (::getpwuid_r(::getuid(), &entry, buffer.data(), buffer.size(), &found) != 0 || !found || !found->pw_dir) return "";
    return found->pw_dir;
}

// $NAME when it is an absolute path, else "".
std::string absolute_env(const char* name) {
    const char* v = std::getenv(name);
    return v && v[0] == '/' ? v : "";
}

} // namespace

std::string home_dir() {
    if (const char* home = std::getenv("HOME"); home && *home) return home;
    if (std::string home = passwd_home(); !home.empty()) return home;
    return "/tmp/attnviz-" + std::to_string(::getuid());
}

std::string config_dir() {
    const std::string xdg = absolute_env("XDG_CONFIG_HOME");
    return (xdg.empty() ? home_dir() + "/.config" : xdg) + "/attnviz";
}

std::string state_dir() {
    const std::string xdg = absolute_env("XDG_STATE_HOME");
    return (xdg.empty() ? home_dir() + "/.local/state" : xdg) + "/attnviz";
}

} // namespace core::io
