/** Human sentences for what happened in the scene, used by the HUD's toasts. */
import type { ErrorMessage } from "../../shared/protocol.ts";
import type { EventBody, RulesBody, Settings, Theme } from "../../shared/types.ts";

/** The colours' names as the picker and the settings show them. */
export const THEME_LABELS: Readonly<Record<Theme, string>> = {
  "red-gold": "Red and gold",
  "blue-silver": "Blue and silver",
  "green-purple": "Green and purple",
  "rainbow": "Rainbow",
};

/** A theme in a sentence, e.g. "red and gold" (an unknown id as it is). */
export function themeWords(theme: string): string {
  const label = (THEME_LABELS as Record<string, string>)[theme];
  return label ? label.toLowerCase() : theme;
}

/** Words for a snow intensity in [0, 1]. */
function snowWords(snow: number): string {
  if (snow === 0) return "stopped the snow";
  if (snow < 0.3) return "made the snow light";
  if (snow < 0.7) return "made the snow steady";
  return "made the snow heavy";
}

/** Describes a settings change, e.g. "turned the show off, made the snow heavy". */
export function describeSettings(change: Partial<Settings>): string {
  const parts: string[] = [];
  if (change.snow !== undefined) parts.push(snowWords(change.snow));
  if (change.windSpeed !== undefined) parts.push(`set the wind to ${change.windSpeed} m/s`);
  if (change.windDirection !== undefined) parts.push(`turned the wind to ${change.windDirection}°`);
  if (change.theme !== undefined) {
    parts.push(
      change.theme === "auto"
        ? "let the fireworks pick their colours"
        : `chose ${themeWords(change.theme)} fireworks`,
    );
  }
  if (change.show !== undefined) parts.push(`turned the show ${change.show ? "on" : "off"}`);
  if (change.fountain !== undefined) {
    parts.push(`turned the fountain ${change.fountain ? "on" : "off"}`);
  }
  return parts.join(", ");
}

/** Words for a firework kind id, e.g. "chrysanthemum" or "multi-break" → "multi break". */
export function kindWords(kind: string): string {
  return kind.replace(/[-_]+/g, " ");
}

/**
 * What `who` did, e.g. "Ana launched a peony in blue and silver". `themeSetting` is the scene's theme
 * setting, used when the launch named none.
 */
export function describeEvent(
  who: string,
  body: EventBody,
  themeSetting: Settings["theme"],
  whom: (peer: string) => string = () => "someone",
): string {
  switch (body.type) {
    case "launch": {
      const theme = body.theme ?? (themeSetting === "auto" ? null : themeSetting);
      const kind = (body as { kind?: string }).kind;
      const what = kind ? kindWords(kind) : "firework";
      return theme
        ? `${who} launched a ${what} in ${themeWords(theme)}`
        : `${who} launched a ${what}`;
    }
    case "gun":
      return `${who} fired the particle gun`;
    case "settings":
      return `${who} ${describeSettings(body.settings)}`;
    case "show":
      return `${who} set the show “${body.title}” (${body.cues.length} cues) to play`;
    case "show-cancel":
      return `${who} cancelled a show`;
    case "rules":
      return `${who} ${describeRules(body, whom)}`;
  }
}

/**
 * What a host's rules change did, after the host's name; `whom` names the person it was done to
 * ("Ben", or "you" for this viewer): "made Ben a host", "made you a host".
 */
function describeRules(body: RulesBody, whom: (peer: string) => string): string {
  switch (body.do) {
    case "host":
      return `made ${whom(body.peer)} a host`;
    case "rekey":
      return "made a new host link (the older one no longer works)";
    case "lock":
      return body.lock === "hosts"
        ? "locked the scene settings (hosts only)"
        : "opened the scene settings to everyone";
    case "mute": {
      const name = whom(body.peer);
      const their = name === "you" ? "your" : `${name}’s`;
      return body.on ? `muted ${their} launches` : `unmuted ${their} launches`;
    }
    case "remove":
      return `removed ${whom(body.peer)} from the scene`;
    case "pause":
      return body.on ? "paused launches" : "resumed launches";
    case "countdown":
      return body.countdown ? "started a countdown to a finale" : "cancelled the countdown";
    case "compose":
      return body.on
        ? `let ${whom(body.peer)} compose shows`
        : `no longer lets ${whom(body.peer)} compose shows`;
  }
}

/**
 * Whether a rules event is news worth a toast: a host proving their own key again, or a composer
 * given their right back (every reconnect of their page does one of them), is not.
 */
export function rulesNews(by: string, body: RulesBody): boolean {
  return !((body.do === "host" || body.do === "compose") && body.peer === by);
}

/** Several launches by one person folded into one line, e.g. "Rae launched 5 fireworks". */
export function describeLaunches(who: string, count: number): string {
  return `${who} launched ${count} fireworks`;
}

/**
 * A clear sentence for a refusal from the server. The retry time is not in it: the HUD counts
 * it down next to the sentence.
 */
export function describeError(error: ErrorMessage): string {
  switch (error.code) {
    case "sky_full":
      return error.retryAfterMs === undefined
        ? "The sky is full of fireworks right now. Try again in a moment."
        : "The sky is full of fireworks right now.";
    case "rate_limited":
      return "Easy there: you are going faster than the scene allows.";
    case "room_full":
      return "This scene is full. Try another scene name.";
    case "paused":
      return "The sky is paused while the server recovers; nothing was launched. Try again in a moment.";
    default:
      return `${error.message} (${error.code})`;
  }
}

/**
 * The offline banner's countdown: whole seconds rounded up, and "Reconnecting…" for the last
 * quarter second or when no retry is scheduled (never "Retrying in 0.0 s").
 */
export function retryText(leftMs: number): string {
  return Number.isFinite(leftMs) && leftMs >= 250
    ? `Retrying in ${Math.ceil(leftMs / 1000)} s.`
    : "Reconnecting…";
}

/**
 * The offline banner's sentence for why the link was lost ("connection lost"), or without a
 * reason; the reason's own final dots are dropped (never "connecting….").
 */
export function disconnectedText(reason?: string): string {
  const why = reason ? `: ${reason.replace(/[.…]+$/, "")}` : "";
  return `Disconnected from the scene${why}. The sky is paused until we are back.`;
}
