/**
 * Desync detection: peers report their world hash at checkpoint ticks; once a majority of the
 * peers that could judge a tick reported (or a timeout passed), the peers whose hash differs from
 * the most common one are the minority and need a resync.
 */

/** A decided checkpoint: who disagreed with the majority. */
export interface Verdict {
  tick: number;
  /** Peer ids whose hash was not the majority's. */
  minority: string[];
  /** True when the top hashes tied, so nobody could be called wrong. */
  tie: boolean;
}

interface Ballot {
  firstMs: number;
  hashes: Map<string, string>;
}

/** How many decided checkpoints are remembered to judge late reports against. */
const REMEMBERED_VERDICTS = 32;

/** Hash reports of one room, per checkpoint tick. */
export class HashVotes {
  readonly #ballots = new Map<number, Ballot>();
  /** Majority hash of recently decided ticks (null after a tie), for reports that come late. */
  readonly #settled = new Map<number, string | null>();
  /** Late reports that disagreed with their tick's settled majority. */
  #late: Verdict[] = [];
  readonly #timeoutMs: number;

  constructor(timeoutMs: number) {
    this.#timeoutMs = timeoutMs;
  }

  /** True when some tick awaits a decision or a late report awaits its verdict. */
  get pending(): boolean {
    return this.#ballots.size > 0 || this.#late.length > 0;
  }

  /**
   * Records `peer`'s hash for `tick` (a repeated report replaces the earlier one). A report for a
   * tick already decided is judged at once against that tick's majority.
   */
  report(tick: number, peer: string, hash: string, nowMs: number): void {
    if (this.#settled.has(tick)) {
      const majority = this.#settled.get(tick);
      if (majority !== null && majority !== hash) {
        this.#late.push({ tick, minority: [peer], tie: false });
      }
      return;
    }
    let ballot = this.#ballots.get(tick);
    if (!ballot) {
      ballot = { firstMs: nowMs, hashes: new Map() };
      this.#ballots.set(tick, ballot);
    }
    ballot.hashes.set(peer, hash);
  }

  /**
   * Decides every tick that a majority of its eligible peers reported, or whose first report is
   * older than the timeout; decided ticks are forgotten.
   * @param eligible how many present peers could report for a tick (joined before it).
   */
  decide(nowMs: number, eligible: (tick: number) => number): Verdict[] {
    const verdicts = this.#late;
    this.#late = [];
    for (const [tick, ballot] of this.#ballots) {
      const majorityIn = ballot.hashes.size * 2 > eligible(tick);
      if (!majorityIn && nowMs - ballot.firstMs < this.#timeoutMs) continue;
      this.#ballots.delete(tick);
      const verdict = judge(tick, ballot.hashes);
      verdicts.push(verdict);
      this.#settled.set(tick, verdict.tie ? null : verdict.majority);
      if (this.#settled.size > REMEMBERED_VERDICTS) {
        this.#settled.delete(this.#settled.keys().next().value!);
      }
    }
    return verdicts.map(({ tick, minority, tie }) => ({ tick, minority, tie }));
  }

  /** Forgets a peer's pending reports (it left). */
  forget(peer: string): void {
    for (const ballot of this.#ballots.values()) ballot.hashes.delete(peer);
  }
}

function judge(
  tick: number,
  hashes: Map<string, string>,
): Verdict & { majority: string } {
  const counts = new Map<string, number>();
  for (const h of hashes.values()) counts.set(h, (counts.get(h) ?? 0) + 1);
  let best = "";
  let bestCount = 0;
  let tie = false;
  for (const [h, n] of counts) {
    if (n > bestCount) {
      best = h;
      bestCount = n;
      tie = false;
    } else if (n === bestCount) {
      tie = true;
    }
  }
  if (tie) return { tick, minority: [], tie: true, majority: "" };
  const minority: string[] = [];
  for (const [peer, h] of hashes) if (h !== best) minority.push(peer);
  return { tick, minority, tie: false, majority: best };
}
