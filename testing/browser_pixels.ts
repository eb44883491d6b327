/**
 * Pixel checks on what the scene canvas shows. Pages opened in test mode keep their drawing
 * buffer (`preserveDrawingBuffer`), so the canvas can be copied into a 2D canvas and read.
 */
import type { Page } from "playwright-core";

/**
 * Counts bright pixels (luminance > `threshold` of 255) of the scene canvas inside the disc of
 * radius `radius` CSS pixels around (`x`, `y`) (CSS pixels of the page).
 */
export async function brightPixelsAround(
  page: Page,
  x: number,
  y: number,
  radius: number,
  threshold = 170,
): Promise<number> {
  return await page.evaluate(({ x, y, radius, threshold }) => {
    const canvas = document.getElementById("scene") as HTMLCanvasElement;
    const rect = canvas.getBoundingClientRect();
    const scale = canvas.width / rect.width;
    const copy = document.createElement("canvas");
    copy.width = canvas.width;
    copy.height = canvas.height;
    const ctx = copy.getContext("2d", { willReadFrequently: true });
    if (!ctx) throw new Error("no_canvas_2d: cannot read the scene canvas back");
    ctx.drawImage(canvas, 0, 0);
    const cx = (x - rect.left) * scale;
    const cy = (y - rect.top) * scale;
    const r = radius * scale;
    const left = Math.max(0, Math.floor(cx - r));
    const top = Math.max(0, Math.floor(cy - r));
    const width = Math.min(copy.width - left, Math.ceil(r * 2));
    const height = Math.min(copy.height - top, Math.ceil(r * 2));
    const pixels = ctx.getImageData(left, top, width, height).data;
    let bright = 0;
    for (let py = 0; py < height; py++) {
      for (let px = 0; px < width; px++) {
        const dx = left + px - cx;
        const dy = top + py - cy;
        if (dx * dx + dy * dy > r * r) continue;
        const at = (py * width + px) * 4;
        const luminance = 0.2126 * pixels[at] + 0.7152 * pixels[at + 1] + 0.0722 * pixels[at + 2];
        if (luminance > threshold) bright++;
      }
    }
    return bright;
  }, { x, y, radius, threshold });
}
