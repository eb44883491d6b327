/**
 * `SharedFrame`: one text frame fanned out to many sockets (an event, a heartbeat, a presence
 * change). It is serialised once, and an engine that frames in JavaScript (the `ws` engine) builds
 * the frame's bytes on the wire once, on the first socket that needs them, and writes the same
 * bytes to every other socket: per peer, a fan-out then costs one write and no encoding.
 *
 * @example
 * ```ts
 * import { SharedFrame } from "./shared_frame.ts";
 *
 * const frame = new SharedFrame('{"t":"tick","n":60}');
 * frame.wire ??= new TextEncoder().encode(frame.text); // an engine's own encoding, made once
 * console.log(frame.text, frame.wire.length);
 * ```
 */
export class SharedFrame {
  /** The frame's text (JSON), as every socket sends it. */
  readonly text: string;
  /**
   * The frame as an engine puts it on the wire, made by the first socket of that engine that
   * sends it and reused by the rest; undefined until then (engines that frame natively never
   * set it).
   */
  wire: Uint8Array | undefined = undefined;

  constructor(text: string) {
    this.text = text;
  }
}
