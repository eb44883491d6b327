/**
 * A scene lease in the `snowfire_leases` KV bucket, whose TTL is the lease TTL: `create` takes a
 * free (or expired) lease, `update` by revision renews it. A node that cannot renew within the
 * TTL has lost the scene; the log's fencing stops it writing even before it notices.
 */
import type { NatsLink } from "./nats_link.ts";
import { isStreamNotFound, isWrongLastSequence } from "./nats_errors.ts";

const encoder = new TextEncoder();

/** A held lease: renew it with the revision of the last write. */
export interface Lease {
  scene: string;
  revision: number;
}

/** Takes the scene's lease when nobody holds it (or we still do); null when another node does. */
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
  // Held: by us (say after a step-down that kept it), which we may take back by revision.
  const entry = await link.leases.get(scene);
  if (entry && entry.operation === "PUT" && entry.string() === nodeId) {
    try {
      const revision = await link.leases.update(scene, encoder.encode(nodeId), entry.revision);
      return { scene, revision };
    } catch {
      return null;
    }
  }
  return null;
}

/**
 * Renews a held lease; throws when it was lost (expired and taken, or rewritten: see
 * {@link isLeaseLost}) or NATS failed.
 */
export async function renewLease(link: NatsLink, lease: Lease, nodeId: string): Promise<void> {
  lease.revision = await link.leases.update(lease.scene, encoder.encode(nodeId), lease.revision);
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
