/**
 * Host keys: 192 random bits from the system's CSPRNG as 32 base64url characters, stored only
 * as their SHA-256 (hex) and checked against every stored hash in constant time. A key is sent
 * to the one person it makes a host, and nowhere else.
 *
 * @example
 * ```ts
 * import { hashHostKey, keyMatches, mintHostKey } from "./host_keys.ts";
 * const key = mintHostKey();
 * console.log(keyMatches([hashHostKey(key)], key)); // true
 * ```
 */
import { Buffer } from "node:buffer";
import { createHash, timingSafeEqual } from "node:crypto";

/** Random bytes in a host key (192 bits: far beyond guessing, at any request rate). */
export const HOST_KEY_BYTES = 24;

/** A fresh host key: 32 base64url characters. */
export function mintHostKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(HOST_KEY_BYTES));
  let text = "";
  for (const b of bytes) text += String.fromCharCode(b);
  return btoa(text).replaceAll("+", "-").replaceAll("/", "_");
}

/** The SHA-256 of a key, hex: what is stored. */
export function hashHostKey(key: string): string {
  return createHash("sha256").update(key, "utf8").digest("hex");
}

/**
 * Whether `key` is one of the keys whose hashes are `hashes`. It compares the key's hash with
 * every stored hash, each in constant time, and never stops early: the time it takes says
 * nothing about which hash (or how much of one) matched.
 */
export function keyMatches(hashes: readonly string[], key: string): boolean {
  const probe = createHash("sha256").update(key, "utf8").digest();
  let found = false;
  for (const hash of hashes) {
    const stored = Buffer.from(hash, "hex");
    if (stored.length !== probe.length) continue;
    if (timingSafeEqual(stored, probe)) found = true;
  }
  return found;
}

/**
 * The stored form of a browser's person token in one scene: the SHA-256 (hex) of the scene id and
 * the token, so the same browser is not recognisable across scenes from what is stored.
 *
 * @example
 * ```ts
 * import { hashPerson } from "./host_keys.ts";
 * console.log(hashPerson("quiet-pine", "AAAAAAAAAAAAAAAAAAAAAA").length); // 64
 * ```
 */
export function hashPerson(scene: string, token: string): string {
  return createHash("sha256").update(`snowfire-person\n${scene}\n${token}`, "utf8").digest("hex");
}
