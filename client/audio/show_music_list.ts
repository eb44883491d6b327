/**
 * The shows a page knows of that name a music track, as the welcome and the stamped events tell
 * it (`snapshot.shows`, `show` and `show-cancel` events), and which one's music plays at a tick:
 * the latest started one, not cancelled by then and not past its track's end. Pure (no DOM, no
 * clock): the player (`show_music.ts`) asks it with the page's estimate of the scene tick.
 *
 * @example
 * ```ts
 * import { ShowMusicList } from "./show_music_list.ts";
 * const list = new ShowMusicList();
 * list.event({ seq: 7, tick: 100, by: "p1", body: { type: "show", title: "Waltz", start: 400,
 *   cues: [{ at: 0, x: 0, z: 0 }], track: { id: "ab".repeat(32), name: "waltz.ogg",
 *   mime: "audio/ogg", bytes: 1000 } } });
 * console.log(list.playing(460)?.seq); // 7
 * ```
 */
import type { LiveShow, SceneEvent, TrackRef } from "../../shared/types.ts";

/** A show with music, as the player needs it. */
export interface MusicShow {
  /** The show's number (its event's seq). */
  seq: number;
  /** Scene tick of the show's start: the track's position 0. */
  start: number;
  track: TrackRef;
  /** Tick of a cancel, when one came: the music stops there. */
  cancel?: number;
}

/** Shows with music remembered at most (a scene holds at most 4 live ones). */
const KEPT = 8;

/** The page's shows with music. */
export class ShowMusicList {
  #shows: MusicShow[] = [];
  /** Track lengths in ticks, once known (decoded), by track id. */
  readonly #lengths = new Map<string, number>();

  /** Every show with music known now (oldest first). */
  get shows(): readonly MusicShow[] {
    return this.#shows;
  }

  /** Starts over from a welcome: the live shows of its snapshot and the events after it. */
  welcome(live: readonly LiveShow[] | undefined, events: readonly SceneEvent[]): void {
    this.#shows = [];
    for (const show of live ?? []) {
      if (show.show.track) {
        this.#add({
          seq: show.seq,
          start: show.show.start,
          track: show.show.track,
          ...(show.cancel !== undefined ? { cancel: show.cancel } : {}),
        });
      }
    }
    for (const event of events) this.event(event);
  }

  /** A stamped event: a show with a track is added, a cancel marks its show. */
  event(event: SceneEvent): void {
    const body = event.body;
    if (body.type === "show" && body.track) {
      this.#add({ seq: event.seq, start: body.start, track: body.track });
    } else if (body.type === "show-cancel") {
      const show = this.#shows.find((s) => s.seq === body.show);
      if (show && show.cancel === undefined) show.cancel = event.tick;
    }
  }

  /** Says how long a track is (once decoded): its show's music ends there. */
  setLength(trackId: string, ticks: number): void {
    this.#lengths.set(trackId, ticks);
  }

  /**
   * The show whose music plays at scene tick `tick` (fractional): the latest one started by then,
   * else the next starting within `leadTicks` (so its track can be made ready and scheduled); not
   * cancelled at or before `tick`, not past its track's end when that is known.
   */
  playing(tick: number, leadTicks = 0): MusicShow | undefined {
    let started: MusicShow | undefined;
    let next: MusicShow | undefined;
    for (const show of this.#shows) {
      if (show.start > tick + leadTicks) continue;
      if (show.cancel !== undefined && show.cancel <= tick) continue;
      const length = this.#lengths.get(show.track.id);
      if (length !== undefined && tick >= show.start + length) continue;
      if (show.start <= tick) {
        const later = !started || show.start > started.start ||
          (show.start === started.start && show.seq > started.seq);
        if (later) started = show;
      } else if (!next || show.start < next.start) next = show;
    }
    // A show playing now keeps the music until a later one starts.
    return started ?? next;
  }

  #add(show: MusicShow): void {
    if (this.#shows.some((s) => s.seq === show.seq)) return;
    this.#shows.push(show);
    if (this.#shows.length > KEPT) this.#shows.shift();
  }
}
