/**
 * QR codes for the invite link, made by the maintained `qrcode-generator` library (byte mode,
 * error correction level M, the smallest version that holds the text, the mask the standard's
 * penalty rules choose). This module only turns the text into UTF-8 for it and returns the
 * modules as an array the invite panel draws.
 */
import qrcode from "qrcode-generator";

/** A QR symbol: `size`×`size` modules, row-major, 1 = dark. */
export interface QrCode {
  version: number;
  size: number;
  modules: Uint8Array;
}

/**
 * The largest version made (57×57 modules, up to 213 bytes at level M): a link is far shorter,
 * and the invite panel's code stays readable from a phone across a table.
 */
export const MAX_QR_VERSION = 10;

/**
 * Encodes `text` (as UTF-8) in the smallest version that holds it; throws `qr_too_long` past
 * version {@link MAX_QR_VERSION}.
 *
 * @example
 * ```ts
 * const qr = encodeQr("https://example.org/s/quiet-pine-4821");
 * qr.modules[0]; // 1: the top-left finder pattern is dark
 * ```
 */
export function encodeQr(text: string): QrCode {
  const bytes = new TextEncoder().encode(text);
  // The library's byte mode takes each character's low byte: give it the UTF-8 bytes so.
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  const symbol = qrcode(0, "M");
  symbol.addData(binary, "Byte");
  try {
    symbol.make();
  } catch {
    throw new Error(`qr_too_long: ${bytes.length} bytes do not fit any QR version`);
  }
  const size = symbol.getModuleCount();
  const version = (size - 17) / 4;
  if (version > MAX_QR_VERSION) {
    throw new Error(
      `qr_too_long: ${bytes.length} bytes do not fit a version ${MAX_QR_VERSION} code`,
    );
  }
  const modules = new Uint8Array(size * size);
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) modules[y * size + x] = symbol.isDark(y, x) ? 1 : 0;
  }
  return { version, size, modules };
}
