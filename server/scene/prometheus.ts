/**
 * Metric families as Prometheus text (exposition format 0.0.4), the one writer of `/metrics`
 * lines: the server's own figures (`metrics.ts`), the stored log's (`local/storage_metrics.ts`)
 * and a cluster node's (`cluster/cluster_metrics.ts`) are tables of families read from a source
 * when rendered.
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
  labels: (...source: A) => string = () => "",
): Family<A> {
  return { name, type, help, samples: (...s) => [[labels(...s), read(...s)]] };
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
