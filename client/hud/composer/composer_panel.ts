/**
 * The composer's panel, pure DOM: a title, a time line of cues (the replay bar's look: a range
 * for the playhead, the show's cues below it in rows so none covers another, the music's
 * waveform and beats behind them), and the tools: add, copy, paste, delete, kind and colours,
 * preview, play for everyone, music, snap to beats, export and import. It shows what it is told
 * (`render`) and reports what the person does; dragging a cue reports its new tick as it moves.
 */
import { TICK_RATE } from "../../../shared/constants.ts";
import { type FireworkKind } from "../../../shared/firework_kinds.ts";
import { type Theme, THEMES } from "../../../shared/types.ts";
import { kindWords, THEME_LABELS } from "../event_text.ts";
import { cueRows, type DraftCue, showTime } from "./cue_model.ts";
import { drawWave, type Waveform } from "./wave_draw.ts";
import { chip, closeChip, el, HiddenPanel, panelSection } from "../dom.ts";

/** What the person does on the panel. */
export interface ComposerPanelActions {
  close(): void;
  title(text: string): void;
  add(): void;
  copy(): void;
  paste(): void;
  remove(): void;
  /** A cue pressed (toggles its selection). */
  select(id: string): void;
  /** A cue dragged to `at` (`final` once released). */
  drag(id: string, at: number, final: boolean): void;
  playhead(tick: number): void;
  kind(kind: FireworkKind | undefined): void;
  theme(theme: Theme | undefined): void;
  preview(): void;
  playForEveryone(): void;
  snap(on: boolean): void;
  music(file: File): void;
  exportShow(): void;
  /** Copy the link of the show last played for everyone. */
  copyLink(): void;
  importFile(file: File): void;
  zoom(step: 1 | -1): void;
}

/** Someone else working on a cue. */
export interface Editor {
  name: string;
  color: string;
}

/** What the panel shows. */
export interface ComposerView {
  title: string;
  cues: readonly DraftCue[];
  selected: ReadonlySet<string>;
  /** Cue id → who else is editing it. */
  editing: ReadonlyMap<string, Editor>;
  playhead: number;
  /** Ticks the time line spans. */
  span: number;
  zoom: number;
  previewing: boolean;
  canPaste: boolean;
  /** Why Play for everyone is off, or null when it is on. */
  stampBlocked: string | null;
  snap: boolean;
  /** Beats as show ticks (empty without music). */
  beats: readonly number[];
  wave: Waveform | null;
  /** "Music: name" or "No music". */
  trackLabel: string;
  /** The link of the show this page last played for everyone, or null. */
  showLink: string | null;
  /** Why Music… is off (only hosts add music), or null. */
  musicBlocked: string | null;
  /** The kind and colours new cues get (and the selected cue has). */
  kind: FireworkKind | undefined;
  theme: Theme | undefined;
  /** One line: who else composes, counts, hints. */
  status: string;
}

/** Cue chips' size in CSS px: a finger's on a touch screen. */
function chipSize(): { w: number; h: number } {
  return matchMedia("(pointer: coarse)").matches ? { w: 44, h: 46 } : { w: 22, h: 26 };
}

/** Why Copy show link is off. */
const LINK_OFF_TITLE = "Play a show for everyone first: its link opens the replay at its start";
const MUSIC_TITLE = "Choose a music track (mp3, ogg, m4a or wav, up to 20 MB)";
const STAMP_TITLE = "Everyone in the scene sees the show, after a short countdown";

/** The composer's tool chips (class `composer-<name>`): text and tooltip. */
const TOOLS = {
  add: ["Add cue", "A cue at the playhead, in the middle of the sky (or click the sky)"],
  copy: ["Copy", "Copy the selected cues (Ctrl+C)"],
  paste: ["Paste", "Paste at the playhead (Ctrl+V)"],
  delete: ["Delete", "Delete the selected cues (Delete)"],
  "zoom-out": ["−", "Show more of the time line"],
  "zoom-in": ["+", "Show the time line larger"],
  preview: ["Preview", "Play the show on this page only, from the playhead"],
  stamp: ["Play for everyone", STAMP_TITLE],
  link: ["Copy show link", "A link that opens the replay at this show's start"],
  music: ["Music…", MUSIC_TITLE],
  snap: ["Snap to beats", "Cues dragged or moved land on the music's beats"],
  export: ["Export", "Save the show as a file"],
  import: ["Import…", "Open a show file"],
} as const;

/** The tool chip `name` of TOOLS, `onclick` when pressed. */
function tool(name: keyof typeof TOOLS, onclick: () => void): HTMLButtonElement {
  const [text, title] = TOOLS[name];
  return chip(text, title, onclick, `composer-${name}`);
}

/** Pointer travel (px) before a press on a cue becomes a drag. */
const DRAG_PIXELS = 5;
/** Height of the playhead row above the cues, px. */
const HEAD_ROW = 30;

/**
 * The composer panel.
 *
 * @example
 * ```ts
 * const panel = new ComposerPanel(document.querySelector(".hud-middle")!, kinds, actions);
 * panel.open();
 * panel.render(view);
 * ```
 */
export class ComposerPanel extends HiddenPanel {
  readonly root: HTMLElement;
  readonly #a: ComposerPanelActions;
  readonly #title: HTMLInputElement;
  readonly #status: HTMLElement;
  readonly #lane: HTMLElement;
  readonly #content: HTMLElement;
  readonly #range: HTMLInputElement;
  readonly #cueLayer: HTMLElement;
  readonly #line: HTMLElement;
  readonly #wave: HTMLCanvasElement;
  readonly #time: HTMLElement;
  readonly #kind: HTMLSelectElement;
  readonly #theme: HTMLSelectElement;
  readonly #copy: HTMLButtonElement;
  readonly #paste: HTMLButtonElement;
  readonly #remove: HTMLButtonElement;
  readonly #preview: HTMLButtonElement;
  readonly #stamp: HTMLButtonElement;
  readonly #snap: HTMLButtonElement;
  readonly #track: HTMLElement;
  readonly #music: HTMLButtonElement;
  readonly #link: HTMLButtonElement;
  readonly #zoomIn: HTMLButtonElement;
  readonly #zoomOut: HTMLButtonElement;
  readonly #musicInput: HTMLInputElement;
  readonly #importInput: HTMLInputElement;
  readonly #chips = new Map<string, HTMLButtonElement>();
  #view: ComposerView | null = null;
  /** The tick of the pixel x in the lane's content, and back. */
  #pxPerTick = 1;
  #padX = 12;
  #drag: { id: string; x0: number; at0: number; moved: boolean; pointer: number } | null = null;
  #waveKey = "";

  constructor(parent: HTMLElement, kinds: readonly string[], actions: ComposerPanelActions) {
    super();
    this.#a = actions;
    this.#title = el("input", {
      className: "composer-title",
      type: "text",
      maxLength: 80,
      placeholder: "Untitled show",
      ariaLabel: "Show title",
      enterKeyHint: "done",
    } as Partial<HTMLInputElement>);
    this.#title.addEventListener("change", () => actions.title(this.#title.value.trim()));
    this.#status = el("p", { className: "composer-status small", role: "status" } as Partial<
      HTMLParagraphElement
    >);
    this.#time = el("span", { className: "composer-time" });
    this.#range = el("input", {
      type: "range",
      className: "composer-range",
      min: "0",
      max: "1800",
      step: "6",
      value: "0",
    });
    this.#range.setAttribute("aria-label", "Playhead: where cues are added and preview starts");
    this.#range.addEventListener("input", () => actions.playhead(Number(this.#range.value)));
    this.#wave = el("canvas", { className: "composer-wave" });
    this.#wave.setAttribute("aria-hidden", "true");
    this.#line = el("div", { className: "composer-line" });
    this.#cueLayer = el("div", { className: "composer-cues" });
    this.#cueLayer.setAttribute("aria-label", "Cues");
    this.#content = el(
      "div",
      { className: "composer-content" },
      this.#wave,
      this.#range,
      this.#cueLayer,
      this.#line,
    );
    this.#lane = el("div", { className: "composer-lane" }, this.#content);
    // A press on the lane's empty space moves the playhead there.
    this.#cueLayer.addEventListener("pointerdown", (event) => {
      if (event.target !== this.#cueLayer) return;
      actions.playhead(this.#tickAt(event.clientX));
    });
    this.#kind = el("select", { className: "composer-kind", title: "Kind of firework" });
    const option = (value: string, label: string) => el("option", { value }, label);
    this.#kind.append(
      option("", "Peony"),
      ...kinds.filter((k) => k !== "peony").map((k) =>
        option(k, kindWords(k).replace(/^./, (c) => c.toUpperCase()))
      ),
    );
    this.#kind.addEventListener(
      "change",
      () => actions.kind((this.#kind.value || undefined) as FireworkKind | undefined),
    );
    this.#theme = el("select", { className: "composer-theme", title: "Colours" });
    this.#theme.append(
      option("", "Scene colours"),
      ...THEMES.map((t) => option(t, THEME_LABELS[t])),
    );
    this.#theme.addEventListener(
      "change",
      () => actions.theme((this.#theme.value || undefined) as Theme | undefined),
    );
    this.#copy = tool("copy", () => actions.copy());
    this.#paste = tool("paste", () => actions.paste());
    this.#remove = tool("delete", () => actions.remove());
    this.#preview = tool("preview", () => actions.preview());
    this.#preview.setAttribute("aria-pressed", "false");
    this.#stamp = tool("stamp", () => actions.playForEveryone());
    this.#snap = tool(
      "snap",
      () => actions.snap(this.#snap.getAttribute("aria-pressed") !== "true"),
    );
    this.#snap.setAttribute("aria-pressed", "false");
    this.#musicInput = el("input", { type: "file", accept: "audio/*,.mp3,.ogg,.opus,.m4a,.wav" });
    this.#importInput = el("input", { type: "file", accept: "application/json,.json" });
    for (const input of [this.#musicInput, this.#importInput]) {
      input.className = "composer-file visually-hidden";
      input.tabIndex = -1;
      input.setAttribute("aria-hidden", "true");
    }
    this.#musicInput.addEventListener("change", () => {
      const file = this.#musicInput.files?.[0];
      this.#musicInput.value = "";
      if (file) actions.music(file);
    });
    this.#importInput.addEventListener("change", () => {
      const file = this.#importInput.files?.[0];
      this.#importInput.value = "";
      if (file) actions.importFile(file);
    });
    this.#track = el("span", { className: "composer-track small" }, "No music");
    this.#music = tool("music", () => this.#musicInput.click());
    this.#link = tool("link", () => actions.copyLink());
    this.#link.disabled = true;
    this.#zoomOut = tool("zoom-out", () => actions.zoom(-1));
    this.#zoomOut.setAttribute("aria-label", "Zoom out the time line");
    this.#zoomIn = tool("zoom-in", () => actions.zoom(1));
    this.#zoomIn.setAttribute("aria-label", "Zoom in the time line");
    const head = el(
      "div",
      { className: "composer-row composer-head" },
      el("h2", { className: "picker-heading composer-heading" }, "Show"),
      this.#title,
      this.#time,
      closeChip(
        "composer",
        "Close the composer (Esc)",
        "Close the composer",
        () => actions.close(),
      ),
    );
    this.root = panelSection(
      "composer-panel",
      "composer",
      "Show composer",
      head,
      this.#lane,
      el(
        "div",
        { className: "composer-row" },
        tool("add", () => actions.add()),
        this.#copy,
        this.#paste,
        this.#remove,
        el("label", { className: "composer-pick" }, "Kind ", this.#kind),
        el("label", { className: "composer-pick" }, "Colours ", this.#theme),
        this.#zoomOut,
        this.#zoomIn,
      ),
      el(
        "div",
        { className: "composer-row" },
        this.#preview,
        this.#stamp,
        this.#link,
        this.#music,
        this.#snap,
        tool("export", () => actions.exportShow()),
        tool("import", () => this.#importInput.click()),
        this.#track,
        this.#musicInput,
        this.#importInput,
      ),
      this.#status,
    );
    parent.append(this.root);
    new ResizeObserver(() => this.#view && this.render(this.#view)).observe(this.#lane);
  }

  /** The cue chip for `id` (for tests and focus). */
  chip(id: string): HTMLButtonElement | undefined {
    return this.#chips.get(id);
  }

  /** Shows `view`; cheap when little changed (chips are kept and moved, not rebuilt). */
  render(view: ComposerView): void {
    this.#view = view;
    if (this.root.hidden) return;
    if (document.activeElement !== this.#title && this.#title.value !== view.title) {
      this.#title.value = view.title;
    }
    const { w, h } = chipSize();
    const width = Math.max(120, this.#lane.clientWidth - 2);
    this.#padX = w / 2 + 4;
    // At least a second per chip (a finger's chip on a phone: the line scrolls), then the zoom.
    const fit = Math.max(width - 2 * this.#padX, (view.span * (w + 3)) / TICK_RATE);
    const inner = fit * view.zoom;
    this.#pxPerTick = inner / Math.max(1, view.span);
    const { row, rows } = cueRows(view.cues, (w + 3) / this.#pxPerTick);
    const height = HEAD_ROW + rows * h + 4;
    this.#content.style.width = `${inner + 2 * this.#padX}px`;
    this.#content.style.height = `${height}px`;
    // The range spans the lane's visible width (sticky in it), not the zoomed line: a hand
    // reaches all of it without scrolling; the playhead line marks the spot on the line.
    this.#range.style.width = `${width - 16}px`;
    this.#range.max = String(view.span);
    if (Number(this.#range.value) !== view.playhead) this.#range.value = String(view.playhead);
    this.#line.style.left = `${this.#x(view.playhead)}px`;
    this.#time.textContent = showTime(view.playhead);
    // Cue chips: kept by id, moved and relabelled.
    const seen = new Set<string>();
    for (const cue of view.cues) {
      seen.add(cue.id);
      let chip = this.#chips.get(cue.id);
      if (!chip) {
        chip = this.#newChip(cue.id);
        this.#chips.set(cue.id, chip);
        this.#cueLayer.append(chip);
      }
      chip.style.left = `${this.#x(cue.at) - w / 2}px`;
      chip.style.top = `${(row.get(cue.id) ?? 0) * h}px`;
      const selected = view.selected.has(cue.id);
      chip.setAttribute("aria-pressed", String(selected));
      const editor = view.editing.get(cue.id);
      chip.style.setProperty("--editor", editor?.color ?? "transparent");
      chip.classList.toggle("edited", !!editor);
      chip.dataset.kind = cue.kind ?? "peony";
      chip.dataset.theme = cue.theme ?? "";
      chip.textContent = (cue.kind ?? "peony").charAt(0).toUpperCase();
      const words = `${kindWords(cue.kind ?? "peony")} at ${showTime(cue.at)}` +
        (cue.theme ? `, ${THEME_LABELS[cue.theme].toLowerCase()}` : "") +
        (editor ? `, ${editor.name} is editing` : "");
      chip.setAttribute("aria-label", words);
      chip.title = words;
      if (editor) {
        const tag = el("span", { className: "composer-editor" }, editor.name);
        chip.append(tag);
      }
    }
    for (const [id, chip] of this.#chips) {
      if (seen.has(id)) continue;
      chip.remove();
      this.#chips.delete(id);
    }
    const none = view.selected.size === 0;
    this.#copy.disabled = none;
    this.#remove.disabled = none;
    this.#paste.disabled = !view.canPaste;
    this.#preview.textContent = view.previewing ? "Stop preview" : "Preview";
    this.#preview.setAttribute("aria-pressed", String(view.previewing));
    this.#preview.disabled = view.cues.length === 0 && !view.previewing;
    this.#stamp.disabled = view.stampBlocked !== null;
    this.#stamp.title = view.stampBlocked ?? STAMP_TITLE;
    this.#snap.setAttribute("aria-pressed", String(view.snap));
    this.#snap.disabled = view.beats.length === 0;
    this.#zoomOut.disabled = view.zoom <= 1;
    this.#zoomIn.disabled = view.zoom >= 16;
    this.#track.textContent = view.trackLabel;
    this.#music.disabled = view.musicBlocked !== null;
    // Off, not hidden, until a show is played: a chip appearing would push Music… and the rest
    // of the row from under a finger already on its way (seen at 390×844 and 844×390).
    this.#link.disabled = view.showLink === null;
    this.#link.title = view.showLink === null ? LINK_OFF_TITLE : TOOLS.link[1];
    this.#music.title = view.musicBlocked ?? MUSIC_TITLE;
    if (this.#kind.value !== (view.kind ?? "")) this.#kind.value = view.kind ?? "";
    if (this.#theme.value !== (view.theme ?? "")) this.#theme.value = view.theme ?? "";
    this.#status.textContent = view.status;
    const key = `${inner}|${height}|${view.span}|${view.beats.length}|${view.wave?.peaks.length}`;
    if (key !== this.#waveKey) {
      this.#waveKey = key;
      this.#wave.style.width = `${inner + 2 * this.#padX}px`;
      this.#wave.style.height = `${height}px`;
      drawWave(this.#wave, view.wave, view.beats, {
        padX: this.#padX,
        pxPerTick: this.#pxPerTick,
        top: HEAD_ROW,
      });
    }
  }

  /** Scrolls the lane so `tick` is in view (the playhead during a preview). */
  follow(tick: number): void {
    const x = this.#x(tick);
    const lane = this.#lane;
    if (x < lane.scrollLeft + 20 || x > lane.scrollLeft + lane.clientWidth - 20) {
      lane.scrollLeft = Math.max(0, x - lane.clientWidth / 3);
    }
  }

  #x(tick: number): number {
    return this.#padX + tick * this.#pxPerTick;
  }

  #tickAt(clientX: number): number {
    const r = this.#content.getBoundingClientRect();
    return Math.max(0, Math.round((clientX - r.left - this.#padX) / this.#pxPerTick));
  }

  #newChip(id: string): HTMLButtonElement {
    const chip = el("button", { type: "button", className: "composer-cue" });
    chip.dataset.id = id;
    chip.addEventListener("pointerdown", (event) => {
      if (event.button !== 0) return;
      const cue = this.#view?.cues.find((c) => c.id === id);
      if (!cue) return;
      chip.setPointerCapture(event.pointerId);
      this.#drag = { id, x0: event.clientX, at0: cue.at, moved: false, pointer: event.pointerId };
    });
    chip.addEventListener("pointermove", (event) => {
      const drag = this.#drag;
      if (!drag || drag.pointer !== event.pointerId) return;
      const dx = event.clientX - drag.x0;
      if (!drag.moved && Math.abs(dx) < DRAG_PIXELS) return;
      drag.moved = true;
      this.#a.drag(id, drag.at0 + dx / this.#pxPerTick, false);
    });
    const end = (event: PointerEvent, cancelled: boolean) => {
      const drag = this.#drag;
      if (!drag || drag.pointer !== event.pointerId) return;
      this.#drag = null;
      if (drag.moved) {
        this.#a.drag(
          id,
          cancelled ? drag.at0 : drag.at0 + (event.clientX - drag.x0) / this.#pxPerTick,
          true,
        );
      } else if (!cancelled) {
        // A press that did not move selects on its release, not on the click that may follow:
        // a touch held a little long (or slowed by a busy page) becomes a long press, which
        // makes no click, and a person would see their tap ignored.
        this.#a.select(id);
      }
    };
    chip.addEventListener("pointerup", (event) => end(event, false));
    chip.addEventListener("pointercancel", (event) => end(event, true));
    // Enter and Space select too (their click has no pointer behind it: detail 0).
    chip.addEventListener("click", (event) => {
      if (event.detail === 0) this.#a.select(id);
    });
    return chip;
  }
}
