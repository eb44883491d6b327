/**
 * The host rules, written once for both modes: what a host action becomes (a `rules` event to
 * stamp, or a refusal with a code and a human reason) and which submits the rules refuse. The
 * sequencer calls these with the rules in force; the single node's room and the cluster's owner
 * both stamp through it, so the same checks run wherever a scene is stamped.
 *
 * @example
 * ```ts
 * import { decideHost, refuseSubmit } from "./host_rules.ts";
 * import { DEFAULT_RULES } from "../../shared/rules.ts";
 * const rules = { ...DEFAULT_RULES, hosts: ["p1"] };
 * console.log(refuseSubmit(rules, "p2", { type: "settings", settings: { snow: 1 } })?.code);
 * // "forbidden"
 * ```
 */
import { TICK_MS, TICK_RATE } from "../../shared/constants.ts";
import { finaleEnd } from "../../shared/finale.ts";
import type { ErrorMessage } from "../../shared/protocol.ts";
import {
  composerConnections,
  founderKey,
  hasHost,
  hostKeyOf,
  isComposerPerson,
  isFounder,
  isHost,
  isMuted,
  MAX_HOST_KEYS,
  mayCompose,
  maySetSettings,
} from "../../shared/rules.ts";
import type { ClientBody, EventBody, HostAction, Rules, RulesBody } from "../../shared/types.ts";
import { errorMessage } from "./errors.ts";
import { hashHostKey, keyMatches, mintHostKey } from "./host_keys.ts";

/** A countdown must end at least this far ahead (a second), and at most a day ahead. */
export const COUNTDOWN_MIN_TICKS = TICK_RATE;
export const COUNTDOWN_MAX_TICKS = 24 * 3600 * TICK_RATE;

/** What a host action comes to. */
export type HostDecision =
  /** Refused: nothing changes. */
  | { refusal: ErrorMessage }
  /** Nothing to stamp (it is so already). */
  | { body: null }
  /** Stamp `body`; a minted `key` goes to `keyFor` alone. */
  | { body: RulesBody; key?: string; keyFor?: string };

/** The scene's clock and time, for a countdown to a wall-clock time. */
export interface HostContext {
  /** The tick being stamped. */
  now: number;
  /** Server wall-clock ms now. */
  wallMs: number;
  /**
   * For `remove`, `mute` and `compose`: the hash of the target's browser token, when the server that
   * received the action knows it (a connection here, or announced by another node); it keeps
   * them out (or muted) on every connection of the same browser.
   */
  person?: string;
  /** For `grant`: whether the target is a person in the scene now (only they can be made hosts). */
  present?: boolean;
}

function forbidden(message: string): { refusal: ErrorMessage } {
  return { refusal: errorMessage("forbidden", message) };
}

/**
 * Decides a host action from `by` under `rules`. Every action but `claim` needs host rights;
 * `claim` needs a key whose hash the scene keeps (checked in constant time).
 */
export function decideHost(
  rules: Rules,
  by: string,
  action: HostAction,
  ctx: HostContext,
): HostDecision {
  if (rules.removed.includes(by)) {
    return { refusal: removedRefusal() };
  }
  if (action.do === "claim") {
    if (!keyMatches(rules.keys ?? [], action.key)) {
      return forbidden("that host key is not this scene's: nothing changed");
    }
    return isHost(rules, by)
      ? { body: null }
      : { body: { type: "rules", do: "host", peer: by, via: hashHostKey(action.key) } };
  }
  if (
    action.do === "compose" && action.on && action.peer === by && !isHost(rules, by) &&
    isComposerPerson(rules, ctx.person)
  ) {
    // A person a host let compose, on a new connection: the right follows them (the server
    // asks for it after their welcome, so their page sees it in the rules).
    return rules.composers?.includes(by)
      ? { body: null }
      : { body: { type: "rules", do: "compose", peer: by, on: true, person: ctx.person } };
  }
  if (!isHost(rules, by)) return forbidden(`only a host may ${ACTION_NAMES[action.do]}`);
  switch (action.do) {
    case "grant": {
      if (rules.removed.includes(action.peer)) {
        return forbidden("that person was removed from this scene");
      }
      if (isHost(rules, action.peer)) return { body: null };
      if (ctx.present !== true) return forbidden("grant: that person is not in this scene now");
      const founder = isFounder(rules, by);
      if (!founder && (rules.keys?.length ?? 0) >= MAX_HOST_KEYS) {
        return forbidden(
          `this scene holds ${MAX_HOST_KEYS} host keys, its most: only its founder may grant now`,
        );
      }
      const key = mintHostKey();
      const from = hostKeyOf(rules, by) ?? (founder ? founderKey(rules) : undefined);
      const body: RulesBody = {
        type: "rules",
        do: "host",
        peer: action.peer,
        key: hashHostKey(key),
      };
      if (from !== undefined) body.from = from;
      return { body, key, keyFor: action.peer };
    }
    case "rekey": {
      const old = hostKeyOf(rules, by);
      if (old === undefined || !(rules.keys ?? []).includes(old)) {
        return forbidden("new host link: your host rights come from no key this scene keeps");
      }
      const drop = rules.hosts.filter((p) => p !== by && rules.hostKeys?.[p] === old);
      const key = mintHostKey();
      return {
        body: { type: "rules", do: "rekey", peer: by, key: hashHostKey(key), old, drop },
        key,
        keyFor: by,
      };
    }
    case "lock":
      return rules.lock === action.lock
        ? { body: null }
        : { body: { type: "rules", do: "lock", lock: action.lock } };
    case "mute": {
      if (action.on && isHost(rules, action.peer)) return forbidden("a host cannot be muted");
      const person = ctx.person;
      // Already so for this connection and (when known) for the person behind it.
      const peerMuted = rules.muted.includes(action.peer);
      const personMuted = person === undefined || isMuted(rules, "", person);
      if (action.on ? peerMuted && personMuted : !isMuted(rules, action.peer, person)) {
        return { body: null };
      }
      return {
        body: person !== undefined
          ? { type: "rules", do: "mute", peer: action.peer, on: action.on, person }
          : { type: "rules", do: "mute", peer: action.peer, on: action.on },
      };
    }
    case "remove":
      if (isHost(rules, action.peer)) return forbidden("a host cannot be removed");
      if (rules.removed.includes(action.peer)) return { body: null };
      return {
        body: ctx.person !== undefined
          ? { type: "rules", do: "remove", peer: action.peer, person: ctx.person }
          : { type: "rules", do: "remove", peer: action.peer },
      };
    case "pause":
      return rules.paused === action.on
        ? { body: null }
        : { body: { type: "rules", do: "pause", on: action.on } };
    case "countdown": {
      if ((action.at === undefined) === (action.in === undefined)) {
        return {
          refusal: errorMessage("bad_message", "countdown: give one of at (ms) or in (seconds)"),
        };
      }
      const ahead = action.in !== undefined
        ? Math.round(action.in * TICK_RATE)
        : Math.floor((action.at! - ctx.wallMs) / TICK_MS);
      if (ahead < COUNTDOWN_MIN_TICKS || ahead > COUNTDOWN_MAX_TICKS) {
        return {
          refusal: errorMessage(
            "bad_message",
            "countdown: the time must be between 1 second and 24 hours from now",
          ),
        };
      }
      const countdown = {
        tick: ctx.now + ahead,
        seconds: action.seconds,
        intensity: action.intensity,
      };
      return { body: { type: "rules", do: "countdown", countdown } };
    }
    case "compose":
      return decideCompose(rules, action.peer, action.on, ctx);
    case "cancel":
      if (!rules.countdown || finaleEnd(rules.countdown) <= ctx.now) {
        return { refusal: errorMessage("bad_message", "cancel: no countdown or finale to cancel") };
      }
      return { body: { type: "rules", do: "countdown", countdown: null } };
  }
}

/**
 * A host lets `peer` compose (`on`) or no longer. The stamped event carries the person behind
 * `peer` when known, so the right follows them to a new connection; un-granting also takes it
 * from the same person's other connections (`drop`).
 */
function decideCompose(rules: Rules, peer: string, on: boolean, ctx: HostContext): HostDecision {
  const person = ctx.person;
  const listed = rules.composers?.includes(peer) ?? false;
  if (on) {
    if (rules.removed.includes(peer)) return forbidden("that person was removed from this scene");
    if (listed && (person === undefined || rules.composerPeople?.[peer] === person)) {
      return { body: null };
    }
    if (ctx.present !== true) return forbidden("compose: that person is not in this scene now");
    const body: RulesBody = { type: "rules", do: "compose", peer, on };
    if (person !== undefined) body.person = person;
    return { body };
  }
  const drop = person === undefined ? [] : composerConnections(rules, person, peer);
  if (!listed && drop.length === 0) return { body: null };
  const body: RulesBody = { type: "rules", do: "compose", peer, on };
  if (person !== undefined) body.person = person;
  if (drop.length > 0) body.drop = drop;
  return { body };
}

/** What each host action does, for a refusal's reason. */
const ACTION_NAMES: Record<HostAction["do"], string> = {
  claim: "claim host rights",
  grant: "make someone a host",
  lock: "choose who changes the settings",
  mute: "mute someone",
  remove: "remove someone",
  pause: "pause launches",
  countdown: "start a countdown",
  cancel: "cancel the countdown",
  rekey: "make a new host link",
  compose: "let someone compose shows",
};

/**
 * Why the rules refuse a client's submit from `by` (null when they allow it): removed people
 * nothing; muted people (this connection, or the same browser's `person` on any) no launches or
 * volleys; paused launches but the hosts'; settings only
 * from hosts while the host keeps them locked, and the fountain's rotation and spiral only from
 * hosts always (in a scene that has any).
 */
export function refuseSubmit(
  rules: Rules,
  by: string,
  body: ClientBody | EventBody,
  person?: string,
): ErrorMessage | null {
  if (rules.removed.includes(by)) return removedRefusal();
  // Muted people launch, fire and show nothing (settings go by the lock alone).
  const launches = body.type !== "settings" && body.type !== "rules";
  if (launches && isMuted(rules, by, person)) {
    return errorMessage("muted", "a host muted your launches in this scene");
  }
  switch (body.type) {
    case "settings":
      if (!maySetSettings(rules, by)) {
        return errorMessage(
          "forbidden",
          "the host locked the scene settings: only hosts may change them",
        );
      }
      // The fountain's rotation and spiral are the hosts' own, locked or not.
      if (
        ("fountainSpin" in body.settings || "fountainSpiral" in body.settings) &&
        hasHost(rules) && !isHost(rules, by)
      ) {
        return errorMessage(
          "forbidden",
          "only a host may turn the fountain's rotation or spiral on or off",
        );
      }
      return null;
    case "launch":
    case "gun":
      if (rules.paused && !isHost(rules, by)) {
        return errorMessage(
          "launches_paused",
          "a host paused launches for now; theirs still go, yours will again when they resume",
        );
      }
      return null;
    case "show":
    case "show-cancel":
      return mayCompose(rules, by, person) ? null : errorMessage(
        "forbidden",
        `only hosts and people a host lets compose may ${
          body.type === "show" ? "play" : "cancel"
        } a show`,
      );
    case "rules":
      return errorMessage("bad_message", "rules: only the server stamps rules events");
  }
}

/**
 * Why the rules refuse a quick reaction from `by` (null when they allow it): as for launches,
 * removed and muted people send none; a host's pause holds launches, not reactions.
 */
export function refuseReaction(rules: Rules, by: string, person?: string): ErrorMessage | null {
  if (rules.removed.includes(by)) return removedRefusal();
  if (isMuted(rules, by, person)) {
    return errorMessage("muted", "a host muted you in this scene: your reactions stay with you");
  }
  return null;
}

/** The refusal a person a host removed gets, whatever they try (and when they are closed). */
export function removedRefusal(): ErrorMessage {
  return errorMessage("removed", "a host removed you from this scene");
}

/**
 * How many events a host action stores when allowed: its `rules` event only (a countdown's
 * finale is derived by every page from it, shared/derived.ts), spent from the host's address and
 * network event budgets like a launch.
 *
 * @example
 * ```ts
 * import { storedCost } from "./host_rules.ts";
 * console.log(storedCost({ do: "countdown", in: 60, seconds: 30, intensity: 3 })); // 1
 * ```
 */
export function storedCost(_action: HostAction): number {
  return 1;
}
