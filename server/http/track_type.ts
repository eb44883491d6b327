/**
 * What kind of audio a track is, told from its bytes (magic numbers and container headers), never
 * from its name or a `Content-Type` the uploader chose: WAV (`RIFF…WAVE` with a `fmt ` chunk), Ogg
 * holding Opus or Vorbis (`OggS`, its first packet `OpusHead` or `\x01vorbis`), M4A (an ISO
 * base media `ftyp` box with an audio brand) and MP3 (an `ID3v2` tag, or MPEG audio layer III frames
 * whose header says where the next frame begins, and it does).
 *
 * @example
 * ```ts
 * import { trackType } from "./track_type.ts";
 * const wav = new TextEncoder().encode("RIFF\0\0\0\0WAVEfmt ");
 * console.log(trackType(wav)?.mime); // "audio/wav"
 * console.log(trackType(new Uint8Array(64))); // undefined
 * ```
 */

import type { TrackType } from "../scene/track_store.ts";

export type { TrackType };

/** The media types tracks are served with, by stored extension. */
export const TRACK_TYPES: Readonly<Record<TrackType["ext"], TrackType>> = {
  mp3: { mime: "audio/mpeg", ext: "mp3" },
  ogg: { mime: "audio/ogg", ext: "ogg" },
  m4a: { mime: "audio/mp4", ext: "m4a" },
  wav: { mime: "audio/wav", ext: "wav" },
};

/** Bytes of a track's start that {@link trackType} needs at most (an ID3 tag may be longer). */
export const SNIFF_BYTES = 64 * 1024;

/** ISO base media brands of audio files (M4A, M4B audiobooks, and the generic MP4 brands). */
const AUDIO_BRANDS = new Set(["M4A ", "M4B ", "mp42", "mp41", "isom", "iso2", "iso5", "dash"]);

/** The kind of the track whose first bytes are `bytes`, or undefined when it is none we take. */
export function trackType(bytes: Uint8Array): TrackType | undefined {
  if (isWav(bytes)) return TRACK_TYPES.wav;
  if (isOggAudio(bytes)) return TRACK_TYPES.ogg;
  if (isM4a(bytes)) return TRACK_TYPES.m4a;
  if (isMp3(bytes)) return TRACK_TYPES.mp3;
  return undefined;
}

function ascii(bytes: Uint8Array, at: number, length: number): string {
  let s = "";
  for (let i = at; i < at + length && i < bytes.length; i++) s += String.fromCharCode(bytes[i]);
  return s;
}

function isWav(b: Uint8Array): boolean {
  return ascii(b, 0, 4) === "RIFF" && ascii(b, 8, 4) === "WAVE" && ascii(b, 12, 4) === "fmt ";
}

function isOggAudio(b: Uint8Array): boolean {
  // Page header: "OggS", version 0, header type with "beginning of stream" set, 27 bytes, then
  // the segment table; the first packet follows it.
  if (ascii(b, 0, 4) !== "OggS" || b[4] !== 0 || (b[5] & 0x02) === 0 || b.length < 28) {
    return false;
  }
  const segments = b[26];
  const packet = 27 + segments;
  return ascii(b, packet, 8) === "OpusHead" || ascii(b, packet, 7) === "\x01vorbis";
}

function isM4a(b: Uint8Array): boolean {
  if (ascii(b, 4, 4) !== "ftyp") return false;
  const size = ((b[0] << 24) | (b[1] << 16) | (b[2] << 8) | b[3]) >>> 0;
  if (size < 16 || size > 4096) return false;
  // The major brand, or one of the compatible brands after the minor version.
  if (AUDIO_BRANDS.has(ascii(b, 8, 4))) return true;
  for (let at = 16; at + 4 <= Math.min(size, b.length); at += 4) {
    if (AUDIO_BRANDS.has(ascii(b, at, 4))) return true;
  }
  return false;
}

/** MPEG-1/2/2.5 layer III bit rates (kbit/s) by [MPEG-1?][index]; 0: free or bad. */
const BITRATES = [
  [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160, 0],
  [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 0],
];
/** Sample rates by [version bits][index]. */
const SAMPLE_RATES: Record<number, number[]> = {
  3: [44100, 48000, 32000],
  2: [22050, 24000, 16000],
  0: [11025, 12000, 8000],
};

/** Length in bytes of the layer III frame whose header is at `at`, or 0 when there is none. */
function mp3FrameLength(b: Uint8Array, at: number): number {
  if (at + 4 > b.length) return 0;
  if (b[at] !== 0xff || (b[at + 1] & 0xe0) !== 0xe0) return 0;
  const version = (b[at + 1] >> 3) & 3; // 3: MPEG-1, 2: MPEG-2, 0: MPEG-2.5, 1: reserved
  const layer = (b[at + 1] >> 1) & 3; // 1: layer III
  if (version === 1 || layer !== 1) return 0;
  const bitrate = BITRATES[version === 3 ? 1 : 0][b[at + 2] >> 4] * 1000;
  const rateIndex = (b[at + 2] >> 2) & 3;
  if (bitrate === 0 || rateIndex === 3) return 0;
  const sampleRate = SAMPLE_RATES[version][rateIndex];
  const padding = (b[at + 2] >> 1) & 1;
  const perFrame = version === 3 ? 144 : 72;
  return Math.floor((perFrame * bitrate) / sampleRate) + padding;
}

function isMp3(b: Uint8Array): boolean {
  let at = 0;
  if (ascii(b, 0, 3) === "ID3") {
    // ID3v2: major version 2–4, a synchsafe size (7 bits a byte); the audio follows the tag.
    if (b.length < 10 || b[3] < 2 || b[3] > 4 || b[3] === 0xff) return false;
    for (let i = 6; i < 10; i++) if (b[i] & 0x80) return false;
    const size = (b[6] << 21) | (b[7] << 14) | (b[8] << 7) | b[9];
    const footer = (b[5] & 0x10) ? 10 : 0;
    at = 10 + size + footer;
    // A tag longer than what was sniffed (cover art): the tag itself is the evidence.
    if (at + 4 > b.length) return true;
  }
  // Two frames in a row, the second where the first one's header says it ends.
  const first = mp3FrameLength(b, at);
  if (first === 0) return false;
  return mp3FrameLength(b, at + first) > 0;
}
