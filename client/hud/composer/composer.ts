/**
 * The show composer on the page: the panel, the shared draft, placing cues by clicking the sky,
 * keys, a local preview, music, export and import, and Play for everyone.
 *
 * - Hosts and the people a host lets compose share one draft: every edit goes to the server as a
 *   `draft` frame and comes back relayed, in the server's order, to every composer (this page
 *   too); a cue someone else edited in the last few seconds carries their name. Anyone else can
 *   compose on their own page (preview, export) and sees "a show is being prepared" while a
 *   shared draft is open.
 * - While the panel is open, a click on the sky adds a cue there at the playhead (the aim of a
 *   launch, `input/aim.ts`) instead of launching, and the playhead moves on a second (or to the
 *   next beat).
 * - Keys, with the panel open and no text field focused: ← → move the selected cues a tenth of
 *   a second (Shift: a second; with snapping on, a beat), ↑ ↓ raise or lower them 2 m, Delete
 *   removes them, Ctrl/Cmd+C and Ctrl/Cmd+V copy and paste at the playhead.
 */
import { TICK_RATE } from "../../../shared/constants.ts";
import type { FireworkKind } from "../../../shared/firework_kinds.ts";
import type { SceneEvent, ShowRequestBody, Theme } from "../../../shared/types.ts";
import type { World } from "../../../shared/world.ts";
import { SoundCues } from "../../audio/sound_cues.ts";
import type { FireworkSound } from "../../audio/sound.ts";
import { snapTick, stepBeat } from "./beat_snap.ts";
import { ComposerPanel, type Editor } from "./composer_panel.ts";
import {
  clampAt,
  clampSpot,
  type DraftCue,
  pasteCues,
  raiseCue,
  shiftCue,
  SHOW_MAX_CUES,
  showCues,
  showLength,
  showTime,
} from "./cue_model.ts";
import { cueEdit, Draft, type DraftEdit, newCueId, type TrackRef } from "./draft_state.ts";
import { ShowPreview } from "./show_preview.ts";
import { ShowFiles } from "./show_files.ts";
import { showLink } from "./show_link.ts";
import { TrackLoader } from "./track_loader.ts";

/** Someone else's edit marks a cue with their name this long, ms. */
const EDITING_MS = 6_000;
/** A cue dragged sends its place at most this often, ms (the last one always goes). */
const DRAG_SEND_MS = 120;
/** The most edits in one draft frame (the protocol's limit). */
const EDITS_PER_FRAME = 32;
/** Zoom levels of the time line. */
const ZOOMS = [1, 2, 4, 8, 16];

/** What the composer needs from the page. */
export interface ComposerDeps {
  sceneId: string;
  /** Where the panel goes (the HUD's sky row). */
  parent: HTMLElement;
  /** The bar's button that opens it. */
  opener: HTMLButtonElement;
  /** "A show is being prepared" for people who do not compose. */
  notice: HTMLElement;
  kinds: readonly string[];
  sound: FireworkSound;
  you(): string;
  /** Whether this page may share the draft and play shows for everyone (host or composer). */
  mayCompose(): boolean;
  /** Why it may not (names the hosts to ask). */
  whyNot(): string;
  nameOf(peer: string): string;
  colorOf(peer: string): string | undefined;
  /** Sends draft edits; false when not connected. */
  sendDraft(edits: DraftEdit[]): boolean;
  /** Submits a show to be stamped; false when not connected. */
  submitShow(show: ShowRequestBody): boolean;
  toast(text: string, options?: { error?: boolean }): void;
  liveWorld(): World | null;
  /** The host key this page holds (uploads need one). */
  hostKey(): string | undefined;
  /** Draw `world` (a preview), or the live world again (null). */
  show(world: World | null): void;
  /** Something else must give way (the replay bar, open panels). */
  opening(): void;
}

/** `window.snowfireComposer`, for tests. */
export interface ComposerDebug {
  open(): boolean;
  cues(): DraftCue[];
  selected(): string[];
  playhead(): number;
  previewing(): boolean;
  clipboard(): number;
  title(): string;
  track(): TrackRef | null;
  beats(): number;
  lastShow(): number;
}

declare global {
  /** The composer's debug hook (tests read it from inside the page). */
  var snowfireComposer: ComposerDebug;
}

/**
 * The composer.
 *
 * @example
 * ```ts
 * const composer = new Composer(deps);
 * // Input: a sky click while composing places a cue instead of launching.
 * if (composer.takeLaunch(x, z, y)) return;
 * // Frame loop: the preview's tick, or null.
 * const previewed = composer.frame(now, budget, clock);
 * ```
 */
export class Composer {
  readonly #d: ComposerDeps;
  readonly #panel: ComposerPanel;
  readonly #draft = new Draft();
  readonly #cues: SoundCues;
  readonly #files: ShowFiles;
  readonly #music: TrackLoader;
  readonly #selected = new Set<string>();
  readonly #editedAt = new Map<string, number>();
  #clipboard: DraftCue[] = [];
  #playhead = 0;
  #zoom = 0;
  #kind: FireworkKind | undefined;
  #theme: Theme | undefined;
  #snap = false;
  #preview: ShowPreview | null = null;
  /** A cue being dragged here: relayed places for it wait until it is released. */
  #dragging: string | null = null;
  #dragSentMs = -Infinity;
  #dirty = true;
  #lastRenderMs = -Infinity;
  #lastShow = 0;
  #showStartsAt: { tick: number; title: string } | null = null;

  constructor(deps: ComposerDeps) {
    this.#d = deps;
    this.#cues = new SoundCues(deps.sound);
    this.#panel = new ComposerPanel(deps.parent, deps.kinds, {
      close: () => this.close(),
      title: (text) => this.#edit([{ do: "title", title: text }]),
      add: () => this.#add(0, 0, undefined),
      copy: () => this.#copy(),
      paste: () => this.#paste(),
      remove: () => this.#remove(),
      select: (id) => this.#select(id),
      drag: (id, at, final) => this.#dragTo(id, at, final),
      playhead: (tick) => this.#setPlayhead(tick),
      kind: (kind) => this.#restyle({ kind }),
      theme: (theme) => this.#restyle({ theme }),
      preview: () => this.#preview ? this.stopPreview() : this.#startPreview(),
      playForEveryone: () => this.#stamp(),
      snap: (on) => (this.#snap = on, this.#changed()),
      music: (file) => void this.#music.upload(file),
      exportShow: () =>
        this.#files.save(this.#draft.title, showCues(this.#draft.cues.values()), this.#draft.track),
      importFile: (file) => void this.#files.open(file),
      copyLink: () => {
        const link = showLink(location.origin, deps.sceneId, this.#lastShow);
        navigator.clipboard.writeText(link).then(
          () => deps.toast(`Show link copied: ${link}`),
          () => deps.toast(`The show's link: ${link}`),
        );
      },
      zoom: (step) => {
        this.#zoom = Math.max(0, Math.min(ZOOMS.length - 1, this.#zoom + step));
        this.#changed();
        this.#panel.follow(this.#playhead);
      },
    });
    this.#music = new TrackLoader({
      sceneId: deps.sceneId,
      hostKey: deps.hostKey,
      toast: deps.toast,
      chosen: (track) => this.#edit([{ do: "track", track }]),
      analysed: () => this.#changed(),
    });
    this.#files = new ShowFiles({
      sceneId: deps.sceneId,
      toast: deps.toast,
      track: (ref) => this.#music.bytesOf(ref),
      upload: (bytes, name) => this.#music.uploadBytes(bytes, name),
      loaded: (title, cues, track) => this.#replaceWith(title, cues, track),
    });
    deps.opener.addEventListener("click", () => this.toggle());
    // Shown once the scene says this page may compose (rightsChanged).
    deps.opener.hidden = true;
    document.addEventListener("keydown", (event) => this.#onKey(event), { capture: true });
    globalThis.snowfireComposer = {
      open: () => this.isOpen,
      cues: () => [...this.#draft.cues.values()].map((c) => ({ ...c })),
      selected: () => [...this.#selected],
      playhead: () => this.#playhead,
      previewing: () => this.#preview !== null,
      clipboard: () => this.#clipboard.length,
      title: () => this.#draft.title,
      track: () => this.#draft.track,
      beats: () => this.#music.beats.length,
      lastShow: () => this.#lastShow,
    };
  }

  /** True while the panel is open (Escape closes it). */
  get isOpen(): boolean {
    return this.#panel.isOpen;
  }

  /** True while a preview is drawn instead of the live scene. */
  get previewing(): boolean {
    return this.#preview !== null;
  }

  toggle(): void {
    if (this.isOpen) this.close();
    else this.open();
  }

  open(): void {
    this.#d.opening();
    this.#panel.open();
    this.#d.opener.setAttribute("aria-expanded", "true");
    this.#changed();
    this.#render(performance.now());
  }

  close(): void {
    this.stopPreview();
    this.#panel.close();
    this.#d.opener.setAttribute("aria-expanded", "false");
  }

  /**
   * A sky click (x, z: where the shell rises; y: its burst height). While composing it places a
   * cue there at the playhead and returns true (nothing is launched).
   */
  takeLaunch(x: number, z: number, y: number): boolean {
    if (!this.isOpen) return false;
    this.#add(x, z, y);
    const beats = this.#music.beats;
    const next = this.#snap && beats.length > 0
      ? stepBeat(this.#playhead, beats, 1)
      : this.#playhead + TICK_RATE;
    this.#setPlayhead(next);
    return true;
  }

  /** Draft edits relayed by the server (from `by`, maybe this page). */
  relayed(by: string, edits: DraftEdit[]): void {
    const mine = by === this.#d.you();
    const kept = edits.filter((e) => !(e.do === "cue" && e.id === this.#dragging && mine));
    for (const id of this.#draft.apply(kept, by)) {
      if (!mine) this.#editedAt.set(id, performance.now());
      if (!this.#draft.cues.has(id)) this.#selected.delete(id);
    }
    if (edits.some((e) => e.do === "track")) this.#music.use(this.#draft.track);
    this.#changed();
  }

  /** The whole shared draft (on arrival, or when let compose). */
  draftState(
    state: Parameters<Draft["replace"]>[0] & { editors?: string[] } | null,
  ): void {
    this.#draft.replace(state);
    for (const id of [...this.#selected]) if (!this.#draft.cues.has(id)) this.#selected.delete(id);
    this.#music.use(this.#draft.track);
    this.#changed();
  }

  /** For people who do not compose: whether a show is being prepared. */
  preparing(on: boolean, message: string): void {
    this.#d.notice.hidden = !on || this.#d.mayCompose();
    this.#d.notice.textContent = message || "A show is being prepared…";
  }

  /**
   * Who may compose changed (a rules event, or a welcome naming this page): the opener shows for
   * the scene's hosts and the people a host lets compose; a person no longer let compose has the
   * panel closed.
   */
  rightsChanged(): void {
    const may = this.#d.mayCompose();
    this.#d.opener.hidden = !may;
    if (may) this.#d.notice.hidden = true;
    else if (this.isOpen) this.close();
    this.#changed();
  }

  /**
   * A stamped event: a show this page played gets its link; any show, a heads-up; a rules event
   * may change who composes.
   */
  event(event: SceneEvent): void {
    if (event.body.type === "rules") return this.rightsChanged();
    const body = event.body as { type: string; title?: string; start?: number };
    if (body.type !== "show" || body.start === undefined) return;
    // The show is no longer being prepared: it is on (the notice comes back with the next draft).
    this.#d.notice.hidden = true;
    if (event.by === this.#d.you()) {
      this.#lastShow = event.seq;
      const link = showLink(location.origin, this.#d.sceneId, event.seq);
      this.#d.toast(`“${body.title}” is on for everyone. Its link: ${link}`);
    }
    this.#showStartsAt = { tick: body.start, title: body.title ?? "" };
    this.#changed();
  }

  /**
   * One frame: moves the preview. Returns the tick to draw, or null when the live scene (or a
   * replay) is shown.
   */
  frame(nowMs: number, budgetMs: number, clock: () => number, liveTick: number): number | null {
    if (this.#showStartsAt && liveTick >= this.#showStartsAt.tick) {
      this.#showStartsAt = null;
      this.#changed();
    }
    if (this.isOpen && (this.#dirty || nowMs - this.#lastRenderMs > 500)) {
      this.#render(nowMs, liveTick);
    }
    const preview = this.#preview;
    if (!preview) return null;
    let time: number;
    try {
      time = preview.frame(
        nowMs,
        budgetMs,
        clock,
        (event) => this.#cues.add(preview.world.seed, event),
      );
    } catch (e) {
      this.stopPreview();
      this.#d.toast(`The preview stopped: ${(e as Error).message}`, { error: true });
      return null;
    }
    this.#cues.update(time, { x: 0, y: 20, z: 140 });
    this.#playhead = clampAt(preview.showTick);
    this.#panel.follow(this.#playhead);
    this.#dirty = true;
    if (preview.done) {
      this.stopPreview();
      return null;
    }
    return time;
  }

  /** Ends a preview (back to the live scene). */
  stopPreview(): void {
    if (!this.#preview) return;
    this.#preview = null;
    this.#d.show(null);
    this.#changed();
  }

  #startPreview(): void {
    const live = this.#d.liveWorld();
    if (!live) return this.#d.toast("Not connected yet: the preview needs the scene.");
    this.#d.opening();
    try {
      this.#preview = new ShowPreview(live, showCues(this.#draft.cues.values()), this.#playhead);
    } catch (e) {
      this.#d.toast(`This show cannot be previewed: ${(e as Error).message}`, { error: true });
      return;
    }
    this.#d.show(this.#preview.world);
    this.#changed();
  }

  #stamp(): void {
    if (!this.#d.mayCompose()) return this.#d.toast(this.#d.whyNot());
    const cues = showCues(this.#draft.cues.values());
    if (cues.length === 0) return this.#d.toast("Add a cue first: click the sky.");
    this.stopPreview();
    const title = this.#draft.title.trim() || "Untitled show";
    const track = this.#draft.track ?? undefined;
    if (!this.#d.submitShow({ type: "show", title, cues, ...(track ? { track } : {}) })) {
      this.#d.toast("Not connected right now; try again in a moment.", { error: true });
      return;
    }
    this.#d.toast(`“${title}” goes to everyone: it starts in a few seconds.`);
  }

  /** A refused show naming its first cue that does not fit: that cue is selected. */
  refusedCue(index: number): void {
    const cue = showCues(this.#draft.cues.values())[index];
    if (!cue) return;
    const match = [...this.#draft.cues.values()].find((c) =>
      c.at === cue.at && c.x === cue.x && c.z === cue.z
    );
    if (!match) return;
    this.#selected.clear();
    this.#selected.add(match.id);
    this.#setPlayhead(match.at);
  }

  /** Applies `edits` here and, when composing together, sends them. */
  #edit(edits: DraftEdit[]): void {
    if (edits.length === 0) return;
    const you = this.#d.you();
    if (this.#d.mayCompose()) {
      for (let i = 0; i < edits.length; i += EDITS_PER_FRAME) {
        this.#d.sendDraft(edits.slice(i, i + EDITS_PER_FRAME));
      }
    }
    // Applied at once (the relay brings the same edit back in the server's order).
    this.#draft.apply(edits, you);
    this.#changed();
  }

  #add(x: number, z: number, y: number | undefined): void {
    if (this.#draft.cues.size >= SHOW_MAX_CUES) {
      return this.#d.toast(`A show holds at most ${SHOW_MAX_CUES} cues.`, { error: true });
    }
    const cue: DraftCue = {
      id: newCueId(),
      at: clampAt(this.#snapped(this.#playhead)),
      ...clampSpot(x, z, y),
    };
    if (this.#kind) cue.kind = this.#kind;
    if (this.#theme) cue.theme = this.#theme;
    this.#selected.clear();
    this.#selected.add(cue.id);
    this.#edit([cueEdit(cue)]);
  }

  #copy(): void {
    this.#clipboard = this.#selectedCues();
    if (this.#clipboard.length > 0) {
      this.#d.toast(
        `Copied ${
          this.#clipboard.length === 1 ? "a cue" : `${this.#clipboard.length} cues`
        }: paste at the playhead.`,
      );
    }
    this.#changed();
  }

  #paste(): void {
    const room = SHOW_MAX_CUES - this.#draft.cues.size;
    const pasted = pasteCues(this.#clipboard, this.#playhead, newCueId).slice(0, Math.max(0, room));
    if (pasted.length === 0) return;
    this.#selected.clear();
    for (const cue of pasted) this.#selected.add(cue.id);
    this.#edit(pasted.map(cueEdit));
  }

  #remove(): void {
    const ids = [...this.#selected];
    this.#selected.clear();
    this.#edit(ids.map((id) => ({ do: "cue", id, cue: null })));
  }

  #select(id: string): void {
    if (this.#selected.has(id)) this.#selected.delete(id);
    else {
      this.#selected.clear();
      this.#selected.add(id);
      const cue = this.#draft.cues.get(id);
      if (cue) {
        this.#kind = cue.kind;
        this.#theme = cue.theme;
      }
    }
    this.#changed();
  }

  #dragTo(id: string, at: number, final: boolean): void {
    const cue = this.#draft.cues.get(id);
    if (!cue) return;
    const moved = { ...cue, at: clampAt(this.#snapped(at)) };
    this.#selected.clear();
    this.#selected.add(id);
    this.#dragging = final ? null : id;
    const now = performance.now();
    if (!final && now - this.#dragSentMs < DRAG_SEND_MS) {
      // Shown here at once; sent with the next step or the release.
      this.#draft.cues.set(id, moved);
      this.#changed();
      return;
    }
    this.#dragSentMs = now;
    this.#edit([cueEdit(moved)]);
  }

  /** Kind or colours chosen: for new cues, and for the selected ones. */
  #restyle(change: { kind?: FireworkKind; theme?: Theme }): void {
    if ("kind" in change) this.#kind = change.kind;
    if ("theme" in change) this.#theme = change.theme;
    const edits = this.#selectedCues().map((cue) => {
      const next: DraftCue = { ...cue, ...change };
      if (next.kind === undefined) delete next.kind;
      if (next.theme === undefined) delete next.theme;
      return cueEdit(next);
    });
    if (edits.length > 0) this.#edit(edits);
    else this.#changed();
  }

  #replaceWith(title: string, cues: DraftCue[], track: TrackRef | null): void {
    const edits: DraftEdit[] = [...this.#draft.cues.keys()].map((id) => ({
      do: "cue",
      id,
      cue: null,
    }));
    edits.push({ do: "title", title }, { do: "track", track }, ...cues.map(cueEdit));
    this.#selected.clear();
    this.#edit(edits);
    this.#music.use(track);
    this.#setPlayhead(0);
  }

  #selectedCues(): DraftCue[] {
    return [...this.#selected].map((id) => this.#draft.cues.get(id)).filter((c) => c !== undefined);
  }

  #snapped(tick: number): number {
    return this.#snap ? snapTick(tick, this.#music.beats) : tick;
  }

  #setPlayhead(tick: number): void {
    this.#playhead = clampAt(tick);
    this.#render(performance.now());
    this.#panel.follow(this.#playhead);
  }

  #changed(): void {
    this.#dirty = true;
  }

  #render(nowMs: number, liveTick = 0): void {
    this.#dirty = false;
    this.#lastRenderMs = nowMs;
    const editing = new Map<string, Editor>();
    for (const [id, at] of this.#editedAt) {
      const by = this.#draft.cues.get(id)?.by;
      if (nowMs - at > EDITING_MS || !by || by === this.#d.you()) {
        this.#editedAt.delete(id);
        continue;
      }
      editing.set(id, { name: this.#d.nameOf(by), color: this.#d.colorOf(by) ?? "#ffc27a" });
    }
    const cues = [...this.#draft.cues.values()];
    const length = showLength(cues);
    const trackTicks = (this.#music.durationS ?? 0) * TICK_RATE;
    const span = Math.max(
      30 * TICK_RATE,
      length + 5 * TICK_RATE,
      trackTicks,
      this.#playhead + TICK_RATE,
    );
    const may = this.#d.mayCompose();
    const others = [
      ...new Set([...this.#editedAt.keys()].map((id) => this.#draft.cues.get(id)?.by)),
    ]
      .filter((p): p is string => !!p).map((p) => this.#d.nameOf(p));
    const starts = this.#showStartsAt && liveTick > 0
      ? `“${this.#showStartsAt.title}” starts in ${
        Math.max(0, Math.ceil((this.#showStartsAt.tick - liveTick) / TICK_RATE))
      } s · `
      : "";
    const status = starts + (others.length > 0 ? `${others.join(" and ")} editing · ` : "") +
      `${cues.length} ${cues.length === 1 ? "cue" : "cues"}, ${showTime(length)} long · ` +
      (may
        ? matchMedia("(pointer: coarse)").matches
          ? "Tap the sky to add a cue at the playhead; drag a cue to move it."
          : "Click the sky to add a cue at the playhead; drag cues, or ← → to move, Delete to remove."
        : "Only you see this draft: you can preview and export it.");
    this.#panel.render({
      title: this.#draft.title,
      cues,
      selected: this.#selected,
      editing,
      playhead: this.#playhead,
      span,
      zoom: ZOOMS[this.#zoom],
      previewing: this.#preview !== null,
      canPaste: this.#clipboard.length > 0,
      stampBlocked: may ? (cues.length === 0 ? "Add a cue first" : null) : this.#d.whyNot(),
      snap: this.#snap,
      beats: this.#music.beats,
      wave: this.#music.wave,
      trackLabel: this.#draft.track ? `Music: ${this.#draft.track.name}` : "No music",
      showLink: this.#lastShow > 0
        ? showLink(location.origin, this.#d.sceneId, this.#lastShow)
        : null,
      musicBlocked: this.#d.hostKey() ? null : "Only a host can add music to this scene",
      kind: this.#kind,
      theme: this.#theme,
      status,
    });
  }

  #onKey(event: KeyboardEvent): void {
    if (!this.isOpen || event.altKey) return;
    const target = event.target as HTMLElement | null;
    if (target?.closest?.("input:not([type=range]), select, textarea, [contenteditable]")) return;
    const mod = event.ctrlKey || event.metaKey;
    const key = event.key;
    let handled = true;
    if (mod && (key === "c" || key === "C")) this.#copy();
    else if (mod && (key === "v" || key === "V")) this.#paste();
    else if (mod) handled = false;
    else if ((key === "Delete" || key === "Backspace") && this.#selected.size > 0) this.#remove();
    else if ((key === "ArrowLeft" || key === "ArrowRight") && this.#selected.size > 0) {
      const step = key === "ArrowLeft" ? -1 : 1;
      const beats = this.#music.beats;
      this.#edit(
        this.#selectedCues().map((cue) =>
          cueEdit(
            this.#snap && beats.length > 0
              ? { ...cue, at: clampAt(stepBeat(cue.at, beats, step)) }
              : shiftCue(cue, step * (event.shiftKey ? TICK_RATE : TICK_RATE / 10)),
          )
        ),
      );
    } else if ((key === "ArrowUp" || key === "ArrowDown") && this.#selected.size > 0) {
      this.#edit(
        this.#selectedCues().map((cue) => cueEdit(raiseCue(cue, key === "ArrowUp" ? 2 : -2))),
      );
    } else handled = false;
    if (!handled) return;
    event.preventDefault();
    event.stopPropagation();
  }
}
