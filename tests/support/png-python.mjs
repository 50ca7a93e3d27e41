// Python (the standard library only: matplotlib is not on this site) that
// defines `draw(vals, path)`: a bar chart of `vals` written as a 60 × 40
// PNG, as a model writes when asked to plot without matplotlib.
export const DRAW_PNG = `
import struct, zlib
def draw(vals, path):
    w, h = 60, 40
    px = [[255] * (w * 3) for _ in range(h)]
    for i, v in enumerate(vals):
        for y in range(h - v * 8, h):
            for x in range(i * 20 + 4, i * 20 + 16):
                px[y][x * 3:x * 3 + 3] = [40, 90, 200]
    raw = b"".join(b"\\x00" + bytes(r) for r in px)
    def chunk(t, d):
        return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xffffffff)
    png = b"\\x89PNG\\r\\n\\x1a\\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")
    with open(path, "wb") as f:
        f.write(png)
`;
