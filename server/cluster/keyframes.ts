/**
 * A scene's keyframes in cluster mode: each time the owner moves the scene record's snapshot
 * forward (every 10 s of scene time, trailing T − W by about a minute), it also appends that
 * snapshot to the scene's keyframe subject. Keyframes are facts about the stored log (a snapshot
 * covers only acknowledged events), whoever wrote them, so they serve as
 *
 * - a tick index: the snapshot in force at any tick is the last keyframe at or before it plus
 *   the settings events after it (read by direct gets, no consumer), and
 * - the start of a pruned log: retention purges a scene's events up to a keyframe and the
 *   keyframes before it, so the first keyframe kept is the snapshot at the log's first tick.
 *
 * Appends name the subject's last sequence, like the log's, so a deposed owner's late keyframe
 * cannot land after its successor's; a refused or failed keyframe is only a missed index entry.
 */
import type { WorldSnapshot } from "../../shared/types.ts";
import type { NatsLink } from "./nats_link.ts";
import { appendAfter, lastMessage, nextMessage, type SubjectMessage } from "./subject_messages.ts";
import { keysSubject } from "./subjects.ts";

/** One keyframe. */
export interface Keyframe {
  /** Settings and wind at `snapshot.tick`: covers every event with a lower tick. */
  snapshot: WorldSnapshot;
  /** Every event with tick ≥ `snapshot.tick` is at a stream sequence above this. */
  streamSeq: number;
}

/** A keyframe with the stream sequence it is stored at. */
export interface StoredKeyframe {
  keyframe: Keyframe;
  keySeq: number;
}

/**
 * Appends `keyframe` after the keyframe stored at `expectLast` (0: none); returns its stream
 * sequence, or null when another writer appended since (the caller reads the last one again).
 *
 * @example
 * ```ts
 * const at = await appendKeyframe(link, "quiet-pine", { snapshot, streamSeq: 812 }, 0);
 * ```
 */
export async function appendKeyframe(
  link: NatsLink,
  scene: string,
  keyframe: Keyframe,
  expectLast: number,
): Promise<number | null> {
  return await appendAfter(link, keysSubject(scene), keyframe, expectLast);
}

/** The scene's last keyframe, or null when it has none. */
export async function lastKeyframe(link: NatsLink, scene: string): Promise<StoredKeyframe | null> {
  return stored(await lastMessage<Keyframe>(link, keysSubject(scene)));
}

/** The scene's first keyframe at stream sequence ≥ `from` (1: the first kept), or null. */
export async function nextKeyframe(
  link: NatsLink,
  scene: string,
  from = 1,
): Promise<StoredKeyframe | null> {
  return stored(await nextMessage<Keyframe>(link, keysSubject(scene), from));
}

function stored(message: SubjectMessage<Keyframe> | null): StoredKeyframe | null {
  return message && { keyframe: message.value, keySeq: message.seq };
}

/**
 * The last keyframe `accept` takes, found by binary search over stream sequences: `accept` must
 * hold for a prefix of the subject (keyframe ticks and stream sequences grow along it), so this
 * costs O(log n) direct gets. Null when it takes not even the first kept keyframe.
 *
 * @example
 * ```ts
 * const at = await lastKeyframeWhere(link, "quiet-pine", (k) => k.snapshot.tick <= 36_000);
 * if (at) console.log(at.keyframe.snapshot.tick <= 36_000);
 * ```
 */
export async function lastKeyframeWhere(
  link: NatsLink,
  scene: string,
  accept: (keyframe: Keyframe) => boolean,
): Promise<StoredKeyframe | null> {
  const first = await nextKeyframe(link, scene, 1);
  if (!first || !accept(first.keyframe)) return null;
  const last = await lastKeyframe(link, scene);
  if (!last || accept(last.keyframe)) return last ?? first;
  // Invariant: `best` is accepted; the answer is `best` or a keyframe in (best.keySeq, hi).
  let best = first;
  let hi = last.keySeq;
  while (best.keySeq + 1 < hi) {
    const mid = Math.floor((best.keySeq + 1 + hi) / 2);
    const found = await nextKeyframe(link, scene, mid);
    if (!found || found.keySeq >= hi) {
      hi = mid;
      continue;
    }
    if (accept(found.keyframe)) best = found;
    else hi = found.keySeq;
  }
  return best;
}
