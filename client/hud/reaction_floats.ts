/**
 * Quick reactions: the emoji buttons of the reaction panel, and the reactions everyone in the
 * scene sends floating up the screen with the sender's name in their colour for a few seconds
 * (styles: `.reaction-float` in static/overlays.css; with reduced motion they fade in place). A small
 * pool of elements made once; the oldest is reused when many arrive at once.
 *
 * @example
 * ```ts
 * const floats = new ReactionFloats(document.body);
 * floats.show("🎉", "Ana", "#ffcc66");
 * ```
 */
import { type Reaction, REACTIONS } from "../../shared/protocol.ts";
import { spanPool } from "./dom.ts";

/** Most reactions floating at once. */
export const MAX_FLOATS = 24;

/** The floating reactions overlay. */
export class ReactionFloats {
  readonly #items: HTMLElement[] = [];
  #next = 0;
  /** Every reaction shown, oldest first (the last 50; for tests). */
  readonly seen: { emoji: string; name: string }[] = [];

  constructor(parent: HTMLElement = document.body) {
    const { spans } = spanPool(parent, "reaction-floats", "reaction-float", MAX_FLOATS);
    for (const el of spans) {
      el.addEventListener("animationend", () => (el.hidden = true));
      this.#items.push(el);
    }
  }

  /** Floats `emoji` up from a random spot along the bottom, `name` under it in `color`. */
  show(emoji: string, name: string, color: string): void {
    const el = this.#items[this.#next];
    this.#next = (this.#next + 1) % MAX_FLOATS;
    el.hidden = true;
    el.classList.remove("rising");
    el.replaceChildren(emoji);
    const who = document.createElement("small");
    who.textContent = name;
    who.style.color = color;
    el.append(who);
    el.style.left = `${8 + Math.random() * 78}%`;
    el.hidden = false;
    // Restart the animation on a reused element.
    void el.offsetWidth;
    el.classList.add("rising");
    this.seen.push({ emoji, name });
    if (this.seen.length > 50) this.seen.shift();
  }
}

/**
 * Fills `panel` with one button per reaction; a press calls `send` with it.
 */
export function reactionButtons(panel: HTMLElement, send: (emoji: Reaction) => void): void {
  const names: Record<Reaction, string> = {
    "🎉": "Celebrate",
    "❤️": "Love it",
    "😮": "Wow",
    "👏": "Applause",
    "✨": "Sparkle",
  };
  for (const emoji of REACTIONS) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "chip reaction-button";
    button.textContent = emoji;
    button.title = names[emoji];
    button.setAttribute("aria-label", names[emoji]);
    button.dataset.emoji = emoji;
    button.addEventListener("click", () => send(emoji));
    panel.append(button);
  }
}
