/**
 * A scene's quick reactions, gathered into at most one frame every REACTION_FRAME_MS: the first
 * REACTION_NAMED of a frame by whom, the rest counted per emoji. A scene's reaction frames per
 * second are then bounded whatever its size (one reaction per person per frame made N² frames).
 * A reaction into a quiet scene goes out at once; the ones after it wait for the frame's end.
 *
 * @example
 * ```ts
 * import { ReactionTally } from "./reaction_tally.ts";
 * const tally = new ReactionTally();
 * console.log(tally.add("p1", "🎉", 0)); // {"t":"reactions","by":[{"by":"p1","emoji":"🎉"}]}
 * console.log(tally.add("p2", "🎉", 10)); // null: it waits for the frame's end
 * console.log(tally.flush(250)); // {"t":"reactions","by":[{"by":"p2","emoji":"🎉"}]}
 * ```
 */
import { type Reaction, REACTIONS } from "../../shared/protocol.ts";

/** At most one reaction frame per scene (and per server) this often. */
export const REACTION_FRAME_MS = 250;
/** Reactions a frame names by sender; later ones in the same frame are counted per emoji. */
export const REACTION_NAMED = 8;

/** A reaction a frame names by sender. */
type Named = { by: string; emoji: Reaction };

/** One scene's reactions waiting for their frame. */
export class ReactionTally {
  #named: Named[] = [];
  readonly #more: number[] = REACTIONS.map(() => 0);
  #counted = 0;
  /** When the next frame may go (monotonic ms). */
  #nextMs = -Infinity;

  /** True when reactions wait for their frame. */
  get pending(): boolean {
    return this.#named.length > 0;
  }

  /** Adds a reaction at `nowMs`; the frame to send now (when none went lately), else null. */
  add(by: string, emoji: Reaction, nowMs: number): string | null {
    if (this.#named.length < REACTION_NAMED) this.#named.push({ by, emoji });
    else {
      this.#more[REACTIONS.indexOf(emoji)]++;
      this.#counted++;
    }
    return this.flush(nowMs);
  }

  /** The frame of the reactions gathered, when one is due at `nowMs` (else null). */
  flush(nowMs: number): string | null {
    if (this.#named.length === 0 || nowMs < this.#nextMs) return null;
    this.#nextMs = nowMs + REACTION_FRAME_MS;
    const frame: { t: "reactions"; by: Named[]; more?: number[] } = {
      t: "reactions",
      by: this.#named,
    };
    if (this.#counted > 0) frame.more = [...this.#more];
    this.#named = [];
    this.#more.fill(0);
    this.#counted = 0;
    return JSON.stringify(frame);
  }
}
