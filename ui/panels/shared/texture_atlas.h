// ui/panels/shared/texture_atlas.h — many small maps (a model's layers × heads) in one texture, each a cell of
// side × side texels, drawn from their own draw-list channel so that they merge into one draw call:
// a software rasteriser pays per texture drawn and per rectangle, and 144 maps of one rectangle a
// cell cost more than the rest of a frame. Filled a row of cells at a time. Shared by the attention
// viewer's grid and the Model workspace's grid; headless, a NullTextureUploader counts the rows sent.
#pragma once

#include "ui/ui.h"

#include <imgui.h>

#include <vector>

namespace ui {

// The RGBA of value w on a map from 0 to `top`.
using TexelColour = void (*)(unsigned char* rgba, float w, float top);

class TextureAtlas {
public:
    TextureAtlas() = default;
    TextureAtlas(const TextureAtlas&) = delete;
    TextureAtlas& operator=(const TextureAtlas&) = delete;
    ~TextureAtlas() { release(); }

    // Keeps the texture when it has this shape already, else makes one of rows × cols cells of
    // `side` texels and returns true (its texels are undefined until sent).
    bool reshape(TextureUploader& textures, int rows, int cols, int side);
    void release();
    // Colours the cell in column `col` of the row being filled from `values` (side × side,
    // row-major); column 0 starts a new row.
    void put(int col, const float* values, float top, TexelColour colour);
    // Sends row `row`'s band, as far as it is filled, to the texture.
    void send(int row);
    // Cell (row, col) in the rectangle a … b.
    void draw(ImDrawList* draw, int row, int col, ImVec2 a, ImVec2 b) const;

    ImTextureID texture() const { return texture_; }
    int side() const { return side_; }

private:
    TextureUploader* uploader_ = nullptr;
    ImTextureID texture_ = nullptr;
    int rows_ = 0, cols_ = 0, side_ = 0;
    std::vector<unsigned char> band_; // RGBA of the row of cells being filled
};

} // namespace ui
