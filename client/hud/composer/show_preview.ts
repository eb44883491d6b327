/**
 * Previewing a show on this page only: a world of its own, started from the live scene's
 * settings (snow, wind, fountain, colours), in which the show's cues launch as the preview
 * reaches them. Nothing is sent; the live world keeps running underneath, and stopping binds it
 * again for drawing (as the replay does).
 */
import { TICK_MS } from "../../../shared/constants.ts";
import type { SceneEvent } from "../../../shared/types.ts";
import { type World, worldFromWindow } from "../../../shared/world.ts";
import type { ShowCue } from "./cue_model.ts";

/** A preview from show tick P starts this many ticks earlier, so bursts already up are seen. */
const LOOKBACK_TICKS = 240;
/** The preview ends this long after its last cue (a burst's life). */
const TAIL_TICKS = 420;

/** The launch events of `cues` previewed from show tick `from`, with show tick P at `base`. */
export function previewEvents(
  cues: readonly ShowCue[],
  from: number,
  base: number,
): SceneEvent[] {
  const events: SceneEvent[] = [];
  let seq = 1;
  for (const cue of cues) {
    if (cue.at < from - LOOKBACK_TICKS) continue;
    const { at, ...launch } = cue;
    events.push({
      seq: seq++,
      tick: base + at - from,
      by: "preview",
      body: { type: "launch", ...launch },
    });
  }
  return events.sort((a, b) => a.tick - b.tick || a.seq - b.seq);
}

/** A running preview. */
export class ShowPreview {
  readonly world: World;
  /** World tick of show tick `from`. */
  readonly #base: number;
  readonly #from: number;
  readonly #end: number;
  readonly #events: SceneEvent[];
  #time: number;
  #lastNow = NaN;
  #next = 0;

  /**
   * A preview of `cues` from show tick `from`, in a world like `live` (its seed and settings).
   * Throws when the show does not fit the sky (the world's own check).
   */
  constructor(live: World, cues: readonly ShowCue[], from: number) {
    const start = live.snapshot();
    this.#base = start.tick + LOOKBACK_TICKS;
    this.#from = from;
    this.#events = previewEvents(cues, from, this.#base);
    const last = this.#events.at(-1)?.tick ?? this.#base;
    this.#end = Math.max(this.#base, last) + TAIL_TICKS;
    this.world = worldFromWindow({
      seed: live.seed,
      snapshot: start,
      events: this.#events,
      tick: this.#base,
    });
    this.#time = this.#base;
    while (this.#next < this.#events.length && this.#events[this.#next].tick < this.#base) {
      this.#next++;
    }
  }

  /** The show tick the preview shows now. */
  get showTick(): number {
    return this.#from + (this.#time - this.#base);
  }

  /** True once the last burst has faded. */
  get done(): boolean {
    return this.#time >= this.#end;
  }

  /**
   * Moves the preview on to `nowMs`; `due` hears each launch as it is reached (for its sound).
   * Returns the (fractional) world tick to draw.
   */
  frame(
    nowMs: number,
    budgetMs: number,
    clock: () => number,
    due: (event: SceneEvent) => void,
  ): number {
    const elapsed = Number.isNaN(this.#lastNow) ? 0 : Math.min(250, nowMs - this.#lastNow);
    this.#lastNow = nowMs;
    this.#time += elapsed / TICK_MS;
    const goal = Math.ceil(this.#time);
    const started = clock();
    while (this.world.tick < goal) {
      while (
        this.#next < this.#events.length && this.#events[this.#next].tick <= this.world.tick
      ) due(this.#events[this.#next++]);
      this.world.step();
      if (clock() - started > budgetMs) break;
    }
    if (this.#time > this.world.tick) this.#time = this.world.tick;
    return this.#time;
  }
}
