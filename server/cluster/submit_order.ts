/**
 * Keeps each person's submits in the order they made them while one of them has to be sent
 * again. An edge forwards a submit to the scene's owner at once; when no owner answers yet (a new
 * scene's first moments, a hand-over) it asks again 250 ms later, and a submit made meanwhile
 * would overtake it once the owner is there (a settings change stamped after the launch made
 * after it). So while one of a person's submits is being retried, their later ones wait behind
 * it and go one at a time, each after the one before it has its answer; otherwise (nearly
 * always) submits go straight through, with no wait added.
 *
 * @example
 * ```ts
 * import { SubmitOrder } from "./submit_order.ts";
 * const order = new SubmitOrder<string, string>();
 * order.hold("ana", "settings"); // false: nothing is retried, send it
 * order.retrying("ana", "settings"); // no owner answered: it will be sent again
 * order.hold("ana", "launch"); // true: it waits behind the settings change
 * order.settled("ana", "settings"); // "launch": send it now (it is the one waited for next)
 * order.settled("ana", "launch"); // undefined: nothing waits any more
 * ```
 */
export class SubmitOrder<Person, Submit> {
  /** Per person being waited for: the submit in flight that the others wait behind, in order. */
  readonly #held = new Map<Person, { head: Submit; queue: Submit[] }>();

  /** True when `submit` must wait (queued behind one of the person's that is retried). */
  hold(person: Person, submit: Submit): boolean {
    const held = this.#held.get(person);
    if (!held) return false;
    held.queue.push(submit);
    return true;
  }

  /** `submit` will be sent again: unless one of the person's already is, later ones wait for it. */
  retrying(person: Person, submit: Submit): void {
    if (!this.#held.has(person)) this.#held.set(person, { head: submit, queue: [] });
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
    else held.head = next;
    return next;
  }

  /** Submits waiting for `person` (the one in flight not counted). */
  waiting(person: Person): number {
    return this.#held.get(person)?.queue.length ?? 0;
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
