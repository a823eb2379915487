// ui/app_files.h — the App's files: the file dialogs of File ▸ Open, Save as and Import, and the
// question about unsaved changes at quit. Opening and saving themselves: ui/app_state.h.
#pragma once

#include "ui/app_state.h"

namespace ui {

// The file dialog for File ▸ Open (a scenario, or an array opened as X), Save as and Import (an
// array into a matrix), starting in the scenario's folder.
void ask_open(App::State& st);
void ask_save_as(App::State& st);
void ask_import(App::State& st);

// Quitting with unsaved changes to a named file: Save, Discard or Cancel. The autosaved session
// keeps the changes whichever is chosen.
void quit_modal(App::State& st);

} // namespace ui
