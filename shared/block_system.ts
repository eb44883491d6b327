/**
 * What the fireworks and the particle gun share: a seed, a pool of per-event blocks that renders
 * as a view, and a count of live particles. Each system adds its own spawning and motion.
 *
 * @example
 * ```ts
 * import { Gun } from "./gun.ts";
 * const gun = new Gun(7, 1000); // a BlockSystem
 * gun.used(); // 0 slots reserved
 * ```
 */
import { type Block, ParticlePool } from "./particle_pool.ts";
import type { FireworkView } from "./views.ts";

/** A particle system whose events each own one block of a pool. */
export abstract class BlockSystem<B extends Block> {
  /** The scene seed: every random stream is keyed by it. */
  readonly seed: number;
  /** Render view and storage. */
  readonly pool: ParticlePool<B>;
  /** Live particles; subclasses count spawns and deaths. */
  protected liveCount = 0;

  /**
   * `slack`: the pool's arena slack (see ParticlePool; 1 compacts as soon as a block ends);
   * `stateless`: the pool keeps only birth arrays until its state is asked for.
   */
  constructor(seed: number, capacity: number, slack = 1, stateless = false) {
    this.seed = seed;
    this.pool = new ParticlePool<B>(capacity, slack, stateless);
  }

  /** The render view of every particle of the system. */
  get view(): FireworkView {
    return this.pool;
  }

  /** Live particles. */
  live(): number {
    return this.liveCount;
  }

  /** Slots reserved by live events (what admission control counts). */
  used(): number {
    return this.pool.used;
  }
}
