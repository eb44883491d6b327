/**
 * This browser's person token: 128 random bits (22 base64url characters) minted once and kept in
 * `localStorage`, sent in every `hello`. The server keeps only a per-scene hash of it, so a person
 * a host removed stays out when this browser reconnects or reloads. A new browser profile (or
 * cleared site data, or a private window) is a new person: that still gets someone back in.
 *
 * @example
 * ```ts
 * const net = new Net({ url, person: personToken(), resumeFrom, handlers });
 * ```
 */

/** Where the token is kept (one for every scene). */
export const PERSON_KEY = "snowfire.person";

/** The kept token, minted on first use; a fresh one each visit when storage is unavailable. */
export function personToken(): string {
  try {
    const kept = localStorage.getItem(PERSON_KEY);
    if (kept && /^[A-Za-z0-9_-]{22,64}$/.test(kept)) return kept;
  } catch { /* storage unavailable */ }
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  let text = "";
  for (const b of bytes) text += String.fromCharCode(b);
  const token = btoa(text).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
  try {
    localStorage.setItem(PERSON_KEY, token);
  } catch { /* private mode: this visit only */ }
  return token;
}
