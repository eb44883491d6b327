/**
 * The countdown every page shows from the server's clock: "Finale in 4:32" in a corner, the last
 * ten seconds as one large number in the middle of the sky, "Finale!" while it plays (styles:
 * `.countdown` in static/style.css). The
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

/** The countdown overlay. */
export class CountdownDisplay {
  readonly element: HTMLElement;
  #shown = "";

  constructor(parent: HTMLElement = document.body) {
    this.element = document.createElement("div");
    this.element.id = "countdown";
    this.element.className = "countdown";
    this.element.setAttribute("role", "timer");
    this.element.setAttribute("aria-live", "polite");
    this.element.hidden = true;
    parent.append(this.element);
  }

  /** Whole seconds to zero at `tick` (fractional server tick), or null with no countdown ahead. */
  static remaining(countdown: Countdown | null, tick: number): number | null {
    if (!countdown || tick >= countdown.tick) return null;
    return Math.ceil((countdown.tick - tick) / TICK_RATE);
  }

  /** Shows `countdown` at server tick `tick` (writes only on change). */
  update(countdown: Countdown | null, tick: number): void {
    const left = CountdownDisplay.remaining(countdown, tick);
    let text = "";
    let big = false;
    if (left !== null) {
      big = left <= 10;
      const m = Math.floor(left / 60);
      const s = left % 60;
      text = big ? String(left) : `Finale in ${m}:${String(s).padStart(2, "0")}`;
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
