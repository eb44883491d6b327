/**
 * Saving a show as a file and opening one, in the browser: Export downloads
 * `snowfire-show-<title>.json` (with the music's bytes inside when the page can fetch them), and
 * Import reads a chosen file, checks it (`show_file.ts`), brings its music into this scene when
 * the file holds it, and hands the cues over with fresh ids.
 */
import { type DraftCue, type ShowCue } from "./cue_model.ts";
import { newCueId, type TrackRef } from "./draft_state.ts";
import { type FileTrack, parseShowFile, showFileText, toBase64, trackBytes } from "./show_file.ts";

/** What saving and opening need. */
export interface ShowFilesDeps {
  sceneId: string;
  toast(text: string, options?: { error?: boolean }): void;
  /** The bytes of a track of this scene, or null when they cannot be had. */
  track(ref: TrackRef): Promise<Uint8Array | null>;
  /** Stores bytes as a track of this scene: its reference, or null (refused, not a host). */
  upload(bytes: Uint8Array<ArrayBuffer>, name: string): Promise<TrackRef | null>;
  /** An opened show, to become the draft. */
  loaded(title: string, cues: DraftCue[], track: TrackRef | null): void;
}

/** A file name from a show's title: `snowfire-show-new-year.json`. */
export function showFileName(title: string): string {
  const slug = title.toLowerCase().normalize("NFKD").replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "").slice(0, 40);
  return `snowfire-show-${slug || "untitled"}.json`;
}

/**
 * Export and import for the composer.
 *
 * @example
 * ```ts
 * const files = new ShowFiles(deps);
 * await files.save("Finale", cues, null);
 * await files.open(chosenFile);
 * ```
 */
export class ShowFiles {
  readonly #d: ShowFilesDeps;
  /** The last file saved (for tests): its name and text. */
  lastSaved: { name: string; text: string } | null = null;

  constructor(deps: ShowFilesDeps) {
    this.#d = deps;
  }

  /** Downloads the show as a file. */
  async save(title: string, cues: readonly ShowCue[], track: TrackRef | null): Promise<void> {
    let fileTrack: FileTrack | undefined;
    if (track) {
      const bytes = await this.#d.track(track).catch(() => null);
      const { ms: _ms, ...named } = track;
      fileTrack = bytes ? { ...named, data: toBase64(bytes) } : named;
    }
    const text = showFileText(title.trim() || "Untitled show", cues, fileTrack);
    const name = showFileName(title);
    this.lastSaved = { name, text };
    const url = URL.createObjectURL(new Blob([text], { type: "application/json" }));
    const link = document.createElement("a");
    link.href = url;
    link.download = name;
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
    this.#d.toast(
      `Saved ${cues.length} ${cues.length === 1 ? "cue" : "cues"} as ${name}` +
        (track && !fileTrack?.data ? " (without the music's bytes: they could not be read)." : "."),
    );
  }

  /** Reads a chosen file into the draft (or says why not). */
  async open(file: File): Promise<void> {
    const read = parseShowFile(await file.text());
    if ("error" in read) return this.#d.toast(read.error.message, { error: true });
    const show = read.show;
    let track: TrackRef | null = null;
    if (show.track) {
      const { data: _data, ...ref } = show.track;
      const bytes = await trackBytes(show.track);
      if (bytes && "error" in bytes) return this.#d.toast(bytes.error.message, { error: true });
      if (bytes) {
        track = await this.#d.upload(bytes, show.track.name);
        if (!track) this.#d.toast("The show's music could not be added to this scene.");
      } else {
        // Named only: the scene may hold it already (a show saved here).
        track = ref;
      }
    }
    const cues = show.cues.map((cue) => ({ ...cue, id: newCueId() }));
    this.#d.loaded(show.title, cues, track);
    this.#d.toast(`Opened “${show.title || file.name}”: ${cues.length} cues.`);
  }
}
