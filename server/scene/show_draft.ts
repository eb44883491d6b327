/**
 * A scene's shared show draft, kept in memory (never in the log): the composers' edits applied in
 * the order the server takes them, so the last writer wins per cue. It knows who edited lately and
 * whether a draft is open (what guests are told: "a show is being prepared").
 *
 * @example
 * ```ts
 * import { ShowDraft } from "./show_draft.ts";
 * const draft = new ShowDraft();
 * draft.apply("p1", [{ do: "cue", id: "a", cue: { at: 0, x: 0, z: 0 } }], 0);
 * draft.apply("p2", [{ do: "cue", id: "a", cue: { at: 60, x: 1, z: 0 } }], 10);
 * console.log(draft.state()?.cues); // [{ id: "a", by: "p2", cue: { at: 60, x: 1, z: 0 } }]
 * ```
 */
import { SHOW_MAX_CUES } from "../../shared/protocol.ts";
import type { DraftEdit, DraftStateMessage } from "../../shared/protocol.ts";
import type { ShowCue, TrackRef } from "../../shared/types.ts";

/** Editors are named in the draft's state while they edited within this long. */
export const DRAFT_EDITOR_MS = 60_000;
/** Most editors a draft's state names. */
const MAX_EDITORS = 16;

/** The draft as `draft-state` carries it. */
export type DraftState = NonNullable<DraftStateMessage["draft"]>;

/** One scene's draft. */
export class ShowDraft {
  #title = "";
  #track: TrackRef | null = null;
  readonly #cues = new Map<string, { by: string; cue: ShowCue }>();
  /** Editors by peer id, with when they last edited (monotonic ms), most recent last. */
  readonly #editors = new Map<string, number>();

  /** Whether a draft is open: it holds a cue, a title or a track. */
  get open(): boolean {
    return this.#cues.size > 0 || this.#title !== "" || this.#track !== null;
  }

  /** Cues held. */
  get size(): number {
    return this.#cues.size;
  }

  /**
   * Why `edits` cannot be applied whole (they would take the draft past SHOW_MAX_CUES), or null
   * when they can. Nothing changes either way.
   */
  check(edits: readonly DraftEdit[]): string | null {
    let size = this.#cues.size;
    let kept = true;
    const now = new Map<string, boolean>();
    for (const edit of edits) {
      if (edit.do === "discard") {
        size = 0;
        kept = false;
        now.clear();
      } else if (edit.do === "cue") {
        const had = now.get(edit.id) ?? (kept && this.#cues.has(edit.id));
        const has = edit.cue !== null;
        if (had !== has) size += has ? 1 : -1;
        now.set(edit.id, has);
      }
    }
    return size > SHOW_MAX_CUES ? `a draft holds at most ${SHOW_MAX_CUES} cues` : null;
  }

  /** Applies `edits` from `by` at `nowMs` (checked first with `check`). */
  apply(by: string, edits: readonly DraftEdit[], nowMs: number): void {
    for (const edit of edits) {
      switch (edit.do) {
        case "cue":
          if (edit.cue === null) this.#cues.delete(edit.id);
          else this.#cues.set(edit.id, { by, cue: edit.cue });
          break;
        case "title":
          this.#title = edit.title;
          break;
        case "track":
          this.#track = edit.track;
          break;
        case "discard":
          this.#cues.clear();
          this.#title = "";
          this.#track = null;
          break;
      }
    }
    this.#editors.delete(by);
    this.#editors.set(by, nowMs);
    if (!this.open) this.#editors.clear();
  }

  /** A peer left: they are no longer named as an editor. */
  forget(peer: string): void {
    this.#editors.delete(peer);
  }

  /** The whole draft (null when none is open), naming who edited within DRAFT_EDITOR_MS. */
  state(nowMs = Infinity): DraftState | null {
    if (!this.open) return null;
    const editors: string[] = [];
    for (const [peer, at] of this.#editors) {
      if (nowMs === Infinity || nowMs - at <= DRAFT_EDITOR_MS) editors.unshift(peer);
    }
    return {
      title: this.#title,
      track: this.#track,
      cues: [...this.#cues].map(([id, { by, cue }]) => ({ id, by, cue })),
      editors: editors.slice(0, MAX_EDITORS),
    };
  }
}
