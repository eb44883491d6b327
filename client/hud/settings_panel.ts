/**
 * The scene settings form: snow amount, wind strength and direction, firework theme, show and
 * fountain switches, and the hosts' fountain rotation and spiral. Changes are sent to the server as `settings` frames and take effect when they
 * come back as events, so every viewer (this one included) sees the same settings.
 *
 * Sending is calm: a slider sends when released, or after a short pause when stepped with the
 * keyboard; radios stepped with arrow keys stop at the ends instead of wrapping from "Heavy" to
 * "None"; and one person sends at most one change per second (see {@link ChangeGate}).
 */
import type { Settings } from "../../shared/types.ts";
import { ChangeGate } from "./change_gate.ts";
import { element } from "./dom.ts";

/** Label for a wind direction: degrees towards which the wind blows (0° = +x, 90° = +z). */
function directionLabel(degrees: number): string {
  return `${Math.round(degrees)}°`;
}

/** A sent change not seen in the world after this long no longer holds its control, ms. */
const SENT_HOLD_MS = 15_000;

/** A pointer press this recent makes a `change` a click (send now), not a key step (wait). */
const POINTER_CHANGE_MS = 800;

/** Binds the settings form in the page. */
export class SettingsPanel {
  private readonly details = element<HTMLDetailsElement>("settings");
  private readonly form = element<HTMLFormElement>("settings-form");
  private readonly windSpeed = element<HTMLInputElement>("wind-speed");
  private readonly windSpeedValue = element<HTMLOutputElement>("wind-speed-value");
  private readonly windDirection = element<HTMLInputElement>("wind-direction");
  private readonly windDirectionValue = element<HTMLOutputElement>("wind-direction-value");
  private readonly theme = element<HTMLSelectElement>("theme");
  private readonly show = element<HTMLInputElement>("show");
  private readonly fountain = element<HTMLInputElement>("fountain");
  private readonly fountainSpin = element<HTMLInputElement>("fountain-spin");
  private readonly fountainSpiral = element<HTMLInputElement>("fountain-spiral");
  private readonly snow: HTMLInputElement[];
  private readonly gate: ChangeGate<Settings>;
  private shown: Settings | null = null;
  private lastPointerMs = -Infinity;
  private dragging: HTMLInputElement | null = null;
  /** Values sent and not yet seen in the world, with when they were sent. */
  private readonly sent = new Map<keyof Settings, { value: unknown; atMs: number }>();

  /**
   * `send` receives each (calmed) change as a partial settings object and returns whether it went
   * out; one that could not (offline) is tried again a second later.
   */
  constructor(send: (change: Partial<Settings>) => boolean) {
    this.gate = new ChangeGate<Settings>((change) => {
      if (!send(change)) return false;
      const atMs = performance.now();
      for (const [field, value] of Object.entries(change)) {
        this.sent.set(field as keyof Settings, { value, atMs });
      }
      return true;
    });
    this.snow = [...this.form.querySelectorAll<HTMLInputElement>('input[name="snow"]')];
    this.form.addEventListener("submit", (event) => event.preventDefault());
    this.form.addEventListener("pointerdown", (event) => {
      this.lastPointerMs = performance.now();
      const target = event.target as HTMLElement;
      if (target === this.windSpeed || target === this.windDirection) {
        this.dragging = target as HTMLInputElement;
      }
    });
    globalThis.addEventListener("pointerup", () => (this.dragging = null));
    const byPointer = () => performance.now() - this.lastPointerMs < POINTER_CHANGE_MS;

    for (const radio of this.snow) {
      radio.addEventListener("change", () => {
        const change = { snow: Number(radio.value) };
        if (byPointer()) this.gate.flush(change);
        else this.gate.push(change);
      });
    }
    const ends = this.snow.length - 1;
    this.form.querySelector("fieldset")?.addEventListener("keydown", (event) => {
      const index = this.snow.indexOf(event.target as HTMLInputElement);
      if (index < 0) return;
      const back = event.key === "ArrowLeft" || event.key === "ArrowUp";
      const forward = event.key === "ArrowRight" || event.key === "ArrowDown";
      // Browsers wrap radio groups; past "Heavy" that would be "None", i.e. stopping the snow.
      if ((back && index === 0) || (forward && index === ends)) event.preventDefault();
    });

    // Sliders show their value while moving. A pointer drag sends on release; arrow keys fire
    // `change` on every step, so those wait for a pause.
    for (
      const [slider, field] of [[this.windSpeed, "windSpeed"], [
        this.windDirection,
        "windDirection",
      ]] as const
    ) {
      slider.addEventListener("input", () => this.labelWind());
      slider.addEventListener("change", () => {
        const change = { [field]: Number(slider.value) } as Partial<Settings>;
        if (byPointer()) this.gate.flush(change);
        else this.gate.push(change);
      });
    }
    this.theme.addEventListener("change", () => {
      this.gate.push({ theme: this.theme.value as Settings["theme"] });
    });
    this.show.addEventListener("change", () => this.gate.flush({ show: this.show.checked }));
    this.fountain.addEventListener(
      "change",
      () => this.gate.flush({ fountain: this.fountain.checked }),
    );
    for (
      const [box, field] of [[this.fountainSpin, "fountainSpin"], [
        this.fountainSpiral,
        "fountainSpiral",
      ]] as const
    ) {
      box.addEventListener("change", () => this.gate.flush({ [field]: box.checked }));
    }
  }

  /** True while the panel is open. */
  get isOpen(): boolean {
    return this.details.open;
  }

  /** Closes the panel (Escape) and gives focus back to its toggle when it was inside. */
  close(): void {
    if (!this.details.open) return;
    const hadFocus = this.details.contains(document.activeElement);
    this.details.open = false;
    if (hadFocus) this.details.querySelector("summary")?.focus();
  }

  /** Shows the settings in force; cheap to call every frame (writes only on change). */
  display(settings: Readonly<Settings>): void {
    const previous = this.shown;
    if (
      previous && previous.snow === settings.snow && previous.windSpeed === settings.windSpeed &&
      previous.windDirection === settings.windDirection && previous.theme === settings.theme &&
      previous.show === settings.show && previous.fountain === settings.fountain &&
      previous.fountainSpin === settings.fountainSpin &&
      previous.fountainSpiral === settings.fountainSpiral
    ) {
      return;
    }
    this.shown = { ...settings };
    // A control the viewer is still changing keeps what they chose until it is sent, and then
    // until the world shows it (a busy page simulates a little behind the server).
    const pending: Partial<Record<keyof Settings, unknown>> = { ...this.gate.pending };
    const nowMs = performance.now();
    for (const [field, sent] of this.sent) {
      if (settings[field] === sent.value || nowMs - sent.atMs > SENT_HOLD_MS) {
        this.sent.delete(field);
      } else if (pending[field] === undefined) {
        pending[field] = sent.value;
      }
    }
    if (pending.snow === undefined) {
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
    }
    if (pending.windSpeed === undefined && this.dragging !== this.windSpeed) {
      this.windSpeed.value = String(settings.windSpeed);
    }
    if (pending.windDirection === undefined && this.dragging !== this.windDirection) {
      this.windDirection.value = String(settings.windDirection);
    }
    if (pending.theme === undefined) this.theme.value = settings.theme;
    if (pending.show === undefined) this.show.checked = settings.show;
    if (pending.fountain === undefined) this.fountain.checked = settings.fountain;
    if (pending.fountainSpin === undefined) this.fountainSpin.checked = !!settings.fountainSpin;
    if (pending.fountainSpiral === undefined) {
      this.fountainSpiral.checked = !!settings.fountainSpiral;
    }
    this.labelWind();
  }

  private labelWind(): void {
    this.windSpeedValue.textContent = `${Number(this.windSpeed.value).toFixed(1)} m/s`;
    this.windDirectionValue.textContent = directionLabel(Number(this.windDirection.value));
  }
}
