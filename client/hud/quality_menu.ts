/**
 * The Quality choice in the Help panel (Auto / Low / High), remembered in this browser
 * (`render/quality.ts`). Under Auto it says what the page draws now, as the governor steps down
 * on slow frames or back up on fast ones.
 */
import { QUALITY_CHOICES, type QualityChoice, type QualityLevel } from "../render/quality.ts";
import { element } from "./dom.ts";

/** Binds the `quality` radio buttons and the note under them. */
export class QualityMenu {
  private readonly radios: HTMLInputElement[];
  private readonly note: HTMLElement;
  private shown = "";

  /** `choose` gets each new choice (the caller applies and remembers it). */
  constructor(initial: QualityChoice, choose: (choice: QualityChoice) => void) {
    this.radios = [...document.querySelectorAll<HTMLInputElement>('input[name="quality"]')];
    this.note = element("quality-note");
    for (const radio of this.radios) {
      radio.checked = radio.value === initial;
      radio.addEventListener("change", () => {
        const value = radio.value as QualityChoice;
        if (radio.checked && QUALITY_CHOICES.includes(value)) choose(value);
      });
    }
  }

  /** Says what the page draws now under `choice`. */
  show(choice: QualityChoice, level: QualityLevel): void {
    const text = describeQuality(choice, level);
    if (text === this.shown) return;
    this.shown = text;
    this.note.textContent = text;
  }
}

/**
 * One line on what a quality draws.
 *
 * @example
 * ```ts
 * describeQuality("auto", { pixelRatio: 0.75, glow: false, flakeShare: 1 });
 * // "Auto, now: sharpness 0.75×, no glow, every flake. The scene is the same for everyone."
 * ```
 */
export function describeQuality(choice: QualityChoice, level: QualityLevel): string {
  const parts = [
    `sharpness ${Math.round(level.pixelRatio * 100) / 100}×`,
    level.glow ? "glow" : "no glow",
    level.flakeShare >= 1 ? "every flake" : `${Math.round(level.flakeShare * 100)} % of flakes`,
  ].join(", ");
  const name = choice === "auto" ? "Auto, now" : choice === "low" ? "Low" : "High";
  return `${name}: ${parts}. The scene is the same for everyone.`;
}
