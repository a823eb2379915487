// ui/panels/shared/help.h — the quick guide.
#pragma once

namespace ui {

void draw_help_panel();

} // namespace ui
