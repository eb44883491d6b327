/**
 * Spoken countdown numbers (optional, off by default; the page's switch turns it on): each of the
 * last ten seconds is said once with the browser's `speechSynthesis` when it has one. Without it
 * nothing happens and nothing fails.
 *
 * @example
 * ```ts
 * const voice = new CountdownVoice();
 * voice.enabled = true;
 * voice.update(CountdownDisplay.remaining(countdown, tick)); // says "10", "9", … once each
 * ```
 */

/** The speech interface, when the browser has one. */
function synth(): SpeechSynthesis | undefined {
  try {
    return (globalThis as { speechSynthesis?: SpeechSynthesis }).speechSynthesis;
  } catch {
    return undefined;
  }
}

/** Says the countdown's last ten seconds. */
export class CountdownVoice {
  enabled = false;
  #said: number | null = null;

  /** Whether this browser can speak at all. */
  static get available(): boolean {
    return synth() !== undefined && typeof SpeechSynthesisUtterance === "function";
  }

  /** Called with the whole seconds left (null: no countdown); speaks each of 10…1 once. */
  update(left: number | null): void {
    if (left === this.#said) return;
    this.#said = left;
    if (!this.enabled || left === null || left < 1 || left > 10) return;
    const speech = synth();
    if (!speech || typeof SpeechSynthesisUtterance !== "function") return;
    try {
      speech.cancel();
      const utterance = new SpeechSynthesisUtterance(String(left));
      utterance.rate = 1.1;
      speech.speak(utterance);
    } catch {
      // A browser that refuses to speak (no voices, a policy): the numbers still show.
    }
  }
}
