// ui/panels/shared/texture_atlas.cpp — see texture_atlas.h.
#include "ui/panels/shared/texture_atlas.h"

#include <cstddef>

namespace ui {

bool TextureAtlas::reshape(TextureUploader& textures, int rows, int cols, int side) {
    if (texture_ && uploader_ == &textures && rows == rows_ && cols == cols_ && side == side_) return false;
    release();
    uploader_ = &textures;
    rows_ = rows, cols_ = cols, side_ = side;
    texture_ = textures.create(cols * side, rows * side);
    return true;
}

void TextureAtlas::release() {
    if (texture_) uploader_->release(texture_);
    texture_ = nullptr;
    rows_ = cols_ = side_ = 0;
}

void TextureAtlas::put(int col, const float* values, float top, TexelColour colour) {
    const std::size_t width = static_cast<std::size_t>(cols_ * side_), side = static_cast<std::size_t>(side_);
    if (col == 0) band_.assign(width * side * 4, 0);
    for (std::size_t y = 0; y < side; ++y)
        for (std::size_t x = 0; x < side; ++x)
            colour(&band_[(y * width + static_cast<std::size_t>(col) * side + x) * 4], values[y * side + x], top);
}

void TextureAtlas::send(int row) { uploader_->write_rows(texture_, row * side_, side_, band_.data()); }

void TextureAtlas::draw(ImDrawList* draw, int row, int col, ImVec2 a, ImVec2 b) const {
    const float u = 1.0f / static_cast<float>(cols_), v = 1.0f / static_cast<float>(rows_);
    draw->AddImage(texture_, a, b, ImVec2(static_cast<float>(col) * u, static_cast<float>(row) * v),
                   ImVec2(static_cast<float>(col + 1) * u, static_cast<float>(row + 1) * v));
}

} // namespace ui
