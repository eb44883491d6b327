/**
 * The scene settings form: snow amount, wind strength and direction, firework theme, show and
 * fountain switches. Changes are sent to the server as `settings` frames and take effect when they
 * come back as events, so every viewer (this one included) sees the same settings.
 */
import type { Settings } from "../shared/types.ts";

function control<T extends HTMLElement>(id: string): T {
  const found = document.getElementById(id);
  if (!found) throw new Error(`missing_element: the page has no #${id}`);
  return found as T;
}

/** Label for a wind direction: degrees towards which the wind blows (0° = +x, 90° = +z). */
function directionLabel(degrees: number): string {
  return `${Math.round(degrees)}°`;
}

/** Binds the settings form in the page. */
export class SettingsPanel {
  private readonly form = control<HTMLFormElement>("settings-form");
  private readonly windSpeed = control<HTMLInputElement>("wind-speed");
  private readonly windSpeedValue = control<HTMLOutputElement>("wind-speed-value");
  private readonly windDirection = control<HTMLInputElement>("wind-direction");
  private readonly windDirectionValue = control<HTMLOutputElement>("wind-direction-value");
  private readonly theme = control<HTMLSelectElement>("theme");
  private readonly show = control<HTMLInputElement>("show");
  private readonly fountain = control<HTMLInputElement>("fountain");
  private readonly snow: HTMLInputElement[];
  private shown: Settings | null = null;

  /** `send` receives each change as a partial settings object. */
  constructor(send: (change: Partial<Settings>) => void) {
    this.snow = [...this.form.querySelectorAll<HTMLInputElement>('input[name="snow"]')];
    this.form.addEventListener("submit", (event) => event.preventDefault());
    for (const radio of this.snow) {
      radio.addEventListener("change", () => send({ snow: Number(radio.value) }));
    }
    // Sliders show their value while dragged and send once when released.
    this.windSpeed.addEventListener("input", () => this.labelWind());
    this.windDirection.addEventListener("input", () => this.labelWind());
    this.windSpeed.addEventListener(
      "change",
      () => send({ windSpeed: Number(this.windSpeed.value) }),
    );
    this.windDirection.addEventListener(
      "change",
      () => send({ windDirection: Number(this.windDirection.value) }),
    );
    this.theme.addEventListener(
      "change",
      () => send({ theme: this.theme.value as Settings["theme"] }),
    );
    this.show.addEventListener("change", () => send({ show: this.show.checked }));
    this.fountain.addEventListener("change", () => send({ fountain: this.fountain.checked }));
  }

  /** Shows the settings in force; cheap to call every frame (writes only on change). */
  display(settings: Readonly<Settings>): void {
    const previous = this.shown;
    if (
      previous && previous.snow === settings.snow && previous.windSpeed === settings.windSpeed &&
      previous.windDirection === settings.windDirection && previous.theme === settings.theme &&
      previous.show === settings.show && previous.fountain === settings.fountain
    ) {
      return;
    }
    this.shown = { ...settings };
    let closest = this.snow[0];
    for (const radio of this.snow) {
      if (
        Math.abs(Number(radio.value) - settings.snow) <
          Math.abs(Number(closest.value) - settings.snow)
      ) {
        closest = radio;
      }
    }
    closest.checked = true;
    this.windSpeed.value = String(settings.windSpeed);
    this.windDirection.value = String(settings.windDirection);
    this.theme.value = settings.theme;
    this.show.checked = settings.show;
    this.fountain.checked = settings.fountain;
    this.labelWind();
  }

  private labelWind(): void {
    this.windSpeedValue.textContent = `${Number(this.windSpeed.value).toFixed(1)} m/s`;
    this.windDirectionValue.textContent = directionLabel(Number(this.windDirection.value));
  }
}
