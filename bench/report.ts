/**
 * One summary row per measured comparison. A bench calls `reportRow` for each headline figure; `bench/run.ts`
 * collects the rows of every bench it ran and prints them as one table at the end, so `npm run bench` ends with
 * the figures README's benchmark table is built from.
 */
export interface BenchRow {
  /** What is measured, e.g. "Glob **\/*.ts (10 000 matches)". */
  what: string;
  /** The peer measured in the same run, e.g. "rg --files -g". */
  peer: string;
  /** ours / peer for times (lower is better), or ours / peer for throughput when `higherIsBetter`. */
  ratio: number;
  /** Lowest and highest ratio over the paired runs, when there were several. */
  spread?: [number, number];
  /** The raw figures behind the ratio, e.g. "19 ms vs 17 ms". */
  detail?: string;
  /** The goal from the issue, e.g. "≤ 1.1×", shown beside the result. */
  goal?: string;
  higherIsBetter?: boolean;
}

export const ROW_PREFIX = "@bench-row ";

export function reportRow(row: BenchRow): void {
  console.log(ROW_PREFIX + JSON.stringify(row));
}

export function formatRow(row: BenchRow): string {
  const spread = row.spread ? ` (spread ${row.spread[0].toFixed(2)}–${row.spread[1].toFixed(2)}×)` : "";
  const detail = row.detail ? `; ${row.detail}` : "";
  const goal = row.goal ? ` [goal ${row.goal}]` : "";
  return `${row.what} vs ${row.peer}: ${row.ratio.toFixed(2)}×${spread}${detail}${goal}`;
}

/** Ratios of alternating pairs → median ratio and spread. */
export function pairedRatios(ours: number[], peer: number[]): { ratio: number; spread: [number, number] } {
  const ratios = ours.map((o, i) => o / peer[i]).sort((a, b) => a - b);
  const mid = ratios.length >> 1;
  const ratio = ratios.length % 2 ? ratios[mid] : (ratios[mid - 1] + ratios[mid]) / 2;
  return { ratio, spread: [ratios[0], ratios[ratios.length - 1]] };
}
