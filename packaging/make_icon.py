#!/usr/bin/python3
"""Draws the attnviz icon: a causal attention heatmap (4 x 4, the upper triangle masked) on a
dark rounded square. Writes the SVG and the 48, 128 and 256 px PNGs from the same shapes.

    /usr/bin/python3 packaging/make_icon.py assets/icons   (Debian's python3 with python3-numpy)

Needs only Python 3 and NumPy (the PNGs are 4 x 4 supersampled rectangles, written with zlib).
"""
import struct
import sys
import zlib
from pathlib import Path

import numpy as np

SIZE = 256  # the design grid; every shape below is in these units
BACKGROUND = ((8, 8, 240, 240), 44, (0x1D, 0x22, 0x33))
# Each row's weights sum to 1, as a softmax row does; None is a masked (future) key.
WEIGHTS = [
    [1.00, None, None, None],
    [0.35, 0.65, None, None],
    [0.20, 0.30, 0.50, None],
    [0.10, 0.20, 0.25, 0.45],
]
MASKED = (0x2C, 0x33, 0x48)
# Viridis at 0, 0.25, 0.5, 0.75, 1 (matplotlib's table), interpolated linearly between.
VIRIDIS = [(0x44, 0x01, 0x54), (0x3B, 0x52, 0x8B), (0x21, 0x91, 0x8C), (0x5E, 0xC9, 0x62), (0xFD, 0xE7, 0x25)]


def viridis(t):
    x = min(max(t, 0.0), 1.0) * (len(VIRIDIS) - 1)
    i = min(int(x), len(VIRIDIS) - 2)
    f = x - i
    return tuple(round(a + (b - a) * f) for a, b in zip(VIRIDIS[i], VIRIDIS[i + 1]))


def shapes():
    """(x, y, w, h), corner radius, colour: the background, then the 16 cells."""
    out = [BACKGROUND]
    margin, gap = 40, 8
    cell = (SIZE - 2 * margin - 3 * gap) / 4
    for r, row in enumerate(WEIGHTS):
        for c, w in enumerate(row):
            colour = MASKED if w is None else viridis(w ** 0.6)  # lift the small weights
            out.append(((margin + c * (cell + gap), margin + r * (cell + gap), cell, cell), 8, colour))
    return out


def svg():
    parts = ['<svg xmlns="http://www.w3.org/2000/svg" width="256" height="256" viewBox="0 0 256 256">',
             '  <title>attnviz</title>']
    for (x, y, w, h), radius, (r, g, b) in shapes():
        parts.append(f'  <rect x="{x:g}" y="{y:g}" width="{w:g}" height="{h:g}" rx="{radius}" '
                     f'fill="#{r:02x}{g:02x}{b:02x}"/>')
    parts.append('</svg>')
    return '\n'.join(parts) + '\n'


def raster(px, ss=4):
    n = px * ss
    # Sample centres in design units.
    coords = (np.arange(n) + 0.5) * (SIZE / n)
    xs, ys = np.meshgrid(coords, coords)
    rgba = np.zeros((n, n, 4))
    for (x, y, w, h), radius, colour in shapes():
        # Inside a rounded rectangle: distance to the inner rectangle shrunk by the radius.
        dx = np.maximum(np.abs(xs - (x + w / 2)) - (w / 2 - radius), 0)
        dy = np.maximum(np.abs(ys - (y + h / 2)) - (h / 2 - radius), 0)
        inside = dx * dx + dy * dy <= radius * radius
        rgba[inside, :3] = colour
        rgba[inside, 3] = 255
    # Average each ss x ss block; colours are premultiplied for the average, then divided back.
    premul = rgba.copy()
    premul[..., :3] *= rgba[..., 3:4] / 255
    block = premul.reshape(px, ss, px, ss, 4).mean(axis=(1, 3))
    alpha = block[..., 3:4]
    block[..., :3] = np.where(alpha > 0, block[..., :3] * 255 / np.maximum(alpha, 1e-9), 0)
    return np.clip(np.rint(block), 0, 255).astype(np.uint8)


def png(pixels):
    h, w, _ = pixels.shape
    raw = b''.join(b'\x00' + pixels[y].tobytes() for y in range(h))

    def chunk(kind, data):
        return struct.pack('>I', len(data)) + kind + data + struct.pack('>I', zlib.crc32(kind + data))

    return (b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, 6, 0, 0, 0))
            + chunk(b'IDAT', zlib.compress(raw, 9)) + chunk(b'IEND', b''))


def main():
    out = Path(sys.argv[1] if len(sys.argv) > 1 else 'assets/icons')
    out.mkdir(parents=True, exist_ok=True)
    (out / 'attnviz.svg').write_text(svg())
    for px in (48, 128, 256):
        (out / f'attnviz-{px}.png').write_bytes(png(raster(px)))


if __name__ == '__main__':
    main()
