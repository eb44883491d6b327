/**
 * The countdown every page shows from the server's clock: "Finale in 4:32" in a corner, the last
 * ten seconds as one large number in the middle of the sky, "Finale!" while it plays. The
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

const STYLE = `
.countdown { position: fixed; top: 12px; right: 12px; z-index: 5; pointer-events: none;
  font: 600 15px/1.3 system-ui, sans-serif; color: #fff; background: rgba(10, 16, 32, 0.7);
  padding: 6px 10px; border-radius: 8px; }
.countdown.big { top: 38%; left: 50%; right: auto; transform: translate(-50%, -50%);
  font-size: clamp(64px, 18vw, 160px); background: none; text-shadow: 0 0 24px #ffb347; }
`;

/** The countdown overlay. */
export class CountdownDisplay {
  readonly element: HTMLElement;
  #shown = "";

  constructor(parent: HTMLElement = document.body) {
    const style = document.createElement("style");
    style.textContent = STYLE;
    document.head.append(style);
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
