/**
 * Reads what a WebM (Matroska/EBML) file holds, enough for a test to know a clip has pictures: its
 * tracks (number, type, codec) and the frames (SimpleBlock or Block) each track holds. It walks
 * the element tree linearly, descending into the containers that matter (a MediaRecorder file's
 * Segment and Clusters are of unknown size: live streams), and skips every other element by size.
 */

/** One track of a WebM file and the frames found for it. */
export interface WebmTrack {
  number: number;
  /** 1 video, 2 audio (Matroska TrackType). */
  type: number;
  codec: string;
  frames: number;
}

/** What a WebM file holds. */
export interface WebmSummary {
  /** The file starts with an EBML header whose DocType is "webm". */
  webm: boolean;
  tracks: WebmTrack[];
}

const EBML = 0x1a45dfa3;
const DOC_TYPE = 0x4282;
const SEGMENT = 0x18538067;
const TRACKS = 0x1654ae6b;
const TRACK_ENTRY = 0xae;
const TRACK_NUMBER = 0xd7;
const TRACK_TYPE = 0x83;
const CODEC_ID = 0x86;
const CLUSTER = 0x1f43b675;
const BLOCK_GROUP = 0xa0;
const BLOCK = 0xa1;
const SIMPLE_BLOCK = 0xa3;
/** Containers walked into rather than skipped. */
const CONTAINERS = new Set([EBML, SEGMENT, TRACKS, TRACK_ENTRY, CLUSTER, BLOCK_GROUP]);

/** A variable-length integer at `at`: its value (marker bit removed unless `keepMarker`). */
function vint(bytes: Uint8Array, at: number, keepMarker: boolean) {
  const first = bytes[at];
  if (first === undefined || first === 0) return null;
  const length = Math.clz32(first) - 23;
  if (at + length > bytes.length) return null;
  let value = keepMarker ? first : first & (0xff >> length);
  let allOnes = value === (0xff >> length);
  for (let i = 1; i < length; i++) {
    value = value * 256 + bytes[at + i];
    allOnes &&= bytes[at + i] === 0xff;
  }
  return { value, length, unknown: !keepMarker && allOnes };
}

function uint(bytes: Uint8Array, from: number, to: number): number {
  let value = 0;
  for (let i = from; i < to; i++) value = value * 256 + bytes[i];
  return value;
}

/**
 * The tracks of a WebM file and how many frames each holds.
 *
 * @example
 * ```ts
 * const clip = readWebm(await Deno.readFile("clip.webm"));
 * const video = clip.tracks.find((t) => t.type === 1);
 * console.log(video?.codec, video?.frames); // "V_VP9" 143
 * ```
 */
export function readWebm(bytes: Uint8Array): WebmSummary {
  const tracks: WebmTrack[] = [];
  let entry: WebmTrack | null = null;
  let docType = "";
  let at = 0;
  while (at < bytes.length) {
    const id = vint(bytes, at, true);
    if (!id) break;
    const size = vint(bytes, at + id.length, false);
    if (!size) break;
    const start = at + id.length + size.length;
    const end = size.unknown ? bytes.length : Math.min(bytes.length, start + size.value);
    if (CONTAINERS.has(id.value)) {
      if (id.value === TRACK_ENTRY) {
        entry = { number: 0, type: 0, codec: "", frames: 0 };
        tracks.push(entry);
      }
      at = start;
      continue;
    }
    switch (id.value) {
      case DOC_TYPE:
        docType = new TextDecoder().decode(bytes.subarray(start, end));
        break;
      case TRACK_NUMBER:
        if (entry) entry.number = uint(bytes, start, end);
        break;
      case TRACK_TYPE:
        if (entry) entry.type = uint(bytes, start, end);
        break;
      case CODEC_ID:
        if (entry) entry.codec = new TextDecoder().decode(bytes.subarray(start, end));
        break;
      case SIMPLE_BLOCK:
      case BLOCK: {
        const track = vint(bytes, start, false);
        const owner = tracks.find((t) => t.number === track?.value);
        if (owner) owner.frames++;
        break;
      }
    }
    at = end;
  }
  return { webm: docType === "webm", tracks };
}
