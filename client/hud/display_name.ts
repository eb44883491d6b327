/** Display names as the client sends them: trimmed, one space between words, within the limit. */
import { NAME_MAX_LENGTH } from "../../shared/constants.ts";

/**
 * A name the server accepts, made from whatever was typed, stored or put in `?name=`: whitespace
 * trimmed and collapsed, control characters dropped, cut to {@link NAME_MAX_LENGTH} code units
 * without splitting a surrogate pair. `undefined` when nothing is left (the server then picks a
 * friendly name).
 *
 * @example
 * ```ts
 * cleanName("  Ana   Lopez ") // "Ana Lopez"
 * cleanName("   ") // undefined
 * ```
 */
export function cleanName(raw: string | null | undefined): string | undefined {
  if (raw === null || raw === undefined) return undefined;
  // deno-lint-ignore no-control-regex
  let name = raw.replace(/[\u0000-\u001f\u007f]/g, " ").replace(/\s+/g, " ").trim();
  if (name.length > NAME_MAX_LENGTH) {
    let cut = NAME_MAX_LENGTH;
    const last = name.charCodeAt(cut - 1);
    if (last >= 0xd800 && last < 0xdc00) cut--; // a high surrogate whose partner would be cut off
    name = name.slice(0, cut).trim();
  }
  return name === "" ? undefined : name;
}
