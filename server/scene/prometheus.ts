/**
 * Metric families as Prometheus text (exposition format 0.0.4), the one writer of `/metrics`
 * lines: the server's own figures (`metrics.ts`), the stored log's (`local/storage_metrics.ts`)
 * and a cluster node's (`cluster/cluster_metrics.ts`) are tables of families read from a source
 * when rendered: families of one sample ({@link one}), of a {@link Duration}'s two
 * ({@link durations}) or of their own.
 *
 * @example
 * ```ts
 * import { one, prometheusText } from "./prometheus.ts";
 * const families = [one("demo_total", "counter", "Demos run.", (n: number) => n)];
 * prometheusText(families, 3); // "# HELP demo_total Demos run.\n# TYPE demo_total counter\ndemo_total 3\n"
 * ```
 */

/** A sample: its labels as written (`""` or `{code="rate"}`) and its value. */
export type Sample = [labels: string, value: number];

/** One metric family, whose samples are read from the source (`A`: its arguments) when rendered. */
export interface Family<A extends unknown[]> {
  name: string;
  type: "counter" | "gauge";
  help: string;
  samples: (...source: A) => Sample[];
}

/** How a family's single sample is labelled, from the source (default: no labels). */
export type Labels<A extends unknown[]> = (...source: A) => string;

/**
 * A family with one sample, labelled by `labels` (default none).
 *
 * @example
 * ```ts
 * import { one } from "./prometheus.ts";
 * one("up", "gauge", "1 when up.", () => 1).samples(); // [["", 1]]
 * ```
 */
export function one<A extends unknown[]>(
  name: string,
  type: Family<A>["type"],
  help: string,
  read: (...source: A) => number,
  labels: Labels<A> = () => "",
): Family<A> {
  return { name, type, help, samples: (...s) => [[labels(...s), read(...s)]] };
}

/**
 * A duration measured again and again (a scheduler pass, a sweep, a relay's lag): the last one
 * and the longest seen, in ms.
 *
 * @example
 * ```ts
 * import { Duration } from "./prometheus.ts";
 * const sweep = new Duration();
 * sweep.record(9);
 * sweep.record(4);
 * console.log(sweep.lastMs, sweep.maxMs); // 4 9
 * ```
 */
export class Duration {
  lastMs = 0;
  maxMs = 0;

  /** Records one more, `ms` long. */
  record(ms: number): void {
    this.lastMs = ms;
    if (ms > this.maxMs) this.maxMs = ms;
  }
}

/**
 * A {@link Duration}'s two gauges, `<name>_ms` (the last `what`) and `<name>_max_ms` (the
 * longest), in ms to the microsecond.
 *
 * @example
 * ```ts
 * import { Duration, durations, prometheusText } from "./prometheus.ts";
 * const families = durations("sweep", "retention sweep", (d: Duration) => d);
 * prometheusText(families, new Duration()); // "# HELP sweep_ms Last retention sweep, ms.\n…sweep_max_ms 0\n"
 * ```
 */
export function durations<A extends unknown[]>(
  name: string,
  what: string,
  read: (...source: A) => Duration,
  labels?: Labels<A>,
): Family<A>[] {
  return [
    one(`${name}_ms`, "gauge", `Last ${what}, ms.`, (...s) => round3(read(...s).lastMs), labels),
    one(
      `${name}_max_ms`,
      "gauge",
      `Longest ${what}, ms.`,
      (...s) => round3(read(...s).maxMs),
      labels,
    ),
  ];
}

/**
 * The families' text, each with its HELP and TYPE lines (also when it has no sample), every line
 * ending in a newline.
 *
 * @example
 * ```ts
 * import { one, prometheusText } from "./prometheus.ts";
 * prometheusText([one("up", "gauge", "1 when up.", () => 1)]); // "# HELP up 1 when up.\n# TYPE up gauge\nup 1\n"
 * ```
 */
export function prometheusText<A extends unknown[]>(
  families: readonly Family<A>[],
  ...source: A
): string {
  const lines: string[] = [];
  for (const { name, type, help, samples } of families) {
    lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
    for (const [labels, value] of samples(...source)) lines.push(`${name}${labels} ${value}`);
  }
  return lines.join("\n") + "\n";
}

/**
 * `x` rounded to three decimals (milliseconds to the microsecond).
 *
 * @example
 * ```ts
 * import { round3 } from "./prometheus.ts";
 * round3(1.23456); // 1.235
 * ```
 */
export function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}
