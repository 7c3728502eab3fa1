// Whether a screenshot shows something: the page tests' screenshots of frames are checked with
// this before they are kept. A sandboxed canvas frame is another process's surface (an opaque
// origin), and after the viewport is resized or its panel scrolled Chromium may composite the
// page before that process has painted at the new size: the frame's box comes out blank although
// its document is loaded. Waiting for its DOM cannot see that; only the pixels can.
import { inflateSync } from 'node:zlib';

/**
 * Whether `png` (8-bit RGB or RGBA, not interlaced: what Chromium writes) has a pixel darker
 * than `level` in all three colours, i.e. text or a drawing on a light background.
 */
export function hasDarkPixel(png, level = 128) {
  let width = 0;
  let height = 0;
  let bpp = 0;
  const idat = [];
  for (let pos = 8; pos + 8 <= png.length;) {
    const length = png.readUInt32BE(pos);
    const type = png.toString('ascii', pos + 4, pos + 8);
    const data = png.subarray(pos + 8, pos + 8 + length);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      const [depth, colour, , , interlace] = data.subarray(8, 13);
      if (depth !== 8 || (colour !== 2 && colour !== 6) || interlace !== 0) {
        throw new Error(`hasDarkPixel: unsupported PNG (depth ${depth}, colour type ${colour}, interlace ${interlace})`);
      }
      bpp = colour === 6 ? 4 : 3;
    } else if (type === 'IDAT') {
      idat.push(data);
    } else if (type === 'IEND') {
      break;
    }
    pos += 12 + length;
  }
  if (!bpp) throw new Error('hasDarkPixel: no IHDR chunk');
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * bpp;
  let prev = new Uint8Array(stride);
  for (let y = 0; y < height; y += 1) {
    const start = y * (stride + 1);
    const filter = raw[start];
    const line = new Uint8Array(raw.subarray(start + 1, start + 1 + stride));
    for (let i = 0; i < stride; i += 1) {
      const a = i >= bpp ? line[i - bpp] : 0;
      const b = prev[i];
      const c = i >= bpp ? prev[i - bpp] : 0;
      if (filter === 1) line[i] += a;
      else if (filter === 2) line[i] += b;
      else if (filter === 3) line[i] += (a + b) >> 1;
      else if (filter === 4) {
        const p = a + b - c;
        const [pa, pb, pc] = [Math.abs(p - a), Math.abs(p - b), Math.abs(p - c)];
        line[i] += pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      }
    }
    for (let x = 0; x < stride; x += bpp) {
      if (line[x] < level && line[x + 1] < level && line[x + 2] < level) return true;
    }
    prev = line;
  }
  return false;
}

/**
 * Waits until a screenshot of `locator` (an element in view, e.g. a canvas frame) shows
 * something dark (see hasDarkPixel); throws after `timeoutMs` with the number of blank shots.
 */
export async function waitPainted(locator, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  let blank = 0;
  for (;;) {
    if (hasDarkPixel(await locator.screenshot({ animations: 'disabled' }))) return blank;
    blank += 1;
    if (Date.now() > deadline) throw new Error(`waitPainted: still blank after ${blank} screenshots in ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
