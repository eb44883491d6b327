/**
 * The countdown every page shows from the server's clock: "Finale in 4:32" in a corner, the last
 * ten seconds as one large number in the middle of the sky, "Finale!" while it plays; a stamped
 * show's start counts down the same way, titled (styles:
 * `.countdown` in static/host.css). The
 * remaining seconds are whole seconds of the scene's ticks (`ceil((zero − now) / 60)`), so every
 * page synced to the server shows the same number at the same moment.
 *
 * @example
 * ```ts
 * const countdown = new CountdownDisplay();
 * countdown.update(rules.current.countdown, net.clock.serverTick(performance.now()));
 * ```
 */
import { TICK_RATE } from "../../shared/constants.ts";
import { finaleEnd } from "../../shared/finale.ts";
import type { Countdown } from "../../shared/types.ts";

/** A show stamped to start at `tick` (its event's seq is `seq`). */
interface ComingShow {
  seq: number;
  tick: number;
  title: string;
}

/** The countdown overlay. */
export class CountdownDisplay {
  readonly element: HTMLElement;
  #shown = "";
  #left: number | null = null;
  /** Shows stamped to start later (a show's countdown is shown like a finale's). */
  #shows: ComingShow[] = [];

  constructor(parent: HTMLElement = document.body) {
    this.element = document.createElement("div");
    this.element.id = "countdown";
    this.element.className = "countdown";
    this.element.setAttribute("role", "timer");
    this.element.setAttribute("aria-live", "polite");
    this.element.hidden = true;
    parent.append(this.element);
  }

  /** Whole seconds the display counts now (a finale's or a show's), or null. */
  get left(): number | null {
    return this.#left;
  }

  /** Whole seconds to zero at `tick` (fractional server tick), or null with no countdown ahead. */
  static remaining(countdown: Countdown | null, tick: number): number | null {
    if (!countdown || tick >= countdown.tick) return null;
    return Math.ceil((countdown.tick - tick) / TICK_RATE);
  }

  /**
   * A show stamped to start at `tick` (a `show` event, or a live show in a welcome's snapshot):
   * its last seconds count down like a finale's, titled.
   */
  showAt(seq: number, tick: number, title: string): void {
    if (this.#shows.some((show) => show.seq === seq)) return;
    this.#shows.push({ seq, tick, title });
    if (this.#shows.length > 8) this.#shows.shift();
  }

  /** A show cancelled: no countdown for it. */
  showCancelled(seq: number): void {
    this.#shows = this.#shows.filter((show) => show.seq !== seq);
  }

  /** Forgets every show (a fresh welcome names the live ones again). */
  clearShows(): void {
    this.#shows = [];
  }

  /** The next show to start after `tick`, if any (the past ones are dropped). */
  #nextShow(tick: number): ComingShow | undefined {
    this.#shows = this.#shows.filter((show) => show.tick > tick);
    let next: ComingShow | undefined;
    for (const show of this.#shows) if (!next || show.tick < next.tick) next = show;
    return next;
  }

  /**
   * Shows `countdown` at server tick `tick` (writes only on change); with no finale ahead, the
   * next show's countdown ("“Title” in 0:42", then its last ten seconds large).
   */
  update(countdown: Countdown | null, tick: number): void {
    let left = CountdownDisplay.remaining(countdown, tick);
    const show = left === null ? this.#nextShow(tick) : undefined;
    if (show) left = Math.ceil((show.tick - tick) / TICK_RATE);
    this.#left = left;
    let text = "";
    let big = false;
    if (left !== null) {
      big = left <= 10;
      const m = Math.floor(left / 60);
      const s = left % 60;
      const what = show ? `“${show.title}”` : "Finale";
      text = big ? String(left) : `${what} in ${m}:${String(s).padStart(2, "0")}`;
    } else if (countdown && tick < finaleEnd(countdown)) text = "Finale!";
    const key = `${text}|${big}`;
    if (key === this.#shown) return;
    this.#shown = key;
    this.element.hidden = text === "";
    this.element.textContent = text;
    this.element.classList.toggle("big", big);
    this.element.dataset.remaining = left === null ? "" : String(left);
  }
}
