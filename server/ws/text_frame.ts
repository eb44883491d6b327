/**
 * `textFrame`: a server's unmasked, unfragmented WebSocket text frame (RFC 6455 §5.2), byte for
 * byte what npm `ws` writes for `send(text)` without compression, as one `Buffer` (header and
 * payload together). The `ws` engine builds it once per fanned-out frame and writes the same
 * bytes to every socket (see `SharedFrame`).
 *
 * @example
 * ```ts
 * import { textFrame } from "./text_frame.ts";
 *
 * const bytes = textFrame('{"t":"tick","n":60}');
 * console.log(bytes[0] === 0x81, bytes[1] === bytes.length - 2); // FIN + text; 7-bit length
 * ```
 */
import { Buffer } from "node:buffer";

/** FIN bit set, opcode 1 (text). */
const FIN_TEXT = 0x81;

/** The complete frame carrying `text` (UTF-8), unmasked, as a server sends it. */
export function textFrame(text: string): Buffer {
  const length = Buffer.byteLength(text);
  const header = length < 126 ? 2 : length < 65536 ? 4 : 10;
  const frame = Buffer.allocUnsafe(header + length);
  frame[0] = FIN_TEXT;
  if (length < 126) frame[1] = length;
  else if (length < 65536) {
    frame[1] = 126;
    frame.writeUInt16BE(length, 2);
  } else {
    frame[1] = 127;
    // Lengths stay far below 2^53 (frames are capped long before): the high word is 0 or small.
    frame.writeUInt32BE(Math.floor(length / 0x1_0000_0000), 2);
    frame.writeUInt32BE(length >>> 0, 6);
  }
  frame.write(text, header, "utf8");
  return frame;
}
