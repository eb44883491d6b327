/**
 * The page's copy of the scene's host rules, folded from the welcome and the `rules` events with
 * the same pure code the server runs (shared/rules.ts): who is a host, who may change settings,
 * muted and removed people, paused launches, the countdown.
 *
 * @example
 * ```ts
 * const rules = new SceneRules();
 * rules.welcome(welcomeMessage);
 * if (rules.mayChangeSettings(me)) console.log("the settings panel is yours");
 * ```
 */
import type { WelcomeMessage } from "../../shared/protocol.ts";
import { applyRules, DEFAULT_RULES, isHost, maySetSettings, rulesOf } from "../../shared/rules.ts";
import type { Rules, SceneEvent } from "../../shared/types.ts";

/** The rules in force as this page knows them. */
export class SceneRules {
  #rules: Rules = DEFAULT_RULES as Rules;
  /** Bumped on every change (cheap "did anything change" checks each frame). */
  version = 0;

  /** The rules now. */
  get current(): Readonly<Rules> {
    return this.#rules;
  }

  /** A welcome: from its snapshot and events (a resumed one only adds the missed events). */
  welcome(message: WelcomeMessage): void {
    if (!message.resumed) this.#rules = rulesOf(message.snapshot);
    for (const event of message.events) this.event(event);
    this.version++;
  }

  /** A live event (only `rules` events change anything). */
  event(event: SceneEvent): void {
    if (event.body.type !== "rules") return;
    this.#rules = applyRules(this.#rules, event.body);
    this.version++;
  }

  isHost(peer: string): boolean {
    return isHost(this.#rules, peer);
  }

  mayChangeSettings(peer: string): boolean {
    return maySetSettings(this.#rules, peer);
  }
}
