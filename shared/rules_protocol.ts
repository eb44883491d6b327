/**
 * The host rules' wire schemas (part of the protocol, re-exported by protocol.ts): peer ids and
 * key hashes, the settings lock, the countdown, the `rules` events the server stamps and the
 * rules in force a snapshot carries. Server-only fields are marked; shared/rules.ts folds them.
 *
 * @example
 * ```ts
 * import { RulesBodySchema } from "./rules_protocol.ts";
 * const body = RulesBodySchema.parse({ type: "rules", do: "compose", peer: "p1", on: true });
 * console.log(body.do); // "compose"
 * ```
 */
import { z } from "zod";

/** A peer id as the server makes them (`p…`), or `show`. */
export const PeerIdSchema = z.string().min(1).max(64);
/** A host key's SHA-256, hex: what the server stores (never sent to clients). */
export const KeyHashSchema = z.string().regex(/^[0-9a-f]{64}$/);

/** A host key as minted: 32 base64url characters (192 random bits). */
export const HostKeySchema = z.string().regex(/^[A-Za-z0-9_-]{32}$/, "not a host key");

/** Who may change the scene's settings. */
export const SettingsLockSchema = z.enum(["hosts", "everyone"]);
/** Who may change the scene's settings: its hosts only, or everyone. */
export type SettingsLock = z.infer<typeof SettingsLockSchema>;

/**
 * A countdown: it reaches zero at `tick` (the scene's clock), then the finale plays for
 * `seconds` at `intensity` (1 gentle – 5 dense). Set by a host.
 */
export const CountdownSchema = z.object({
  tick: z.number().int().min(0),
  seconds: z.number().int().min(5).max(120),
  intensity: z.number().int().min(1).max(5),
}).strict();
/** A countdown to `tick`, then a finale of `seconds` at `intensity`. */
export type Countdown = z.infer<typeof CountdownSchema>;

/**
 * A host's decision, stamped by the server as a `rules` event (clients cannot submit one: they
 * send a `host` message the server checks). `host` grants host rights to `peer` (`key` is the
 * SHA-256 of the key minted for it; the server removes it before any client sees the event).
 */
export const RulesBodySchema = z.discriminatedUnion("do", [
  z.object({
    type: z.literal("rules"),
    do: z.literal("host"),
    peer: PeerIdSchema,
    key: KeyHashSchema.optional(),
    /** For a grant: the hash of the granting host's own key (server only, like `key`). */
    from: KeyHashSchema.optional(),
    /** For a claim: the hash of the key it proved (server only, like `key`). */
    via: KeyHashSchema.optional(),
  }).strict(),
  z.object({
    type: z.literal("rules"),
    do: z.literal("rekey"),
    /** The host who asked for a new host link: their older key stops working. */
    peer: PeerIdSchema,
    /** The hash of the new key, and of the one it replaces (server only). */
    key: KeyHashSchema.optional(),
    old: KeyHashSchema.optional(),
    /** Other connections whose host rights came from the older key: they lose them. */
    drop: z.array(PeerIdSchema).max(64),
  }).strict(),
  z.object({ type: z.literal("rules"), do: z.literal("lock"), lock: SettingsLockSchema }).strict(),
  z.object({
    type: z.literal("rules"),
    do: z.literal("mute"),
    peer: PeerIdSchema,
    on: z.boolean(),
    /**
     * The hash of the person's browser token (see `HelloMessageSchema.person`), when their page
     * sent one: the mute follows them across reconnects. Server only, like `key`.
     */
    person: KeyHashSchema.optional(),
  }).strict(),
  z.object({
    type: z.literal("rules"),
    do: z.literal("remove"),
    peer: PeerIdSchema,
    /**
     * The hash of the removed person's browser token (see `HelloMessageSchema.person`), when
     * their page sent one: it keeps them out after a reconnect too. Server only, like `key`.
     */
    person: KeyHashSchema.optional(),
  }).strict(),
  z.object({ type: z.literal("rules"), do: z.literal("pause"), on: z.boolean() }).strict(),
  z.object({
    type: z.literal("rules"),
    do: z.literal("countdown"),
    countdown: CountdownSchema.nullable(),
  }).strict(),
  /**
   * A host lets `peer` (present) compose shows, or (`on: false`) no longer. The right follows the
   * person: with `person` (their browser token's hash, server only, as for a mute) a new
   * connection of the same browser gets it back by a `compose` event the server stamps after its
   * welcome (`by` that connection); `on: false` takes it from the person's other connections
   * (`drop`) too.
   */
  z.object({
    type: z.literal("rules"),
    do: z.literal("compose"),
    peer: PeerIdSchema,
    on: z.boolean(),
    /** The hash of the person's browser token, when known (server only). */
    person: KeyHashSchema.optional(),
    /** With `on: false`: the same person's other connections, which lose the right too. */
    drop: z.array(PeerIdSchema).max(1024).optional(),
  }).strict(),
]);
/** A host's decision, as stamped (see RulesBodySchema). */
export type RulesBody = z.infer<typeof RulesBodySchema>;

/**
 * A scene's host rules: who may change settings, who is muted or removed, whether launches are
 * paused (but the hosts'), the countdown, and who the hosts are. `keys` (the hosts' key hashes)
 * stays on the server: clients get the rules without it.
 */
export const RulesSchema = z.object({
  /** SHA-256 (hex) of every host key minted; empty in a scene without a host. */
  keys: z.array(KeyHashSchema).max(256).optional(),
  /** The hash of the founder's key (server only): never forgotten, never taken by a co-host. */
  founder: KeyHashSchema.optional(),
  /** Each key's minter: the hash of the granting host's key, by key hash (server only). */
  minted: z.record(KeyHashSchema, KeyHashSchema).optional(),
  /** The key each host connection proved or was given, by peer id (server only). */
  hostKeys: z.record(PeerIdSchema, KeyHashSchema).optional(),
  /** Peer ids with host rights (granted, or proven with a key), oldest first. */
  hosts: z.array(PeerIdSchema),
  lock: SettingsLockSchema,
  muted: z.array(PeerIdSchema),
  removed: z.array(PeerIdSchema),
  /**
   * Hashes of removed people's browser tokens (server only, like `keys`): a hello carrying one of
   * these tokens is refused with `removed`.
   */
  removedPeople: z.array(KeyHashSchema).max(1024).optional(),
  /** Hashes of muted people's browser tokens (server only): a new connection stays muted. */
  mutedPeople: z.array(KeyHashSchema).max(1024).optional(),
  paused: z.boolean(),
  countdown: CountdownSchema.nullable(),
  /** Peers a host lets compose shows (hosts always may); absent: none. */
  composers: z.array(PeerIdSchema).max(1024).optional(),
  /**
   * The browser token hash behind composer connections, by peer id, when known (server only):
   * the right follows the person to a new connection (see the `compose` rules event).
   */
  composerPeople: z.record(PeerIdSchema, KeyHashSchema).optional(),
}).strict();
/** A scene's host rules (see RulesSchema). */
export type Rules = z.infer<typeof RulesSchema>;
