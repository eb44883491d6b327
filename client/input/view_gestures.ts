/**
 * Zoom gestures on the scene canvas: the mouse wheel (or a trackpad's scroll) and a two-finger
 * pinch zoom toward the point under the pointer, or between the fingers. Orbiting (one finger
 * or the left button) and panning (two fingers moving together, the right button) stay with
 * the orbit controls.
 */

/** What the gestures drive: a zoom toward the scene point under NDC (x, y). */
export interface ZoomTarget {
  /** Scales the view's distance to that point by `scale` (below 1 closer). */
  zoomAt(ndcX: number, ndcY: number, scale: number): number;
}

/**
 * Distance scale per 100 px of wheel travel (one notch of a mouse wheel): five notches bring the
 * camera about four times closer, so two flicks take the default view to the fountain.
 */
export const WHEEL_NOTCH_SCALE = 0.75;
/** Pixels per wheel line and per page, for wheels that count in those. */
const LINE_PX = 40;
const PAGE_PX = 800;

/**
 * The distance scale for one wheel event: below 1 (closer) for a scroll up/away.
 *
 * @example
 * ```ts
 * wheelScale(-100, WheelEvent.DOM_DELTA_PIXEL); // 0.75
 * ```
 */
export function wheelScale(deltaY: number, deltaMode: number): number {
  const px = deltaMode === 1 ? deltaY * LINE_PX : deltaMode === 2 ? deltaY * PAGE_PX : deltaY;
  // A single event counts for at most five notches (some trackpads send huge deltas).
  const clamped = Math.max(-500, Math.min(500, px));
  return Math.pow(WHEEL_NOTCH_SCALE, -clamped / 100);
}

/** Listens for wheel and pinch on `canvas` and zooms `target`. */
export class ViewGestures {
  private readonly canvas: HTMLElement;
  private readonly target: ZoomTarget;
  private readonly touches = new Map<number, { x: number; y: number }>();
  private pinchDistance = 0;
  private readonly abort = new AbortController();

  constructor(canvas: HTMLElement, target: ZoomTarget) {
    this.canvas = canvas;
    this.target = target;
    const signal = this.abort.signal;
    canvas.addEventListener("wheel", (event) => this.onWheel(event), { signal, passive: false });
    canvas.addEventListener("pointerdown", (event) => this.onDown(event), { signal });
    canvas.addEventListener("pointermove", (event) => this.onMove(event), { signal });
    for (const type of ["pointerup", "pointercancel"]) {
      canvas.addEventListener(type, (event) => this.onUp(event as PointerEvent), { signal });
    }
  }

  /** Removes every listener. */
  dispose(): void {
    this.abort.abort();
  }

  private ndc(clientX: number, clientY: number): [number, number] {
    const rect = this.canvas.getBoundingClientRect();
    return [
      ((clientX - rect.left) / rect.width) * 2 - 1,
      -((clientY - rect.top) / rect.height) * 2 + 1,
    ];
  }

  private onWheel(event: WheelEvent): void {
    event.preventDefault();
    if (event.deltaY === 0) return;
    const [x, y] = this.ndc(event.clientX, event.clientY);
    this.target.zoomAt(x, y, wheelScale(event.deltaY, event.deltaMode));
  }

  private onDown(event: PointerEvent): void {
    if (event.pointerType !== "touch") return;
    this.touches.set(event.pointerId, { x: event.clientX, y: event.clientY });
    if (this.touches.size === 2) this.pinchDistance = this.spread();
  }

  private onMove(event: PointerEvent): void {
    const touch = this.touches.get(event.pointerId);
    if (!touch) return;
    touch.x = event.clientX;
    touch.y = event.clientY;
    if (this.touches.size !== 2) return;
    const distance = this.spread();
    if (this.pinchDistance > 0 && distance > 0) {
      const [a, b] = [...this.touches.values()];
      const [x, y] = this.ndc((a.x + b.x) / 2, (a.y + b.y) / 2);
      // Fingers twice as far apart: the scene under them looks twice as big.
      this.target.zoomAt(x, y, this.pinchDistance / distance);
    }
    this.pinchDistance = distance;
  }

  private onUp(event: PointerEvent): void {
    this.touches.delete(event.pointerId);
    this.pinchDistance = this.touches.size === 2 ? this.spread() : 0;
  }

  private spread(): number {
    const [a, b] = [...this.touches.values()];
    return Math.hypot(a.x - b.x, a.y - b.y);
  }
}
