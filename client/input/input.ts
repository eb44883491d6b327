/**
 * Turns pointer and keyboard input into requests: a click or tap launches a firework that bursts
 * where it was aimed (`aim.ts`: at the clicked sky point, or above the clicked ground); a long
 * press or the G key fires the particle gun from the camera along the view. Drags are left to the
 * orbit controls, the wheel and pinch to `view_gestures.ts`; a second finger makes the press a
 * gesture, never a launch. Keys: F or Enter launches ahead, G fires the gun, + and − zoom toward
 * the middle of the view, 0 or Home go back to the starting view.
 */
import * as THREE from "three";
import { GUN_ORIGIN_HALF_EXTENT, GUN_ORIGIN_HEIGHT } from "../../shared/constants.ts";
import { aimLaunch } from "./aim.ts";

/** What the input layer asks for. */
export interface InputActions {
  /** A firework from ground point (x, z) bursting at height y. */
  launch(x: number, z: number, y: number): void;
  gun(origin: [number, number, number], direction: [number, number, number]): void;
  /** Back to the starting view. */
  resetView(): void;
  /** Zooms toward the middle of the view by `scale` (below 1 closer). */
  zoom(scale: number): void;
}

/** Distance scale of one + key press (− is its inverse). */
const KEY_ZOOM_SCALE = 0.75;

/** Options for {@link Input}. */
export interface InputOptions {
  canvas: HTMLCanvasElement;
  camera: THREE.PerspectiveCamera;
  /** The point the camera orbits (the orbit controls' target); sky clicks burst near its depth. */
  focus: THREE.Vector3;
  actions: InputActions;
}

/** Pointer travel (px) beyond which a press is a drag, not a click. */
const DRAG_PIXELS = 8;
/**
 * The gun fires from this far right of and below the eye, metres: like a hand-held gun, so the
 * tracers run from the lower right into the view instead of sitting on the screen's centre.
 */
const GUN_SIDE = 3;
const GUN_DROP = 3.5;
/** A press held this long without moving fires the gun. */
const LONG_PRESS_MS = 550;
/** Pointer and keyboard handling for the scene canvas. */
export class Input {
  private readonly options: InputOptions;
  private readonly raycaster = new THREE.Raycaster();
  private readonly pointer = new THREE.Vector2();
  private readonly hit = new THREE.Vector3();
  private readonly forward = new THREE.Vector3();
  private readonly side = new THREE.Vector3();
  private readonly below = new THREE.Vector3();
  private readonly muzzle = new THREE.Vector3();
  private pressId: number | null = null;
  private pressX = 0;
  private pressY = 0;
  private dragged = false;
  private longPressTimer: ReturnType<typeof setTimeout> | undefined;
  private longPressFired = false;
  private readonly abort = new AbortController();

  constructor(options: InputOptions) {
    this.options = options;
    const signal = this.abort.signal;
    const canvas = options.canvas;
    canvas.addEventListener("pointerdown", (event) => this.onDown(event), { signal });
    canvas.addEventListener("pointermove", (event) => this.onMove(event), { signal });
    canvas.addEventListener("pointerup", (event) => this.onUp(event), { signal });
    canvas.addEventListener("pointercancel", () => this.cancelPress(), { signal });
    canvas.addEventListener("contextmenu", (event) => event.preventDefault(), { signal });
    document.addEventListener("keydown", (event) => this.onKey(event), { signal });
  }

  /** Launches a firework aimed at normalised device coordinates (x, y) ∈ [-1, 1]². */
  launchAtScreen(ndcX: number, ndcY: number): void {
    const camera = this.options.camera;
    camera.updateMatrixWorld();
    this.pointer.set(ndcX, ndcY);
    this.raycaster.setFromCamera(this.pointer, camera);
    aimLaunch(this.raycaster.ray, camera, this.options.focus, this.hit);
    const burst = this.hit;
    // Centimetres are plenty and keep the frame short.
    const cm = (value: number) => Math.round(value * 100) / 100;
    this.options.actions.launch(cm(burst.x), cm(burst.z), cm(burst.y));
  }

  /** Fires the particle gun from the camera along the view (the shots fly into the scene). */
  fireGun(): void {
    const camera = this.options.camera;
    camera.getWorldDirection(this.forward);
    this.side.crossVectors(this.forward, camera.up).normalize();
    this.below.crossVectors(this.side, this.forward).normalize();
    this.muzzle.copy(camera.position).addScaledVector(this.side, GUN_SIDE)
      .addScaledVector(this.below, -GUN_DROP);
    // The protocol takes any camera position the orbit controls allow; clamp for safety.
    const reach = GUN_ORIGIN_HALF_EXTENT;
    const cm = (value: number) => Math.round(value * 100) / 100;
    const x = cm(THREE.MathUtils.clamp(this.muzzle.x, -reach, reach));
    const y = cm(THREE.MathUtils.clamp(this.muzzle.y, 0, GUN_ORIGIN_HEIGHT));
    const z = cm(THREE.MathUtils.clamp(this.muzzle.z, -reach, reach));
    this.options.actions.gun([x, y, z], [this.forward.x, this.forward.y, this.forward.z]);
  }

  /** Removes every listener. */
  dispose(): void {
    this.cancelPress();
    this.abort.abort();
  }

  private onDown(event: PointerEvent): void {
    // A second finger: the press is a pinch or a two-finger pan, not a tap.
    if (!event.isPrimary && this.pressId !== null) {
      this.dragged = true;
      clearTimeout(this.longPressTimer);
      return;
    }
    if (!event.isPrimary || event.button !== 0) return;
    this.pressId = event.pointerId;
    this.pressX = event.clientX;
    this.pressY = event.clientY;
    this.dragged = false;
    this.longPressFired = false;
    clearTimeout(this.longPressTimer);
    const press = event.pointerId;
    this.longPressTimer = setTimeout(() => {
      // Decide at the next frame: a release that arrived while a slow frame held the main
      // thread is handled before it, so a quick click on a busy page stays a click.
      requestAnimationFrame(() => {
        if (this.pressId !== press || this.dragged) return;
        this.longPressFired = true;
        this.fireGun();
      });
    }, LONG_PRESS_MS);
  }

  private onMove(event: PointerEvent): void {
    if (event.pointerId !== this.pressId) return;
    const dx = event.clientX - this.pressX;
    const dy = event.clientY - this.pressY;
    if (dx * dx + dy * dy > DRAG_PIXELS * DRAG_PIXELS) {
      this.dragged = true;
      clearTimeout(this.longPressTimer);
    }
  }

  private onUp(event: PointerEvent): void {
    if (event.pointerId !== this.pressId) return;
    const isClick = !this.dragged && !this.longPressFired;
    this.cancelPress();
    if (!isClick) return;
    const rect = this.options.canvas.getBoundingClientRect();
    const ndcX = ((event.clientX - rect.left) / rect.width) * 2 - 1;
    const ndcY = -((event.clientY - rect.top) / rect.height) * 2 + 1;
    this.launchAtScreen(ndcX, ndcY);
  }

  private cancelPress(): void {
    this.pressId = null;
    clearTimeout(this.longPressTimer);
  }

  private onKey(event: KeyboardEvent): void {
    if (event.repeat || event.ctrlKey || event.metaKey || event.altKey) return;
    const target = event.target as HTMLElement | null;
    if (target?.closest?.("input, select, textarea, [contenteditable]")) return;
    // On a button Enter presses the button; the letter keys still go to the scene.
    const onButton = !!target?.closest?.("button, summary");
    if (event.key === "g" || event.key === "G") {
      this.fireGun();
      event.preventDefault();
    } else if (event.key === "f" || event.key === "F" || (event.key === "Enter" && !onButton)) {
      // Keyboard launch: a burst in the middle of the view.
      this.launchAtScreen(0, 0.15);
      event.preventDefault();
    } else if (event.key === "0" || event.key === "Home") {
      this.options.actions.resetView();
      event.preventDefault();
    } else if (event.key === "+" || event.key === "=") {
      this.options.actions.zoom(KEY_ZOOM_SCALE);
      event.preventDefault();
    } else if (event.key === "-" || event.key === "_") {
      this.options.actions.zoom(1 / KEY_ZOOM_SCALE);
      event.preventDefault();
    }
  }
}
