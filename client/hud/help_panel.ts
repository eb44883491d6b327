/**
 * The Help panel: the gestures and keys the input code knows (`index.html` lists them; keep the
 * two in step with `client/input/`), opened from the bar's Help button or the `?` key, and this
 * device's Quality choice ({@link QualityMenu}). It is one of the bar's sheets, so Escape, a tap
 * in the sky or another panel closes it.
 */
import { element, typingInControl } from "./dom.ts";

/** Binds the `?` key to the Help button (the sheets bind the button to the panel). */
export class HelpPanel {
  private readonly button: HTMLButtonElement;
  private readonly abort = new AbortController();

  constructor(button = element<HTMLButtonElement>("open-help")) {
    this.button = button;
    document.addEventListener("keydown", (event) => this.onKey(event), {
      signal: this.abort.signal,
    });
  }

  /** Whether the panel is open. */
  get isOpen(): boolean {
    return this.button.getAttribute("aria-expanded") === "true";
  }

  /** Removes the key listener. */
  dispose(): void {
    this.abort.abort();
  }

  private onKey(event: KeyboardEvent): void {
    if (event.key !== "?" || event.repeat || event.ctrlKey || event.metaKey || event.altKey) return;
    if (typingInControl(event)) return;
    // The button toggles its sheet (sheets.ts), as a click would.
    this.button.click();
    event.preventDefault();
  }
}
