/**
 * Whose burst: a short name label in the launcher's colour by each person's burst, for about two
 * seconds after it bursts, following the burst point on screen as the camera moves. The burst
 * point and tick come from the plan the world simulates (`burstCues`), the name and colour from
 * presence; show launches get none. Labels are a small pool of DOM elements made once; every
 * frame projects each live label's point with one scratch vector and writes its position only
 * when it moved by a pixel (styles: `.burst-label` in static/overlays.css).
 *
 * @example
 * ```ts
 * const labels = new BurstLabels(document.body);
 * labels.add(event.tick + 80, 0, 40, 0, "Ana", "#ffcc66");
 * // each frame: labels.update(renderTick, camera, canvas.clientWidth, canvas.clientHeight);
 * ```
 */
import { type PerspectiveCamera, Vector3 } from "three";
import { TICK_RATE } from "../../shared/constants.ts";
import { spanPool } from "./dom.ts";

/** Most labels at once (the oldest is reused past it). */
export const MAX_BURST_LABELS = 16;
/** A label shows this long after its burst, fading over the last FADE_TICKS. */
export const LABEL_TICKS = 2 * TICK_RATE;
const FADE_TICKS = Math.round(0.6 * TICK_RATE);
/** The label sits this far (m) below the burst point, under the brightest part of the shell. */
const BELOW_M = 4;

/** Where a label is kept for `BurstLabels.add` to fill. */
interface Label {
  el: HTMLElement;
  /** Burst tick, or -1 when free. */
  tick: number;
  x: number;
  y: number;
  z: number;
  /** Last written pixel position and opacity step (writes happen only on change). */
  px: number;
  py: number;
  alpha: number;
}

/** The pool of burst labels. */
export class BurstLabels {
  /** Off: no label is shown (the page's switch; remembered by main.ts). */
  enabled = true;
  readonly #labels: Label[] = [];
  readonly #point = new Vector3();
  #next = 0;

  constructor(parent: HTMLElement = document.body) {
    const { spans } = spanPool(parent, "burst-labels", "burst-label", MAX_BURST_LABELS);
    for (const el of spans) {
      this.#labels.push({ el, tick: -1, x: 0, y: 0, z: 0, px: NaN, py: NaN, alpha: -1 });
    }
  }

  /**
   * Labels a burst at `tick`, point (x, y, z), with `name` in `color`. One label per person: a
   * newer burst of someone already labelled moves their label (eight side by side made one
   * unreadable strip of names).
   */
  add(tick: number, x: number, y: number, z: number, name: string, color: string): void {
    if (!this.enabled) return;
    let label = this.#labels.find((l) => l.tick >= 0 && l.el.textContent === name);
    if (!label) {
      label = this.#labels[this.#next];
      this.#next = (this.#next + 1) % MAX_BURST_LABELS;
    }
    label.tick = tick;
    label.x = x;
    label.y = y - BELOW_M;
    label.z = z;
    label.px = label.py = NaN;
    label.alpha = -1;
    label.el.textContent = name;
    label.el.style.color = color;
    label.el.hidden = true;
  }

  /** Hides every label (the switch turned off, or the replay took the screen). */
  clear(): void {
    for (const label of this.#labels) {
      label.tick = -1;
      label.el.hidden = true;
    }
  }

  /** Positions the labels for render time `tick` seen by `camera` on a `width`×`height` canvas. */
  update(tick: number, camera: PerspectiveCamera, width: number, height: number): void {
    for (const label of this.#labels) {
      if (label.tick < 0) continue;
      const age = tick - label.tick;
      if (age >= LABEL_TICKS) {
        label.tick = -1;
        label.el.hidden = true;
        continue;
      }
      const p = this.#point.set(label.x, label.y, label.z).project(camera);
      const visible = age >= 0 && this.enabled && p.z < 1 && p.x > -1.2 && p.x < 1.2 &&
        p.y > -1.2 && p.y < 1.2;
      if (label.el.hidden === visible) label.el.hidden = !visible;
      if (!visible) continue;
      const px = Math.round((p.x + 1) * 0.5 * width);
      const py = Math.round((1 - p.y) * 0.5 * height);
      if (px !== label.px || py !== label.py) {
        label.px = px;
        label.py = py;
        label.el.style.transform = `translate(${px}px, ${py}px) translate(-50%, 0)`;
      }
      // Opacity in tenths: full until the fade, then down to 0.
      const alpha = Math.max(0, Math.min(10, Math.ceil(((LABEL_TICKS - age) / FADE_TICKS) * 10)));
      if (alpha !== label.alpha) {
        label.alpha = alpha;
        label.el.style.opacity = String(alpha / 10);
      }
    }
  }

  /**
   * The live labels (for tests): name, colour, burst tick, whether showing now, pixel position
   * (NaN until first shown).
   */
  shown(): { name: string; color: string; tick: number; visible: boolean; x: number; y: number }[] {
    return this.#labels.filter((l) => l.tick >= 0).map((l) => ({
      name: l.el.textContent ?? "",
      color: l.el.style.color,
      tick: l.tick,
      visible: !l.el.hidden,
      x: l.px,
      y: l.py,
    }));
  }
}
