// core/assets.h — where the files attnviz ships (lessons, icon) are found at run time.
//
// Never through the source tree: next to the program. The build copies assets/ to
// <build>/share/attnviz/, and `cmake --install` puts them in <prefix>/share/attnviz/ beside
// <prefix>/bin/attnviz, so both layouts are found from the program's own path.
#pragma once

#include <string>

namespace core {

// The folder holding the shipped assets: $ATTNVIZ_ASSETS if set, else the first of
// <dir of this program>/share/attnviz and <dir of this program>/../share/attnviz that exists
// (also tried from the parent folder, for test programs built one level down). Empty if none.
std::string asset_dir();

// asset_dir() + "/" + relative, or empty when there is no asset folder.
std::string asset_path(const std::string& relative);

} // namespace core
