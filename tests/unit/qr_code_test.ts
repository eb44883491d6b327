/**
 * The QR codes of the invite panel (made by `qrcode-generator`): whole symbols read back by an
 * independent decoder (jsQR) for links of every length up to version 10, UTF-8, the size limit.
 */
import assert from "node:assert/strict";
import * as jsqr from "jsqr";
import { encodeQr, MAX_QR_VERSION, type QrCode } from "../../client/hud/qr_code.ts";

/** jsQR is CommonJS: its function is the module's default export (its types say otherwise). */
const jsQR = (jsqr as unknown as {
  default: (data: Uint8ClampedArray, width: number, height: number) => {
    data: string;
    version: number;
  } | null;
}).default;

/** The symbol as RGBA pixels: `scale` px per module, a 4-module light quiet zone. */
function rasterize(qr: QrCode, scale: number): { data: Uint8ClampedArray; width: number } {
  const width = (qr.size + 8) * scale;
  const data = new Uint8ClampedArray(width * width * 4).fill(255);
  for (let y = 0; y < qr.size; y++) {
    for (let x = 0; x < qr.size; x++) {
      if (!qr.modules[y * qr.size + x]) continue;
      for (let py = 0; py < scale; py++) {
        for (let px = 0; px < scale; px++) {
          const i = (((y + 4) * scale + py) * width + (x + 4) * scale + px) * 4;
          data[i] = data[i + 1] = data[i + 2] = 0;
        }
      }
    }
  }
  return { data, width };
}

Deno.test("encodeQr makes symbols jsQR reads back, versions 1 to 10", () => {
  const versions = new Set<number>();
  for (const length of [1, 14, 20, 40, 63, 90, 120, 150, 180, 213]) {
    const text = `https://snow.example/s/${"a-b".repeat(80)}`.slice(0, length);
    const qr = encodeQr(text);
    versions.add(qr.version);
    assert.equal(qr.size, qr.version * 4 + 17);
    const { data, width } = rasterize(qr, 4);
    const read = jsQR(data, width, width);
    assert.ok(read, `jsQR found the ${length}-byte code (version ${qr.version})`);
    assert.equal(read.data, text);
    assert.equal(read.version, qr.version);
  }
  assert.ok(
    versions.has(1) && versions.has(7) && versions.has(MAX_QR_VERSION),
    [...versions].join(","),
  );
});

Deno.test("encodeQr carries UTF-8 and refuses what does not fit", () => {
  const text = "https://snow.example/s/zürich-❄";
  const { data, width } = rasterize(encodeQr(text), 3);
  assert.equal(jsQR(data, width, width)?.data, text);
  assert.throws(() => encodeQr("x".repeat(214)), /qr_too_long/);
});
