/**
 * Keeps each person's submits in the order they made them. An edge forwards a submit to the
 * scene's owner; when no owner answers yet (a new scene's first moments, a hand-over) it asks
 * again 250 ms later, and a submit made meanwhile would overtake it once the owner is there (a
 * settings change stamped after the launch made after it). A submit still waiting for its first
 * answer may be the one asked again, so each person has one submit in flight at a time: the
 * later ones wait behind it and go one at a time, each when the one before it has its answer.
 * A person rarely makes two submits within one round trip to the owner, so nearly always a
 * submit goes straight through, with no wait added.
 *
 * @example
 * ```ts
 * import { SubmitOrder } from "./submit_order.ts";
 * const order = new SubmitOrder<string, string>();
 * order.hold("ana", "settings"); // false: send it (it is in flight now)
 * order.hold("ana", "launch"); // true: it waits behind the settings change
 * order.retrying("ana", "settings"); // no owner answered: it will be sent again
 * order.settled("ana", "settings"); // "launch": send it now (it is the one in flight next)
 * order.settled("ana", "launch"); // undefined: nothing waits any more
 * ```
 */
export class SubmitOrder<Person, Submit> {
  /**
   * Per person with a submit in flight: that submit, whether it is being asked again, and the
   * person's later submits waiting behind it, in order.
   */
  readonly #held = new Map<Person, { head: Submit; retried: boolean; queue: Submit[] }>();

  /**
   * True when `submit` must wait (queued behind the person's submit in flight); false when it is
   * to be sent now, and it is the person's submit in flight until `settled`.
   */
  hold(person: Person, submit: Submit): boolean {
    const held = this.#held.get(person);
    if (!held) {
      this.#held.set(person, { head: submit, retried: false, queue: [] });
      return false;
    }
    held.queue.push(submit);
    return true;
  }

  /** `submit` had no owner to answer it and will be sent again (see `retried`). */
  retrying(person: Person, submit: Submit): void {
    const held = this.#held.get(person);
    if (held?.head === submit) held.retried = true;
  }

  /**
   * `submit` has its answer (stamped, refused, or given up on). When others waited behind it,
   * returns the next, which the caller sends now and which the rest wait behind in turn; else
   * undefined.
   */
  settled(person: Person, submit: Submit): Submit | undefined {
    const held = this.#held.get(person);
    if (!held || held.head !== submit) return undefined;
    const next = held.queue.shift();
    if (next === undefined) this.#held.delete(person);
    else {
      held.head = next;
      held.retried = false;
    }
    return next;
  }

  /** Submits waiting for `person` (the one in flight not counted). */
  waiting(person: Person): number {
    return this.#held.get(person)?.queue.length ?? 0;
  }

  /** True while `person`'s submit in flight is being asked again (no owner answered it yet). */
  retried(person: Person): boolean {
    return this.#held.get(person)?.retried ?? false;
  }

  /** Forgets what waits for `person` (gone: nothing of theirs is sent any more). */
  drop(person: Person): void {
    this.#held.delete(person);
  }

  /** Forgets everything (the edge closes). */
  clear(): void {
    this.#held.clear();
  }
}
