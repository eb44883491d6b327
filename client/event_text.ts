/** Human sentences for what happened in the scene, used by the HUD's toasts. */
import type { ErrorMessage } from "../shared/protocol.ts";
import type { EventBody, Settings } from "../shared/types.ts";

/** Words for a snow intensity in [0, 1]. */
function snowWords(snow: number): string {
  if (snow === 0) return "stopped the snow";
  if (snow < 0.3) return "made the snow light";
  if (snow < 0.7) return "made the snow steady";
  return "made the snow heavy";
}

/** Describes a settings change, e.g. "turned the show off, made the snow heavy". */
function describeSettings(change: Partial<Settings>): string {
  const parts: string[] = [];
  if (change.snow !== undefined) parts.push(snowWords(change.snow));
  if (change.windSpeed !== undefined) parts.push(`set the wind to ${change.windSpeed} m/s`);
  if (change.windDirection !== undefined) parts.push(`turned the wind to ${change.windDirection}°`);
  if (change.theme !== undefined) {
    parts.push(
      change.theme === "auto"
        ? "let the fireworks pick their colours"
        : `chose ${change.theme} fireworks`,
    );
  }
  if (change.show !== undefined) parts.push(`turned the show ${change.show ? "on" : "off"}`);
  if (change.fountain !== undefined) {
    parts.push(`turned the fountain ${change.fountain ? "on" : "off"}`);
  }
  return parts.join(", ");
}

/**
 * What `who` did, e.g. "Ana launched a blue-silver firework". `themeSetting` is the scene's theme
 * setting, used when the launch named none.
 */
export function describeEvent(
  who: string,
  body: EventBody,
  themeSetting: Settings["theme"],
): string {
  switch (body.type) {
    case "launch": {
      const theme = body.theme ?? (themeSetting === "auto" ? null : themeSetting);
      return theme ? `${who} launched a ${theme} firework` : `${who} launched a firework`;
    }
    case "gun":
      return `${who} fired the particle gun`;
    case "settings":
      return `${who} ${describeSettings(body.settings)}`;
  }
}

/** A clear sentence for a refusal from the server. */
export function describeError(error: ErrorMessage): string {
  const wait = error.retryAfterMs !== undefined
    ? ` Try again in ${Math.max(1, Math.ceil(error.retryAfterMs / 1000))} s.`
    : "";
  switch (error.code) {
    case "sky_full":
      return `The sky is full of fireworks right now.${wait || " Try again in a moment."}`;
    case "rate_limited":
      return `Easy there: you are launching faster than the scene allows.${wait}`;
    case "room_full":
      return "This scene is full. Try another scene name.";
    case "paused":
      return "The sky is paused while the server recovers; nothing was launched. Try again in a moment.";
    default:
      return `${error.message} (${error.code})`;
  }
}
