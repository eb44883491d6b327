/**
 * A scene lease in the `snowfire_leases` KV bucket, whose TTL is the lease TTL: `create` takes a
 * free (or expired) lease, `update` by revision renews it. A node that cannot renew within the
 * TTL has lost the scene; the log's fencing stops it writing even before it notices. A holder
 * whose process NATS no longer knows (see `holderGone`) loses it at once: a killed owner's scenes
 * are taken over in well under a second after its heartbeats stop, not a TTL later.
 */
import type { NatsLink } from "./nats_link.ts";
import { isStreamNotFound, isWrongLastSequence } from "./nats_errors.ts";
import { holderGone } from "./node_liveness.ts";

const encoder = new TextEncoder();

/** A NATS server lost within this long makes a holder's silence uncertain (`acquireLease`). */
const SERVER_LOSS_MS = 10_000;
/** …and it is asked again after this long: a reconnect (250 ms wait, then connect) fits in it. */
const RECONNECT_CONFIRM_MS = 2000;

/** A held lease: renew it with the revision of the last write. */
export interface Lease {
  scene: string;
  revision: number;
}

/**
 * Takes the scene's lease when nobody holds it (or we still do, or its holder's process is gone
 * from NATS); null when another live node does.
 */
export async function acquireLease(
  link: NatsLink,
  scene: string,
  nodeId: string,
): Promise<Lease | null> {
  try {
    const revision = await link.leases.create(scene, encoder.encode(nodeId));
    return { scene, revision };
  } catch (e) {
    // Refused: the key holds a lease (a deleted or expired one would have been replaced).
    if (!isWrongLastSequence(e)) throw e;
  }
  const entry = await link.leases.get(scene);
  if (!entry || entry.operation !== "PUT") return null;
  const holder = entry.string();
  // Held: by us (say after a step-down that kept it), which we may take back by revision; or by
  // a process NATS no longer knows (killed: its lease would outlive it by up to a TTL), which
  // we replace by revision (if it renewed meanwhile, it is alive and keeps it).
  // While a NATS server is lost (or was a moment ago), "nobody answers" may be a holder whose
  // connection was on it, reconnecting: asked again after that, or it loses a scene it still
  // stamps (seen: the sky paused 12-21 s, the takeover waiting for the log's election).
  const confirmMs = link.serverLostWithin(SERVER_LOSS_MS) ? RECONNECT_CONFIRM_MS : 0;
  if (holder === nodeId || await holderGone(link.nc, processOf(holder), 500, confirmMs)) {
    try {
      const revision = await link.leases.update(scene, encoder.encode(nodeId), entry.revision);
      return { scene, revision };
    } catch {
      return null;
    }
  }
  return null;
}

/** The node process behind a lease's holder: `sweep.<node>` is held by `<node>` (node ids have no dots). */
function processOf(holder: string): string {
  return holder.slice(holder.lastIndexOf(".") + 1);
}

/**
 * A renewal waits this long for its answer (not the bucket's 5 s): one sent into a server that
 * died is lost with its socket, and the owner renews again sooner (one that landed after all is
 * adopted by the next).
 */
export const RENEW_TIMEOUT_MS = 1000;

/**
 * Renews a held lease (adopting a renewal of ours that landed though its answer was lost, taking
 * it again when it expired and nobody took it);
 * throws when it was lost (expired and taken, or rewritten: see
 * {@link isLeaseLost}) or NATS failed.
 */
export async function renewLease(link: NatsLink, lease: Lease, nodeId: string): Promise<void> {
  try {
    const data = encoder.encode(nodeId);
    lease.revision = await link.leases.update(lease.scene, data, lease.revision, RENEW_TIMEOUT_MS);
  } catch (e) {
    if (!isWrongLastSequence(e)) throw e;
    // A renewal whose answer was lost (a timeout during the bucket's leader election) may have
    // landed after all: the key then names this node at a later revision. Only this node writes
    // its own id there, so that revision is ours: adopt it (the next renewal goes on from it).
    const entry = await link.leases.get(lease.scene);
    if (!entry || entry.operation !== "PUT") {
      // Gone: it expired while the bucket could not take renewals (its leader's server died
      // and it elected another, 4-9 s, past the TTL), and nobody took it since. Taken again by
      // create (refused if someone holds it now). Safe as every ownership is: a node that took
      // the scene meanwhile and let it go appended its marker, which fences this owner's next
      // append.
      try {
        lease.revision = await link.leases.create(lease.scene, encoder.encode(nodeId));
        return;
      } catch {
        throw e;
      }
    }
    if (entry.string() !== nodeId) throw e;
    // Ours at our revision or below: a replica a moment behind answered; not a loss (the next
    // renewal asks again).
    if (entry.revision <= lease.revision) throw new Error("the lease read lags its renewal");
    lease.revision = entry.revision;
  }
}

/** The renewal failed because the lease is gone, not because NATS did: stop owning. */
export function isLeaseLost(e: unknown): boolean {
  return isWrongLastSequence(e) || isStreamNotFound(e);
}

/** Gives the lease up (only if still ours), so another node can take the scene at once. */
export async function releaseLease(link: NatsLink, lease: Lease): Promise<void> {
  try {
    await link.leases.delete(lease.scene, { previousSeq: lease.revision });
  } catch {
    // Already gone or taken: nothing to release.
  }
}
