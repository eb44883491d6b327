/** Errors the world throws. Each carries a machine-readable `code` and a human message. */

/** An event arrived for a tick the world has already simulated. */
export class TickInPastError extends RangeError {
  /** Machine-readable error code. */
  readonly code = "tick_in_past";
  constructor(eventTick: number, worldTick: number) {
    super(`event for tick ${eventTick} arrived after the world reached tick ${worldTick}`);
    this.name = "TickInPastError";
  }
}

/**
 * Admission control failed: an event would need more particle slots than the world has left.
 * The server refuses such launches up front, so a client that sees this has a bug or a
 * different capacity than the server.
 */
export class SkyFullError extends RangeError {
  /** Machine-readable error code, the same as the protocol's `sky_full`. */
  readonly code = "sky_full";
  constructor(needed: number, used: number, capacity: number) {
    super(
      `sky is full: an event needs ${needed} particle slots but ${used} of ${capacity} are in use`,
    );
    this.name = "SkyFullError";
  }
}
