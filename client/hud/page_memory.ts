/**
 * What this browser remembers for the scene page: the name typed in the HUD and the page's
 * switches (names by bursts, spoken countdown numbers), in `localStorage`. Storage may be off
 * (private mode): then every value holds for this page only.
 *
 * @example
 * ```ts
 * import { LABELS_KEY, pageSwitch } from "./page_memory.ts";
 * pageSwitch("burst-labels", LABELS_KEY, true, (on) => console.log("labels", on));
 * ```
 */
import { element } from "./dom.ts";
import { cleanName } from "./display_name.ts";

/** Where a name typed in the HUD is remembered. */
const NAME_KEY = "snowfire.name";
/** Where the page's switches are remembered: names by bursts (on unless "off"), spoken numbers. */
export const LABELS_KEY = "snowfire.burstLabels";
export const SPEAK_KEY = "snowfire.speakCountdown";

/** A page switch's remembered value (`fallback` when none, or storage is off). */
function storedSwitch(key: string, fallback: boolean): boolean {
  try {
    const value = localStorage.getItem(key);
    return value === null ? fallback : value === "on";
  } catch {
    return fallback;
  }
}

/** Binds a checkbox to a remembered page switch; `apply` gets its value now and on change. */
export function pageSwitch(
  id: string,
  key: string,
  fallback: boolean,
  apply: (on: boolean) => void,
) {
  const box = element<HTMLInputElement>(id);
  box.checked = storedSwitch(key, fallback);
  apply(box.checked);
  box.addEventListener("change", () => {
    apply(box.checked);
    try {
      localStorage.setItem(key, box.checked ? "on" : "off");
    } catch { /* storage unavailable: the switch holds for this page */ }
  });
}

/** The remembered name, cleaned (an older page may have kept one the server refuses). */
export function storedName(): string | undefined {
  try {
    const stored = localStorage.getItem(NAME_KEY);
    const name = cleanName(stored);
    // A name saved by an older page may be one the server refuses: keep only its clean form.
    if (stored !== null && name !== stored) {
      if (name) localStorage.setItem(NAME_KEY, name);
      else localStorage.removeItem(NAME_KEY);
    }
    return name;
  } catch {
    return undefined;
  }
}

/** Remembers `name` (none: forgets it). */
export function storeName(name: string | undefined): void {
  try {
    if (name) localStorage.setItem(NAME_KEY, name);
    else localStorage.removeItem(NAME_KEY);
  } catch {
    // Storage may be off (private mode); the name still holds for this page.
  }
}
