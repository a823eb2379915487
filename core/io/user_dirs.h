// core/io/user_dirs.h — where a user's files are: the home folder and the XDG base folders, one
// answer for the whole program (settings, the window's layout, the session, lesson progress, the
// review deck, and the model stores under the home).
//
// The home is $HOME when it is set and not empty; else the home folder the password database gives
// this user (getpwuid_r), as a shell would; else, for a process with neither (a container started
// under a user id it does not know), the private folder /tmp/attnviz-UID, so that what attnviz keeps
// still has one place. $XDG_CONFIG_HOME and $XDG_STATE_HOME count only when they are absolute paths
// (the XDG Base Directory specification says to ignore relative ones).
#pragma once

#include <string>

namespace core::io {

// The home folder, as above; never empty.
std::string home_dir();

// attnviz's folder for settings: $XDG_CONFIG_HOME/attnviz, else HOME/.config/attnviz.
std::string config_dir();

// attnviz's folder for state (session, progress, review): $XDG_STATE_HOME/attnviz, else
// HOME/.local/state/attnviz.
std::string state_dir();

} // namespace core::io
