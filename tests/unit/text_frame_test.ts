/** `textFrame` writes, byte for byte, the frame npm `ws` writes for `send(text)`. */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import * as ws from "ws";
import { textFrame } from "../../server/ws/text_frame.ts";

/** What `ws` puts on the wire for a server's uncompressed text message. */
function wsFrame(text: string): Buffer {
  // `Sender` is exported by ws but missing from its type definitions.
  const { Sender } = ws as unknown as {
    Sender: { frame(data: string, options: Record<string, unknown>): Buffer[] };
  };
  const parts = Sender.frame(text, {
    fin: true,
    opcode: 1,
    mask: false,
    readOnly: false,
    rsv1: false,
  });
  return Buffer.concat(parts);
}

Deno.test("textFrame matches ws's frame at every length encoding", async (t) => {
  const cases: [string, string][] = [
    ["empty", ""],
    ["a heartbeat", '{"t":"tick","n":60}'],
    ["125 bytes (largest 7-bit length)", "x".repeat(125)],
    ["126 bytes (smallest 16-bit length)", "x".repeat(126)],
    ["65535 bytes (largest 16-bit length)", "x".repeat(65535)],
    ["65536 bytes (smallest 64-bit length)", "x".repeat(65536)],
    ["multi-byte UTF-8 counted in bytes", "❄️ snow, schnee, 雪 ".repeat(9)],
  ];
  for (const [name, text] of cases) {
    await t.step(name, () => {
      const ours = textFrame(text);
      assert.deepEqual(ours, wsFrame(text));
      const header = ours.length - Buffer.byteLength(text);
      assert.equal(ours.subarray(header).toString("utf8"), text);
    });
  }
});
