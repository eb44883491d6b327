/**
 * The per-launch picker: which firework kind and which colours your next launches use. Plain
 * `<select>`s, so it works by touch (the phone's own picker), by keyboard and with screen readers.
 * The choice is remembered in this browser and sent with each launch (`kind`, `theme`).
 */
import { type FireworkKind, isFireworkKind } from "../../shared/firework_kinds.ts";
import { type Theme, THEMES } from "../../shared/types.ts";
import { element } from "./dom.ts";
import { kindWords, THEME_LABELS } from "./event_text.ts";

const KIND_KEY = "snowfire.kind";
const THEME_KEY = "snowfire.theme";

/** What the picker adds to a launch: nothing for "the scene's choice". */
export interface LaunchChoice {
  kind?: FireworkKind;
  theme?: Theme;
}

function remembered(key: string): string {
  try {
    return localStorage.getItem(key) ?? "";
  } catch {
    return "";
  }
}

function remember(key: string, value: string): void {
  try {
    if (value) localStorage.setItem(key, value);
    else localStorage.removeItem(key);
  } catch {
    // Storage may be off; the choice holds for this page.
  }
}

/** Binds `#pick-kind` and `#pick-theme`, and says the choice on the bar (`#picker-summary`). */
export class LaunchPicker {
  private readonly kind = element<HTMLSelectElement>("pick-kind");
  private readonly theme = element<HTMLSelectElement>("pick-theme");
  private readonly summary = element<HTMLElement>("picker-summary");

  /** `kinds`: the firework kinds the world knows; none hides the kind choice. */
  constructor(kinds: readonly string[]) {
    const option = (value: string, label: string) => {
      const item = document.createElement("option");
      item.value = value;
      item.textContent = label;
      return item;
    };
    this.kind.replaceChildren(
      option("", "Surprise me"),
      ...kinds.map((kind) => option(kind, kindWords(kind).replace(/^./, (c) => c.toUpperCase()))),
    );
    this.theme.replaceChildren(
      // The scene's own choice of the same thing (Settings › Firework colours).
      option("", "As in Settings"),
      ...THEMES.map((theme) => option(theme, THEME_LABELS[theme])),
    );
    element("pick-kind-row").hidden = kinds.length === 0;
    const kind = remembered(KIND_KEY);
    if (kinds.includes(kind)) this.kind.value = kind;
    const theme = remembered(THEME_KEY);
    if ((THEMES as readonly string[]).includes(theme)) this.theme.value = theme;
    this.kind.addEventListener("change", () => {
      remember(KIND_KEY, this.kind.value);
      this.summarise();
    });
    this.theme.addEventListener("change", () => {
      remember(THEME_KEY, this.theme.value);
      this.summarise();
    });
    this.summarise();
  }

  /** The bar's words for the choice, e.g. "Peony · Red and gold" or "Surprise me". */
  private summarise(): void {
    const parts: string[] = [];
    if (this.kind.value && !element("pick-kind-row").hidden) {
      parts.push(this.kind.selectedOptions[0]?.textContent ?? this.kind.value);
    }
    if (this.theme.value) parts.push(this.theme.selectedOptions[0]?.textContent ?? "");
    this.summary.textContent = parts.length > 0 ? parts.join(" · ") : "Surprise me";
  }

  /** The fields to add to the next launch. */
  choice(): LaunchChoice {
    const choice: LaunchChoice = {};
    if (isFireworkKind(this.kind.value) && !element("pick-kind-row").hidden) {
      choice.kind = this.kind.value;
    }
    if (this.theme.value) choice.theme = this.theme.value as Theme;
    return choice;
  }
}
