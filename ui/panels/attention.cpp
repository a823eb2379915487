// ui/panels/attention.cpp
//
// [SECTION] Opening, the worker and closing
// [SECTION] Textures
// [SECTION] The open prompt and the header
// [SECTION] The grid of thumbnails
// [SECTION] One head (or the mean of a layer)
#include "ui/panels/attention.h"

#include "core/io/formats.h"
#include "core/colormap.h"
#include "ui/widgets.h"
#include "ui/zoom_map.h"

#include <imgui_stdlib.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace ui {

namespace {

constexpr int thumb_texels = 48;            // a thumbnail's side, fewer for models whose atlas would be too big
constexpr int max_atlas_texels = 8192;      // a texture side every OpenGL 3.3 driver takes
constexpr long long band_reads = 1 << 18;   // weights read into the map per frame (about 2 ms)

std::string token(const AttentionView& st, int i) { return st.labels[static_cast<std::size_t>(i)]; }

} // namespace

//-----------------------------------------------------------------------------
// [SECTION] Opening, the worker and closing
//-----------------------------------------------------------------------------

bool AttentionView::open(const std::string& path, const std::string& labels_path) {
    std::unique_ptr<core::io::AttentionFile> opened;
    std::vector<std::string> names;
    try {
        opened = core::io::AttentionFile::open(path);
        names = labels_path.empty() ? opened->labels() : core::io::read_token_labels(labels_path);
    } catch (const core::io::FileError& e) {
        error = e.what();
        return false;
    }
    if (!names.empty() && static_cast<int>(names.size()) != opened->n()) {
        error = labels_path + ": " + std::to_string(names.size()) + " labels for " + std::to_string(opened->n()) + " tokens";
        return false;
    }
    if (names.empty())
        for (int i = 0; i < opened->n(); ++i) names.push_back(std::to_string(i + 1));
    close();
    file = std::move(opened);
    labels = std::move(names);
    error.clear();
    summaries.assign(static_cast<std::size_t>(total()), {});
    thumb_side = std::clamp(max_atlas_texels / std::max(file->layers(), file->heads()), 1, std::min(thumb_texels, file->n()));
    done.store(0);
    stop.store(false);
    // Reading the whole file (600 MB for 12 × 12 × 1024²) takes seconds: a thread does it, and the
    // grid shows each thumbnail as it comes.
    worker = std::thread([this] {
        // Below the UI thread: on a busy machine the frames come first, the thumbnails after.
        ::setpriority(PRIO_PROCESS, static_cast<id_t>(::syscall(SYS_gettid)), 10);
        const int heads = file->heads();
        for (int k = 0; k < total() && !stop.load(std::memory_order_relaxed); ++k) {
            summaries[static_cast<std::size_t>(k)] = core::io::summarise_head(*file, k / heads, k % heads, thumb_side);
            done.store(k + 1, std::memory_order_release);
        }
    });
    return true;
}

void AttentionView::close() {
    stop.store(true);
    if (worker.joinable()) worker.join();
    if (uploader) {
        if (atlas) uploader->release(atlas);
        if (map) uploader->release(map);
    }
    atlas = nullptr, uploaded = 0, map = nullptr, map_layer = -1;
    summaries.clear(), done.store(0);
    file.reset(), labels.clear();
    layer = -1, head = 0, mean = false, fit(), selected_row = -1, top.clear();
}

int AttentionView::non_causal_heads() const {
    int count = 0;
    for (int k = 0; k < summarised(); ++k) count += summaries[static_cast<std::size_t>(k)].above_max > core::io::causal_tolerance;
    return count;
}

//-----------------------------------------------------------------------------
// [SECTION] Textures
//-----------------------------------------------------------------------------

namespace {

void put_texel(unsigned char* p, float w, float top) {
    const core::Rgb c = std::isnan(w) ? core::masked_rgb() : core::viridis(static_cast<double>(w / top));
    p[0] = c.r, p[1] = c.g, p[2] = c.b, p[3] = 255;
}

// Puts every thumbnail the worker has finished since the last frame into the atlas. They come in
// layer order, so one band of rows (a layer) is being filled at a time, and is sent whole.
void upload_thumbnails(AttentionView& st, TextureUploader& textures) {
    const int heads = st.file->heads(), side = st.thumb_side, width = heads * side;
    if (!st.atlas) st.atlas = textures.create(width, st.file->layers() * side);
    const int ready = st.summarised();
    for (; st.uploaded < ready; ++st.uploaded) {
        const int layer = st.uploaded / heads, head = st.uploaded % heads;
        if (head == 0) st.atlas_band.assign(static_cast<std::size_t>(width) * static_cast<std::size_t>(side) * 4, 0);
        const core::io::HeadSummary& s = st.summaries[static_cast<std::size_t>(st.uploaded)];
        const float top = std::max(s.max_weight, 1e-12f); // each thumbnail stretched to its own largest weight
        for (int y = 0; y < side; ++y)
            for (int x = 0; x < side; ++x)
                put_texel(&st.atlas_band[(static_cast<std::size_t>(y) * static_cast<std::size_t>(width) + static_cast<std::size_t>(head * side + x)) * 4],
                          s.thumb[static_cast<std::size_t>(y) * static_cast<std::size_t>(side) + static_cast<std::size_t>(x)], top);
        if (head == heads - 1 || st.uploaded + 1 == ready) textures.write_rows(st.atlas, layer * side, side, st.atlas_band.data());
    }
}

float map_top_of(const AttentionView& st) {
    if (!st.stretch) return 1.0f;
    float top = 1e-12f;
    const int heads = st.file->heads();
    for (int h = 0; h < heads; ++h) {
        const int k = st.layer * heads + h;
        if ((st.mean || h == st.head) && k < st.summarised()) top = std::max(top, st.summaries[static_cast<std::size_t>(k)].max_weight);
    }
    return top == 1e-12f ? 1.0f : top; // not summarised yet: 0 … 1
}

void read_map_row(AttentionView& st, int i, float* out) {
    if (st.mean) core::io::mean_row(*st.file, st.layer, i, out, st.scratch);
    else st.file->read_row(st.layer, st.head, i, out);
}

// Restarts the map when the head, the mean or the colours changed; then fills one band of rows.
void fill_map(AttentionView& st, TextureUploader& textures) {
    const int n = st.file->n();
    const float top = map_top_of(st);
    if (st.map_layer != st.layer || st.map_head != st.head || st.map_mean != st.mean || st.map_stretch != st.stretch || st.map_top != top) {
        if (!st.map) st.map = textures.create(n, n);
        st.map_layer = st.layer, st.map_head = st.head, st.map_mean = st.mean, st.map_stretch = st.stretch, st.map_top = top;
        st.map_rows_done = 0;
    }
    if (st.map_rows_done >= n) return;
    const long long per_row = static_cast<long long>(n) * (st.mean ? st.file->heads() : 1);
    const int rows = static_cast<int>(std::clamp<long long>(band_reads / per_row, 1, n - st.map_rows_done));
    st.band.resize(static_cast<std::size_t>(rows) * static_cast<std::size_t>(n) * 4);
    st.row.resize(static_cast<std::size_t>(n));
    for (int r = 0; r < rows; ++r) {
        read_map_row(st, st.map_rows_done + r, st.row.data());
        for (int j = 0; j < n; ++j) put_texel(&st.band[(static_cast<std::size_t>(r) * static_cast<std::size_t>(n) + static_cast<std::size_t>(j)) * 4], st.row[static_cast<std::size_t>(j)], top);
    }
    textures.write_rows(st.map, st.map_rows_done, rows, st.band.data());
    st.map_rows_done += rows;
}

//-----------------------------------------------------------------------------
// [SECTION] The open prompt and the header
//-----------------------------------------------------------------------------

void open_prompt(AttentionView& st, View& v) {
    static const std::string what = "Open a file of attention weights: " + core::io::extension_list(core::io::Kind::attention, " or ") +
                                    " of shape (n, n), (heads, n, n) or (layers, heads, n, n), with an optional batch axis of 1.";
    ImGui::TextWrapped("%s", what.c_str());
    // The box gives way to the button beside it, so a narrow panel never cuts "Choose…" off.
    const ImGuiStyle& style = ImGui::GetStyle();
    const float button = ImGui::CalcTextSize("Choose…").x + 2.0f * style.FramePadding.x + style.ItemSpacing.x;
    ImGui::SetNextItemWidth(std::max(4.0f * em(), std::min(24.0f * em(), ImGui::GetContentRegionAvail().x - button)));
    ImGui::InputTextWithHint("##attention-labels", "token labels (optional): JSON array or one a line", &st.labels_input);
    ImGui::SameLine();
    if (ImGui::Button("Choose…")) {
        v.file_request = FileRequest{core::io::FileBrowser::Mode::open, "Token labels", {core::io::filter_of(core::io::Kind::labels, "Labels")}, "", "",
                                     [&st](const std::string& path) { st.labels_input = path; }};
    }
    if (ImGui::Button("Open the weights file…")) ask_attention_file(v);
}

void header(AttentionView& st) {
    const core::io::AttentionFile& f = *st.file;
    ImGui::Text("%s", f.path().c_str());
    ImGui::TextDisabled("%d layer%s × %d head%s × %d tokens · %s%s", f.layers(), f.layers() == 1 ? "" : "s", f.heads(),
                        f.heads() == 1 ? "" : "s", f.n(), core::io::dtype_name(f.dtype()), f.memory_mapped() ? " · memory-mapped" : "");
    if (st.summarised() < st.total()) {
        char text[64];
        std::snprintf(text, sizeof text, "reading heads: %d of %d", st.summarised(), st.total());
        ImGui::ProgressBar(static_cast<float>(st.summarised()) / static_cast<float>(st.total()), ImVec2(-1, 0), text);
        return;
    }
    const int bad = st.non_causal_heads();
    if (bad == 0) {
        ImGui::TextColored(ImVec4(0.45f, 0.8f, 0.45f, 1), "causal: no weight above the diagonal in any head");
        return;
    }
    const auto worst = std::max_element(st.summaries.begin(), st.summaries.end(), [](const auto& a, const auto& b) { return a.above_max < b.above_max; });
    const int k = static_cast<int>(worst - st.summaries.begin());
    ImGui::TextColored(ImVec4(1, 0.45f, 0.4f, 1), "not causal: %d of %d heads have weight above the diagonal (outlined)", bad, st.total());
    ImGui::TextDisabled("largest: %.4g in layer %d, head %d: query %s → later key %s", static_cast<double>(worst->above_max),
                        k / f.heads() + 1, k % f.heads() + 1, token(st, worst->above_row).c_str(), token(st, worst->above_col).c_str());
}

//-----------------------------------------------------------------------------
// [SECTION] The grid of thumbnails
//-----------------------------------------------------------------------------

void open_map(AttentionView& st, int layer, int head, bool mean) {
    st.layer = layer, st.head = head, st.mean = mean;
    st.fit(), st.selected_row = -1, st.top.clear();
}

// The thumbnails' side: as large as the space allows (the grid of layers × heads fills the panel),
// within 1.5 … 12 em; a grid too large for the panel scrolls.
float thumbnail_side(const core::io::AttentionFile& f, float label_w, float gap) {
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float mean_w = ImGui::CalcTextSize("mean").x + 2.0f * ImGui::GetStyle().FramePadding.x + gap;
    const float across = (avail.x - label_w - mean_w - ImGui::GetStyle().ScrollbarSize) / static_cast<float>(f.heads()) - gap;
    const float down = (avail.y - ImGui::GetTextLineHeightWithSpacing() - gap) / static_cast<float>(f.layers()) - gap;
    return std::floor(std::clamp(std::min(across, down), 1.5f * em(), 12.0f * em()));
}

void grid(AttentionView& st) {
    const core::io::AttentionFile& f = *st.file;
    const float e = em(), gap = 0.25f * e, label_w = 2.6f * e;
    const float side = thumbnail_side(f, label_w, gap);
    st.thumb_rects.assign(static_cast<std::size_t>(st.total()), ImRect());
    ImGui::BeginChild("thumbnails", ImVec2(0, 0), false, ImGuiWindowFlags_HorizontalScrollbar);
    ImDrawList* draw = ImGui::GetWindowDrawList();
    // The thumbnails in a channel of their own, so that they merge into one draw call: under a
    // software rasteriser every draw call costs a copy of the vertices (150 ms a frame for 144
    // thumbnails interleaved with outlines and labels, against 12 ms).
    draw->ChannelsSplit(2);
    draw->ChannelsSetCurrent(1);
    const ImVec2 p0 = ImGui::GetCursorScreenPos();
    for (int h = 0; h < f.heads(); ++h) {
        char name[16];
        std::snprintf(name, sizeof name, "H%d", h + 1);
        draw->AddText(ImVec2(p0.x + label_w + static_cast<float>(h) * (side + gap), p0.y), ImGui::GetColorU32(ImGuiCol_TextDisabled), name);
    }
    const float top = p0.y + ImGui::GetTextLineHeightWithSpacing();
    for (int l = 0; l < f.layers(); ++l) {
        const float y = top + static_cast<float>(l) * (side + gap);
        char name[16];
        std::snprintf(name, sizeof name, "L%d", l + 1);
        draw->AddText(ImVec2(p0.x, y + 0.5f * (side - ImGui::GetTextLineHeight())), ImGui::GetColorU32(ImGuiCol_TextDisabled), name);
        for (int h = 0; h < f.heads(); ++h) {
            const int k = l * f.heads() + h;
            const ImVec2 a(p0.x + label_w + static_cast<float>(h) * (side + gap), y), b(a.x + side, a.y + side);
            st.thumb_rects[static_cast<std::size_t>(k)] = ImRect(a, b);
            ImGui::SetCursorScreenPos(a);
            ImGui::PushID(k);
            if (ImGui::InvisibleButton("thumb", ImVec2(side, side)) && k < st.uploaded) open_map(st, l, h, false);
            ImGui::PopID();
            if (k < st.uploaded) {
                const float u = 1.0f / static_cast<float>(f.heads()), w = 1.0f / static_cast<float>(f.layers());
                draw->ChannelsSetCurrent(0);
                draw->AddImage(st.atlas, a, b, ImVec2(static_cast<float>(h) * u, static_cast<float>(l) * w),
                               ImVec2(static_cast<float>(h + 1) * u, static_cast<float>(l + 1) * w));
                draw->ChannelsSetCurrent(1);
                const core::io::HeadSummary& s = st.summaries[static_cast<std::size_t>(k)];
                if (s.above_max > core::io::causal_tolerance) draw->AddRect(a, b, IM_COL32(255, 90, 80, 255), 0, 0, 2.0f);
                if (l == st.layer && (st.mean || h == st.head))
                    draw->AddRect(ImVec2(a.x - 0.15f * e, a.y - 0.15f * e), ImVec2(b.x + 0.15f * e, b.y + 0.15f * e), selection_color(), 0, 0, 2.0f);
                if (ImGui::IsItemHovered())
                    ImGui::SetTooltip("layer %d, head %d: largest weight %.3g%s\nclick to open", l + 1, h + 1, static_cast<double>(s.max_weight),
                                      s.above_max > core::io::causal_tolerance ? ", weight above the diagonal" : "");
            } else {
                draw->AddRectFilled(a, b, ImGui::GetColorU32(ImGuiCol_FrameBg));
            }
        }
        ImGui::SetCursorScreenPos(ImVec2(p0.x + label_w + static_cast<float>(f.heads()) * (side + gap), y + 0.5f * (side - ImGui::GetFrameHeight())));
        ImGui::PushID(l);
        if (ImGui::Button("mean")) open_map(st, l, 0, true);
        ImGui::PopID();
        tip("The mean of this layer's heads");
    }
    draw->ChannelsMerge();
    ImGui::SetCursorScreenPos(ImVec2(p0.x, top + static_cast<float>(f.layers()) * (side + gap)));
    ImGui::Dummy(ImVec2(1, 1));
    ImGui::EndChild();
}

//-----------------------------------------------------------------------------
// [SECTION] One head (or the mean of a layer)
//-----------------------------------------------------------------------------

// The map's title and choices; `back` adds "◂ All heads" (when the grid is not beside the map).
void map_toolbar(AttentionView& st, bool back) {
    const core::io::AttentionFile& f = *st.file;
    if (back) {
        if (ImGui::SmallButton("◂ All heads")) st.layer = -1;
        ImGui::SameLine();
    }
    if (st.mean) ImGui::Text("layer %d, mean of %d heads", st.layer + 1, f.heads());
    else ImGui::Text("layer %d, head %d", st.layer + 1, st.head + 1);
    const float box = ImGui::GetFrameHeight() + ImGui::GetStyle().ItemInnerSpacing.x;
    same_line_if_fits(box + ImGui::CalcTextSize("mean over heads").x);
    if (ImGui::Checkbox("mean over heads", &st.mean)) st.top.clear();
    same_line_if_fits(box + ImGui::CalcTextSize("stretch").x);
    ImGui::Checkbox("stretch", &st.stretch);
    tip("Colour from 0 to the largest weight instead of 0 to 1.");
    same_line_if_fits(ImGui::CalcTextSize("Fit").x + 2.0f * ImGui::GetStyle().FramePadding.x);
    fit_button(st);
    if (!st.mean && st.layer * f.heads() + st.head < st.summarised()) {
        const core::io::HeadSummary& s = st.summaries[static_cast<std::size_t>(st.layer * f.heads() + st.head)];
        if (s.above_max > core::io::causal_tolerance) {
            ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1, 0.45f, 0.4f, 1));
            ImGui::TextWrapped("not causal: weight above the diagonal, %.3g per query; the largest %.4g (query %s → key %s)",
                               s.above_mass, static_cast<double>(s.above_max), token(st, s.above_row).c_str(), token(st, s.above_col).c_str());
            ImGui::PopStyleColor();
        } else {
            ImGui::TextDisabled("causal: no weight above the diagonal");
        }
    }
}

// Text from `pos` upwards, turned a quarter left: a column's label above the map.
void add_text_upwards(ImDrawList* draw, ImVec2 pos, ImU32 colour, const char* text) {
    const int first = draw->VtxBuffer.Size;
    draw->AddText(pos, colour, text);
    for (int i = first; i < draw->VtxBuffer.Size; ++i) {
        ImDrawVert& v = draw->VtxBuffer[i];
        const ImVec2 d(v.pos.x - pos.x, v.pos.y - pos.y);
        v.pos = ImVec2(pos.x + d.y, pos.y - d.x);
    }
}

// Every `step`-th label (and the selected one) where the cells are narrower than a line of text.
int label_step(float cell) { return std::max(1, static_cast<int>(std::ceil(ImGui::GetTextLineHeight() / std::max(cell, 1e-3f)))); }

// The weights' colours from 0 (bottom) to `top`, beside the map, with three values.
void colour_bar(ImDrawList* draw, ImVec2 min, float height, float top) {
    const float w = 0.9f * em();
    constexpr int steps = 48;
    for (int k = 0; k < steps; ++k) {
        const float y0 = min.y + height * static_cast<float>(k) / steps, y1 = min.y + height * static_cast<float>(k + 1) / steps;
        draw->AddRectFilled(ImVec2(min.x, y0), ImVec2(min.x + w, y1 + 1.0f), sequential_color(1.0 - (k + 0.5) / steps));
    }
    draw->AddRect(min, ImVec2(min.x + w, min.y + height), ImGui::GetColorU32(ImGuiCol_Border));
    const float line = ImGui::GetTextLineHeight();
    for (int k = 0; k <= 2; ++k) {
        char text[24];
        std::snprintf(text, sizeof text, "%.2g", static_cast<double>(top) * (2 - k) / 2.0);
        const float y = std::clamp(min.y + height * static_cast<float>(k) / 2.0f - 0.5f * line, min.y - 0.5f * line, min.y + height - line);
        draw->AddText(ImVec2(min.x + w + 0.3f * em(), y), ImGui::GetColorU32(ImGuiCol_Text), text);
    }
}

// The map's labels: rows on the left, columns above (turned), thinned to one in `step` cells.
void axis_labels(AttentionView& st, ImDrawList* draw, ImVec2 p0, const ImRect& area, float cells) {
    const int n = st.file->n();
    const float e = em(), line = ImGui::GetTextLineHeight(), cell = st.cell;
    const int step = label_step(cell);
    const auto colour = [&](int i) { return i == st.selected_row ? selection_color() : ImGui::GetColorU32(ImGuiCol_Text); };
    draw->PushClipRect(ImVec2(p0.x, area.Min.y), ImVec2(area.Min.x, area.Max.y), true);
    const VisibleCells rows = visible_cells(st.pan.y, cells, n);
    for (int i = rows.first; i < rows.last; ++i) {
        if (i % step != 0 && i != st.selected_row) continue;
        const float y = st.origin.y + static_cast<float>(i) * cell + 0.5f * (cell - line);
        const std::string name = fit_text(token(st, i), area.Min.x - p0.x - 0.4f * e);
        draw->AddText(ImVec2(p0.x + 0.2f * e, std::clamp(y, area.Min.y, area.Max.y - line)), colour(i), name.c_str());
    }
    draw->PopClipRect();
    draw->PushClipRect(ImVec2(area.Min.x, p0.y), ImVec2(area.Max.x, area.Min.y), true);
    const VisibleCells cols = visible_cells(st.pan.x, cells, n);
    for (int j = cols.first; j < cols.last; ++j) {
        if (j % step != 0) continue;
        const float x = st.origin.x + static_cast<float>(j) * cell + 0.5f * (cell - line);
        const std::string name = fit_text(token(st, j), area.Min.y - p0.y - 0.4f * e);
        add_text_upwards(draw, ImVec2(x, area.Min.y - 0.2f * e), ImGui::GetColorU32(ImGuiCol_Text), name.c_str());
    }
    draw->PopClipRect();
}

float hovered_weight(AttentionView& st, int row, int col) {
    if (!st.mean) return st.file->at(st.layer, st.head, row, col);
    st.row.resize(static_cast<std::size_t>(st.file->n()));
    core::io::mean_row(*st.file, st.layer, row, st.row.data(), st.scratch);
    return st.row[static_cast<std::size_t>(col)];
}

// The map: labels on both axes (keys above, queries left), a colour bar on the right, hover for a
// cell's weight, a click to choose the query whose top keys are listed. `below`: room left under it.
void map_view(AttentionView& st, TextureUploader& textures, float below) {
    const int n = st.file->n();
    const float e = em(), n_f = static_cast<float>(n);
    fill_map(st, textures);
    const float label_w = 6.0f * e, label_h = 5.0f * e, bar_w = 4.5f * e;
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float side = std::floor(std::max(4.0f * e, std::min(avail.x - label_w - bar_w, avail.y - label_h - below)));
    const ImVec2 p0 = ImGui::GetCursorScreenPos();
    const ImRect area(ImVec2(p0.x + label_w, p0.y + label_h), ImVec2(p0.x + label_w + side, p0.y + label_h + side));
    const MapMouse input = zoom_and_pan("map", st, n, p0, area);
    const float cells = input.cells, cell = st.cell;
    const ImVec2 mouse = ImGui::GetIO().MousePos;

    int hover_row = -1, hover_col = -1;
    if ((input.hovered || input.clicked) && area.Contains(mouse)) {
        hover_row = std::clamp(static_cast<int>((mouse.y - st.origin.y) / cell), 0, n - 1);
        hover_col = std::clamp(static_cast<int>((mouse.x - st.origin.x) / cell), 0, n - 1);
    }
    if (input.clicked && hover_row >= 0) st.selected_row = hover_row;

    ImDrawList* draw = ImGui::GetWindowDrawList();
    draw->AddImage(st.map, area.Min, area.Max, ImVec2(st.pan.x / n_f, st.pan.y / n_f), ImVec2((st.pan.x + cells) / n_f, (st.pan.y + cells) / n_f));
    if (st.selected_row >= 0) {
        draw->PushClipRect(area.Min, area.Max, true);
        const float y = st.origin.y + static_cast<float>(st.selected_row) * cell;
        draw->AddRect(ImVec2(area.Min.x, y), ImVec2(area.Max.x, y + std::max(cell, 2.0f)), selection_color(), 0, 0, 2.0f);
        draw->PopClipRect();
    }
    axis_labels(st, draw, p0, area, cells);
    colour_bar(draw, ImVec2(area.Max.x + 0.6f * e, area.Min.y), side, st.map_top);
    const char* keys = "keys →";
    draw->AddText(ImVec2(p0.x + 0.2f * e, p0.y), ImGui::GetColorU32(ImGuiCol_TextDisabled), keys);
    draw->AddText(ImVec2(p0.x + 0.2f * e, area.Min.y - ImGui::GetTextLineHeightWithSpacing()), ImGui::GetColorU32(ImGuiCol_TextDisabled), "queries ↓");
    if (hover_col >= 0 && !ImGui::IsItemActive()) {
        const float w = hovered_weight(st, hover_row, hover_col);
        ImGui::SetTooltip("query %s (row %d)\nkey %s (column %d)\nweight %.4f%s", token(st, hover_row).c_str(), hover_row + 1,
                          token(st, hover_col).c_str(), hover_col + 1, static_cast<double>(w),
                          hover_col > hover_row && w > core::io::causal_tolerance ? "\nabove the diagonal: a later key" : "");
    }
    ImGui::SetCursorScreenPos(ImVec2(p0.x, area.Max.y + 0.3f * e));
    if (st.map_rows_done < n) ImGui::ProgressBar(static_cast<float>(st.map_rows_done) / n_f, ImVec2(-1, 0), "drawing");
    else ImGui::Dummy(ImVec2(1, 1));
}

void top_keys(AttentionView& st) {
    if (st.selected_row < 0) {
        ImGui::TextWrapped("Click a row of the map to list the keys its query attends to most. The wheel zooms, a drag pans.");
        return;
    }
    const int n = st.file->n();
    st.row.resize(static_cast<std::size_t>(n));
    read_map_row(st, st.selected_row, st.row.data());
    st.top = core::io::top_k(st.row.data(), n, AttentionView::top_count);
    ImGui::TextWrapped("query %s (row %d): its %d largest weights", token(st, st.selected_row).c_str(), st.selected_row + 1, static_cast<int>(st.top.size()));
    weight_bars(static_cast<int>(st.top.size()), 8.0f * em(), sequential_color(0.6), st.top.empty() ? 1.0 : st.top[0].second,
                [&](int k) { return st.labels[static_cast<std::size_t>(st.top[static_cast<std::size_t>(k)].first)].c_str(); },
                [&](int k) { return static_cast<double>(st.top[static_cast<std::size_t>(k)].second); }, [](int) { return false; });
}

} // namespace

void ask_attention_file(View& v) {
    v.open["attention"] = true;
    AttentionView& st = v.state<AttentionView>();
    v.file_request = FileRequest{core::io::FileBrowser::Mode::open, "Open attention weights",
                                 {core::io::filter_of(core::io::Kind::attention, "Attention weights")}, "", "", [&st](const std::string& path) {
                                     if (!st.open(path, st.labels_input)) throw core::io::FileError(st.error);
                                 }};
}

void draw_attention_viewer(AttentionView& st, TextureUploader& textures, View* v) {
    if (st.uploader && st.uploader != &textures) st.close(); // textures belong to one renderer
    st.uploader = &textures;
    if (!st.file) {
        if (v) open_prompt(st, *v);
        if (!st.error.empty()) ImGui::TextColored(ImVec4(1, 0.45f, 0.4f, 1), "%s", st.error.c_str());
        return;
    }
    upload_thumbnails(st, textures);
    if (ImGui::SmallButton("Close")) {
        st.close();
        return;
    }
    ImGui::SameLine();
    header(st);
    if (!st.error.empty()) ImGui::TextColored(ImVec4(1, 0.45f, 0.4f, 1), "%s", st.error.c_str());
    const bool map_beside = v && v->open["attention_map"]; // the Model workspace: the map has a panel of its own
    if (st.layer < 0 || map_beside) {
        grid(st);
        return;
    }
    map_toolbar(st, true);
    map_view(st, textures, (AttentionView::top_count + 2) * ImGui::GetTextLineHeightWithSpacing());
    top_keys(st);
}

void draw_attention_map_panel(AttentionView& st, TextureUploader& textures, View& v) {
    if (st.uploader && st.uploader != &textures) st.close();
    st.uploader = &textures;
    if (!st.file) {
        ImGui::TextWrapped("No attention weights are open.");
        if (ImGui::Button("Open attention weights…")) ask_attention_file(v);
        return;
    }
    if (st.layer < 0) {
        ImGui::TextWrapped("Click a head in the grid of layers × heads to see its map here, or a layer's \"mean\".");
        return;
    }
    map_toolbar(st, false);
    map_view(st, textures, 0.0f);
}

void draw_attention_keys_panel(AttentionView& st) {
    if (!st.file || st.layer < 0) {
        ImGui::TextWrapped("The keys a query attends to most: choose a head, then click a row of its map.");
        return;
    }
    top_keys(st);
}

} // namespace ui
