/**
 * The replay bar: where in the scene's history the view is, a scrubber over the kept log,
 * pause/play, speeds, back to live, share this moment, and saving a clip (with a recording
 * indicator). Pure DOM: it shows what it is told and reports what the user does.
 */
import { CLIP_MAX_SECONDS, CLIP_MIN_SECONDS, type ClipFormat } from "./clip_recorder.ts";
import { chip, closeChip, el, HiddenPanel, panelSection } from "../hud/dom.ts";

/** Playback speeds offered. */
export const SPEEDS = [0.25, 0.5, 1, 2, 4] as const;
/** Clip lengths offered, seconds. */
export const CLIP_LENGTHS = [5, 10, 15, 30, 60] as const;

/** What the user does on the bar. */
export interface TimelineActions {
  /** Dragging (`final` false) or released (`final` true) at `tick`. */
  seek(tick: number, final: boolean): void;
  /** Jump by `ticks` (negative: back). */
  jump(ticks: number): void;
  playPause(): void;
  speed(speed: number): void;
  live(): void;
  share(): void;
  record(seconds: number, format: ClipFormat): void;
  stopRecording(): void;
  close(): void;
  /** Watch from the oldest moment the scene keeps. */
  earliest(): void;
}

/** What the bar shows. */
export interface TimelineState {
  replaying: boolean;
  paused: boolean;
  /** "23:58:12" of the shown moment. */
  clock: string;
  loading: boolean;
}

/**
 * The bar, appended to `parent`.
 *
 * @example
 * ```ts
 * const bar = new Timeline(document.body, formats, actions);
 * bar.open();
 * bar.setRange(480, 36000);
 * bar.setPosition(30000);
 * ```
 */
export class Timeline extends HiddenPanel {
  readonly root: HTMLElement;
  readonly #actions: TimelineActions;
  readonly #state: HTMLElement;
  readonly #stateWord: HTMLElement;
  readonly #stateClock: HTMLElement;
  readonly #play: HTMLButtonElement;
  readonly #speed: HTMLSelectElement;
  readonly #live: HTMLButtonElement;
  readonly #range: HTMLInputElement;
  readonly #start: HTMLElement;
  readonly #note: HTMLElement;
  readonly #length: HTMLSelectElement;
  readonly #format: HTMLSelectElement;
  readonly #record: HTMLButtonElement;
  readonly #message: HTMLElement;
  readonly #messageText: HTMLElement;
  readonly #earliest: HTMLButtonElement;
  readonly #rec: HTMLElement;
  readonly #recText: HTMLElement;
  readonly #formats: ClipFormat[];
  #dragging = false;

  constructor(parent: HTMLElement, formats: ClipFormat[], actions: TimelineActions) {
    super();
    this.#actions = actions;
    this.#formats = formats;
    this.#stateWord = el("strong", {}, "Live");
    this.#stateClock = el("span", { className: "replay-clock" });
    this.#state = el(
      "p",
      { className: "replay-state", role: "status" } as Partial<HTMLParagraphElement>,
      el("span", { className: "replay-dot" }),
      this.#stateWord,
      " · ",
      this.#stateClock,
    );
    this.#play = chip("Pause", "Pause or play (K)", () => actions.playPause(), "replay-play");
    this.#speed = el("select", {
      className: "replay-speed",
      title: "Replay speed",
      onchange: () => actions.speed(Number(this.#speed.value)),
    });
    for (const speed of SPEEDS) {
      this.#speed.append(
        el("option", { value: String(speed), selected: speed === 1 }, `${speed}×`),
      );
    }
    this.#live = chip("Live", "Back to the live scene (L)", () => actions.live(), "replay-live");
    this.#range = el("input", {
      type: "range",
      className: "replay-range",
      min: "0",
      max: "1",
      step: "1",
      value: "1",
    });
    this.#range.setAttribute("aria-label", "Scene time: drag back to replay");
    this.#range.addEventListener("input", () => {
      this.#dragging = true;
      actions.seek(Number(this.#range.value), false);
    });
    this.#range.addEventListener("change", () => {
      this.#dragging = false;
      actions.seek(Number(this.#range.value), true);
    });
    this.#start = el("span", { className: "replay-start" });
    this.#note = el(
      "span",
      { className: "replay-note" },
      "Launches are off while you replay: Live (L) to launch again.",
    );
    this.#length = el("select", { className: "replay-length", title: "Clip length" });
    for (const seconds of CLIP_LENGTHS) {
      this.#length.append(el("option", { value: String(seconds) }, `${seconds} s`));
    }
    this.#format = el("select", { className: "replay-format", title: "Clip format" });
    formats.forEach((format, i) =>
      this.#format.append(el("option", { value: String(i) }, format.label))
    );
    this.#record = chip(
      "Save clip",
      "Record the scene with its sound, then download it",
      () =>
        actions.record(
          Math.min(CLIP_MAX_SECONDS, Math.max(CLIP_MIN_SECONDS, Number(this.#length.value))),
          this.#formats[Number(this.#format.value)],
        ),
      "replay-record",
    );
    if (formats.length === 0) {
      this.#record.disabled = true;
      this.#record.title = "This browser cannot record video";
    }
    this.#messageText = el("span");
    this.#earliest = chip(
      "Watch from there",
      "Replay from the oldest moment this scene keeps",
      () => actions.earliest(),
      "replay-earliest",
    );
    this.#message = el(
      "p",
      { className: "replay-message", hidden: true, role: "alert" } as Partial<
        HTMLParagraphElement
      >,
      this.#messageText,
      " ",
      this.#earliest,
      chip("Go live", "Back to the live scene", () => actions.live(), "replay-go-live"),
    );
    this.#recText = el("span", {}, "REC");
    this.#rec = el(
      "div",
      { className: "replay-rec", hidden: true, role: "status" } as Partial<HTMLDivElement>,
      el("span", { className: "replay-rec-dot" }),
      this.#recText,
      chip(
        "Stop",
        "Stop recording and save what was recorded",
        () => actions.stopRecording(),
        "replay-stop",
      ),
    );
    this.root = panelSection(
      "replay-bar",
      "replay-bar",
      "Replay and clips",
      el(
        "div",
        { className: "replay-row" },
        this.#state,
        chip("−10 s", "Back 10 seconds", () => actions.jump(-600), "replay-back"),
        this.#play,
        chip("+10 s", "Forward 10 seconds", () => actions.jump(600), "replay-forward"),
        el("label", { className: "replay-pick" }, "Speed ", this.#speed),
        this.#live,
        closeChip("replay", "Close (back to live)", "Close the replay bar", () => actions.close()),
      ),
      this.#range,
      el("div", { className: "replay-ends" }, this.#start, this.#note, el("span", {}, "now")),
      el(
        "div",
        { className: "replay-row" },
        chip(
          "Share this moment",
          "Copy a link that opens the scene at this moment",
          () => actions.share(),
          "replay-share",
        ),
        el("label", { className: "replay-pick" }, "Clip ", this.#length),
        this.#format,
        this.#record,
      ),
      this.#message,
    );
    parent.append(this.root);
    // The indicator stays in sight when the HUD is hidden.
    document.body.append(this.#rec);
  }

  /** The scrubber's span: the first exactly rebuilt tick to now. */
  setRange(min: number, max: number, startLabel: string): void {
    if (this.#dragging) return;
    this.#range.min = String(min);
    this.#range.max = String(Math.max(min, max));
    this.#start.textContent = startLabel;
  }

  /** Where the view is (the knob follows unless the user holds it). */
  setPosition(tick: number): void {
    if (!this.#dragging) this.#range.value = String(Math.round(tick));
  }

  setState(state: TimelineState): void {
    this.root.classList.toggle("replaying", state.replaying);
    // Loading is the dot's pulse, not words: the bar's controls keep their places.
    this.#stateWord.textContent = state.replaying ? "Replay" : "Live";
    this.root.classList.toggle("loading", state.replaying && state.loading);
    this.root.setAttribute("aria-busy", String(state.replaying && state.loading));
    this.#stateClock.textContent = state.clock;
    this.#play.textContent = state.paused ? "Play" : "Pause";
    this.#play.setAttribute("aria-pressed", String(state.paused));
    this.#play.disabled = !state.replaying;
    this.#live.disabled = !state.replaying;
    this.#note.hidden = !state.replaying;
  }

  /** Shows `speed` as chosen. */
  setSpeed(speed: number): void {
    this.#speed.value = String(speed);
  }

  /**
   * A message with a "Go live" button, or none; `earliest` adds "Watch from there" (a moment no
   * longer kept: the oldest kept one).
   */
  setMessage(text: string | null, earliest = false): void {
    this.#message.hidden = text === null;
    this.#messageText.textContent = text ?? "";
    this.#earliest.hidden = !earliest;
  }

  /** The recording indicator: seconds recorded of `length`, or hidden. */
  setRecording(seconds: number | null, length = 0): void {
    this.#rec.hidden = seconds === null;
    this.#record.disabled = seconds !== null || this.#formats.length === 0;
    if (seconds === null) return;
    const s = Math.floor(seconds);
    this.#recText.textContent = `REC ${s} s / ${length} s`;
  }
}
