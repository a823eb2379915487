// ui/model_service.h — what the Model workspace's panels share (v.state<ModelService>(), one per App): the model session
// (core/model/session.h, a worker runs the forwards), the snapshot this frame shows, the prompt
// and the selection. Panels read `shown` and never wait for the worker.
#pragma once

#include "core/model/importance_run.h"
#include "core/model/session.h"
#include "core/worker.h"

#include <imgui.h>
#include <imgui_internal.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ui {

struct View;

struct ModelService {
    // What the Model workspace shows: a live model (the prompt and its panels) or a file of a
    // model's attention weights (the attention viewer's panels, in the same places).
    // The file is the source while one of the viewer's panels is open.
    enum class Source { model, file };
    static Source source(const View& v);

    core::model::Session session;
    core::model::ImportanceRun importance; // head importance, on its own worker
    core::model::ImportanceRun expert_importance{core::model::ImportanceRun::Of::experts};
    // The newest run that worked, taken at each frame's start: a prompt that fails (past the
    // context, invalid UTF-8) leaves the panels on the run before, with `run_error` saying why.
    std::shared_ptr<const core::model::Snapshot> shown;
    std::string run_error;
    std::string prompt = "Mr. Darcy looked at Elizabeth, and Elizabeth looked at Mr. Darcy.";
    long long asked = 0;     // the serial of the last request
    long long seen = 0;      // the serial of the last snapshot taken
    std::string open_error;  // the last model that did not open: one line naming the file, until a run asked after it is shown
    long long failed_at = 0; // `asked` when the open failed
    int models_opened = 0;   // counts the models opened: a result measured on another model is dropped
    bool show_chooser = false; // File ▸ Open model…'s window

    // The selection, shared by every panel: one head, one query position (-1: the last).
    int layer = 0, head = 0, query = -1;
    int key = -1;     // the key position of the head map's clicked cell (-1: none), for QK attribution
    int hovered = -1; // the token the pointer is on in the chips or the head view (this frame)

    // The sequence the head scores are measured on: the prompt, or the probe (m random ids twice,
    // after BOS, from `probe_seed`).
    bool score_probe = false;
    int probe_m = 40, probe_seed = 0;
    // Knock-outs: the heads whose output (before the output projection) is set to zero or to its
    // mean over the prompt. A click in the grid toggles one in knock-out mode, or with Ctrl.
    std::vector<core::model::HeadRef> ablate;
    core::model::Ablation ablation = core::model::Ablation::zero;
    bool knockout_mode = false;
    bool fast_products = false; // the header's Fast toggle (SessionRequest::fast_products)
    bool knocked_out(int layer, int head) const;
    void toggle_knockout(int layer, int head); // and runs the prompt again
    // The experts of mixture layers knocked out (the Experts panel): dropped from their router's choice.
    std::vector<core::model::ExpertRef> ablate_experts;
    bool expert_knocked_out(int layer, int expert) const;
    void toggle_expert_knockout(int layer, int expert); // and runs the prompt again
    void clear_knockouts(); // heads and experts
    // The runs capture every head's q, k and v (and keep the linear layers' values) while the query–key
    // view or the State panel is open (follow_source).
    bool want_qkv = false;
    // The window's generation (the Steps panel's Next token) after its latest step: a run that continued
    // the prompt's cache, whose maps reach over the prompt and every token generated. Null before the
    // first step and after Start over; the State panel steps through it while it continues `shown`.
    struct Continued {
        long long from = 0;                    // the serial of the snapshot whose prompt it continues
        std::vector<std::string> labels;       // (t_total) the prompt's and the generated tokens'
        int prompt_length = 0;
        std::shared_ptr<const core::model::ForwardResult> run; // the latest step's: t_new = 1, t_total positions
        bool continues(const core::model::Snapshot& s) const { return from == s.serial && run && run->t_total > 0; }
    };
    std::shared_ptr<const Continued> continued;
    // The probe's ids for the open model (m clamped to its context); empty without a model.
    std::vector<int> probe_ids() const;

    // Opens a model (as File ▸ Open model… does) and runs the prompt on it; on failure the open
    // model stays, `open_error` names the file and the status line says it.
    bool open(const std::string& path, View& v);
    // Reads the model on another thread and opens it at the first frame after (the command line's
    // model: the first frame does not wait for its tokenizer); a failure is then open_error.
    void open_in_background(const std::string& path, View& v);
    bool opening() const { return awaiting_load; }
    core::Worker<core::model::LoadedModel> loading;
    std::string loading_path;
    bool awaiting_load = false; // a model is being read, or read and not yet adopted

    // Opens the panels of `s` and closes the other source's; a live model's wait until one is open
    // (follow_source closes them while none is: the source panel's start view is alone).
    void show(View& v, Source s);
    void close_model_panels(View& v);
    // show(), and the Model workspace with `s` shown once the switch there is done (the switch
    // brings the workspace's own open panels back).
    void show_in_workspace(View& v, Source s);
    std::optional<Source> wanted; // until then
    // A viewer's panel opened from anywhere (a menu, a dropped file, the command line) closes the
    // live model's; called at each frame's start.
    void follow_source(View& v);
    // Asks for a run of the prompt, scored on the chosen sequence.
    void run_prompt();
    // Takes a model read in the background and the newest snapshot (at the frame's first call), and
    // keeps the selection inside it.
    void refresh(View& v);
    void take_new_data(View& v);
    int refreshed_frame = -1; // ImGui's frame of the last take_new_data
    // The selected query position in `shown` (the last one when none is chosen), -1 without tokens.
    int query_position() const;
    bool has_attention() const { return shown && shown->t() > 0 && shown->layers() > 0; }
};

// The four head scores by number, in the order the grid and the table show them: the first four of
// core::heads::Score (the fifth, copy, is the tiny model's alone).
enum HeadScore { score_previous, score_duplicate, score_induction, score_entropy, score_count };
const char* score_name(int score); // "previous" …
inline core::heads::Score score_of(int score) { return static_cast<core::heads::Score>(score); }

// The bundled model's directory (assets/models/NAME/ with a config.json), or "" when none ships.
std::string bundled_model_dir();
// A directory or file the user picked: a model directory, a file inside one (config.json,
// model.safetensors …: its directory), or attnviz's own trained .safetensors.
std::string model_path_of_pick(const std::string& picked);
// File ▸ Open model…: opens the Model panels and the chooser (the cache's models, the bundled one, a file).
void ask_model(View& v);

} // namespace ui
