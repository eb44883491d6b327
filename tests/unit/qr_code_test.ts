/**
 * The QR encoder: Reed–Solomon and BCH against the standard's worked values, and whole symbols
 * read back by an independent decoder (jsQR) for links of every length up to version 10.
 */
import assert from "node:assert/strict";
import * as jsqr from "jsqr";
import {
  encodeQr,
  formatBits,
  type QrCode,
  reedSolomon,
  versionBits,
} from "../../client/hud/qr_code.ts";

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

Deno.test("reedSolomon matches the standard's HELLO WORLD 1-M example", () => {
  const data = [32, 91, 11, 120, 209, 114, 220, 77, 67, 64, 236, 17, 236, 17, 236, 17];
  assert.deepEqual(reedSolomon(data, 10), [196, 35, 39, 119, 235, 215, 231, 226, 93, 23]);
});

Deno.test("formatBits and versionBits match the standard's tables", () => {
  assert.equal(formatBits(0).toString(2).padStart(15, "0"), "101010000010010");
  assert.equal(formatBits(5).toString(2).padStart(15, "0"), "100000011001110");
  assert.equal(versionBits(7).toString(2).padStart(18, "0"), "000111110010010100");
  assert.equal(versionBits(10).toString(2).padStart(18, "0"), "001010010011010011");
});

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
  assert.ok(versions.has(1) && versions.has(7) && versions.has(10), [...versions].join(","));
});

Deno.test("encodeQr carries UTF-8 and refuses what does not fit", () => {
  const text = "https://snow.example/s/zürich-❄";
  const { data, width } = rasterize(encodeQr(text), 3);
  assert.equal(jsQR(data, width, width)?.data, text);
  assert.throws(() => encodeQr("x".repeat(214)), /qr_too_long/);
});
