/**
 * The composer's draft as this page holds it, pure: cues by id, title, track, who edited what
 * last, and the edits that change it. The same edits go to the server, which relays them to every
 * composer in its order; applying the relayed edits in that order (one's own too) gives every
 * composer the same draft (last writer wins per cue).
 */
import type { DraftEdit, TrackRef } from "../../../shared/protocol.ts";
import { clampAt, type DraftCue, type ShowCue } from "./cue_model.ts";

export type { DraftEdit, TrackRef };

/** A cue edit for `cue` (its id and its show fields). */
export function cueEdit(cue: DraftCue): DraftEdit {
  const { id, by: _by, ...fields } = cue;
  return { do: "cue", id, cue: { ...fields, at: clampAt(fields.at) } };
}

/**
 * The draft: apply edits (yours at once, everyone's as relayed) and read it back.
 *
 * @example
 * ```ts
 * import { Draft } from "./draft_state.ts";
 *
 * const draft = new Draft();
 * draft.apply([{ do: "cue", id: "a", cue: { at: 60, x: 0, z: 0 } }], "p1");
 * draft.cues.get("a")?.by; // "p1"
 * ```
 */
export class Draft {
  readonly cues = new Map<string, DraftCue>();
  title = "";
  track: TrackRef | null = null;
  /** Bumped by every change (for redrawing). */
  version = 0;

  /** Applies `edits` made by `by`; returns the ids of the cues they touched. */
  apply(edits: readonly DraftEdit[], by: string): string[] {
    const touched: string[] = [];
    for (const edit of edits) {
      switch (edit.do) {
        case "cue":
          if (edit.cue === null) this.cues.delete(edit.id);
          else this.cues.set(edit.id, { ...edit.cue, id: edit.id, by });
          touched.push(edit.id);
          break;
        case "title":
          this.title = edit.title;
          break;
        case "track":
          this.track = edit.track;
          break;
        case "discard":
          this.cues.clear();
          this.title = "";
          this.track = null;
          break;
      }
    }
    this.version++;
    return touched;
  }

  /** Replaces everything (a `draft-state` from the server). */
  replace(
    state: {
      title: string;
      track: TrackRef | null;
      cues: readonly { id: string; by: string; cue: ShowCue }[];
    } | null,
  ): void {
    this.cues.clear();
    this.title = state?.title ?? "";
    this.track = state?.track ?? null;
    for (const { id, by, cue } of state?.cues ?? []) this.cues.set(id, { ...cue, id, by });
    this.version++;
  }
}

const ID_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/** A fresh cue id: 12 base64url characters (72 random bits). */
export function newCueId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  let id = "";
  for (const b of bytes) id += ID_ALPHABET[b & 63];
  return id;
}
