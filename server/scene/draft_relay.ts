/**
 * The shared show draft's fan-out, for the connections one server holds (both modes): a
 * composer's edits go to every composer here (and, through `onDraft`, to the scene's other
 * nodes), a composer who arrives gets the whole draft, and everyone else hears only whether a
 * show is being prepared. Bounded like the other relayed messages: per connection and per scene
 * token buckets, at most DRAFT_MAX_EDITS edits a frame and SHOW_MAX_CUES cues a draft.
 *
 * @example
 * ```ts
 * import { DraftRelay } from "./draft_relay.ts";
 * import { DEFAULT_RULES } from "../../shared/rules.ts";
 * const sent: string[] = [];
 * const peer = { id: "p1", welcomed: true, send: (t: string) => sent.push(t) };
 * const relay = new DraftRelay({
 *   nowMs: () => 0,
 *   rules: () => ({ ...DEFAULT_RULES, hosts: ["p1"] }),
 *   peers: () => [peer],
 * });
 * relay.edit(peer, [{ do: "title", title: "Duet" }]);
 * console.log(sent[0]); // {"t":"draft","by":"p1","edits":[{"do":"title","title":"Duet"}]}
 * ```
 */
import type { DraftEdit, ErrorMessage } from "../../shared/protocol.ts";
import { mayCompose } from "../../shared/rules.ts";
import type { Rules } from "../../shared/types.ts";
import { errorMessage } from "./errors.ts";
import { TokenBucket } from "./ratelimit.ts";
import { ShowDraft } from "./show_draft.ts";

/** Draft frames one connection may send: 10 a second, bursts of 30 (a drag sends many). */
export const DRAFT_PEER_PACE = Object.freeze({ perSecond: 10, burst: 30 });
/** Draft frames a scene relays from this server: 30 a second, bursts of 90. */
export const DRAFT_SCENE_PACE = Object.freeze({ perSecond: 30, burst: 90 });

/** What the draft relay sends to: a welcomed connection. */
export interface DraftPeer {
  readonly id: string;
  readonly welcomed: boolean;
  /** The hash of the connection's browser token, when known (the right to compose follows it). */
  readonly person?: string;
  send(text: string): void;
}

/** What a draft relay needs. */
export interface DraftRelayDeps {
  /** Monotonic ms now. */
  nowMs: () => number;
  /** The host rules in force (who may compose). */
  rules: () => Readonly<Rules>;
  /** The connections here. */
  peers: () => Iterable<DraftPeer>;
  /** Edits taken here, to pass on to the scene's other nodes (a cluster edge). */
  onDraft?: (by: string, edits: readonly DraftEdit[]) => void;
}

const PREPARING = "a show is being prepared";
const NOT_PREPARING = "no show is being prepared";

/** One scene's draft and its fan-out on this server. */
export class DraftRelay {
  readonly draft = new ShowDraft();
  readonly #deps: DraftRelayDeps;
  readonly #paces = new WeakMap<DraftPeer, TokenBucket>();
  readonly #scene: TokenBucket;

  constructor(deps: DraftRelayDeps) {
    this.#deps = deps;
    this.#scene = new TokenBucket(DRAFT_SCENE_PACE, deps.nowMs());
  }

  /**
   * A connection's edits: refused (`forbidden`) unless it may compose, over the buckets
   * (`rate_limited`), or past the draft's size (`bad_message`); else applied and relayed to every
   * composer here, the sender too.
   */
  edit(peer: DraftPeer, edits: readonly DraftEdit[]): ErrorMessage | null {
    if (!mayCompose(this.#deps.rules(), peer.id, peer.person)) {
      return errorMessage(
        "forbidden",
        "only hosts and people a host lets compose may edit the show draft",
      );
    }
    const nowMs = this.#deps.nowMs();
    let pace = this.#paces.get(peer);
    if (pace === undefined) {
      pace = new TokenBucket(DRAFT_PEER_PACE, nowMs);
      this.#paces.set(peer, pace);
    }
    const wait = Math.max(pace.peek(nowMs), this.#scene.peek(nowMs));
    if (wait > 0) {
      return errorMessage(
        "rate_limited",
        `easy there: draft edits are limited; try again in ${Math.ceil(wait / 100) / 10} s`,
        wait,
      );
    }
    const refusal = this.draft.check(edits);
    if (refusal !== null) return errorMessage("bad_message", `draft: ${refusal}`);
    pace.take(nowMs);
    this.#scene.take(nowMs);
    this.#apply(peer.id, edits, nowMs);
    this.#deps.onDraft?.(peer.id, edits);
    return null;
  }

  /** Edits another node took (a cluster): applied and relayed to the composers here. */
  fromElsewhere(by: string, edits: readonly DraftEdit[]): void {
    if (this.draft.check(edits) !== null) return;
    this.#apply(by, edits, this.#deps.nowMs());
  }

  /**
   * Tells a connection what it may know of the draft: the whole of it for a composer (null when
   * none is open), else whether a show is being prepared (only when one is). After a welcome, and
   * whenever its right to compose may have changed.
   */
  greet(peer: DraftPeer): void {
    if (!peer.welcomed) return;
    if (mayCompose(this.#deps.rules(), peer.id, peer.person)) {
      peer.send(JSON.stringify({ t: "draft-state", draft: this.draft.state(this.#deps.nowMs()) }));
    } else if (this.draft.open) {
      peer.send(JSON.stringify({ t: "preparing", on: true, message: PREPARING }));
    }
  }

  /** A connection left: it is no longer named as an editor. */
  leave(peerId: string): void {
    this.draft.forget(peerId);
  }

  #apply(by: string, edits: readonly DraftEdit[], nowMs: number): void {
    const wasOpen = this.draft.open;
    this.draft.apply(by, edits, nowMs);
    const open = this.draft.open;
    const frame = JSON.stringify({ t: "draft", by, edits });
    const notice = open === wasOpen
      ? null
      : JSON.stringify({ t: "preparing", on: open, message: open ? PREPARING : NOT_PREPARING });
    const rules = this.#deps.rules();
    for (const peer of this.#deps.peers()) {
      if (!peer.welcomed) continue;
      if (mayCompose(rules, peer.id, peer.person)) peer.send(frame);
      else if (notice !== null) peer.send(notice);
    }
  }
}
