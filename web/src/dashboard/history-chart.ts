/**
 * The chart of a product's stock over time (docs/api/stock-history.md) with uPlot. uPlot is loaded on first
 * use (`import()`: its own chunk, fetched only when a product page shows a chart), and the canvas is
 * decoration for sighted users: the summary and the table beside it say the same in text.
 */
import type { Schema } from '../kit/api-types.js';

export type StockHistory = Schema<'StockHistory'>;

/** The day (or week, month) a point is labelled with: the period's first day, in words for people. */
export function periodLabel(period: string, interval: StockHistory['interval']): string {
  const date = new Date(`${period}T00:00:00Z`);
  if (interval === 'month') return date.toLocaleDateString(undefined, { year: 'numeric', month: 'long', timeZone: 'UTC' });
  const day = date.toLocaleDateString(undefined, { year: 'numeric', month: 'short', day: 'numeric', timeZone: 'UTC' });
  return interval === 'week' ? `Week of ${day}` : day;
}

/**
 * Draws `history` into `target` (emptied first), as wide as the target and following its width; answers a
 * function that removes the chart.
 */
export async function drawHistoryChart(target: HTMLElement, history: StockHistory): Promise<() => void> {
  const { default: UPlot } = await import('uplot');
  target.replaceChildren();
  // x: the end of each period (the instant its balance holds at), in seconds as uPlot takes time.
  const xs = history.points.map((p) => Date.parse(p.at) / 1000);
  const ys = history.points.map((p) => p.quantity);
  const width = () => Math.max(240, target.clientWidth);
  const chart = new UPlot(
    {
      width: width(),
      height: 260,
      tzDate: (ts) => UPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
      legend: { show: false },
      cursor: { drag: { x: false, y: false } },
      scales: { y: { range: (_u, min, max) => [Math.min(0, min), max > 0 ? max * 1.1 : 1] } },
      axes: [
        { stroke: '#5a6270' },
        // Ticks only at steps the product's quantities can take: a count of pieces never reads 2.5 as "3".
        { stroke: '#5a6270', size: 60, incrs: tickSteps(history.decimals), values: (_u, ticks) => ticks.map((t) => t.toFixed(history.decimals)) },
      ],
      series: [
        {},
        { label: `Stock (${history.unit})`, stroke: '#1f5fbf', width: 2, fill: 'rgba(31, 95, 191, 0.12)', points: { show: history.points.length <= 60 } },
      ],
    },
    [xs, ys],
    target,
  );
  const observer = new ResizeObserver(() => chart.setSize({ width: width(), height: 260 }));
  observer.observe(target);
  return () => {
    observer.disconnect();
    chart.destroy();
  };
}

/** 1, 2 and 5 times the powers of ten from the product's smallest step (10^-decimals) up to a billion. */
function tickSteps(decimals: number): number[] {
  const steps: number[] = [];
  for (let exponent = -decimals; exponent <= 9; exponent++) for (const m of [1, 2, 5]) steps.push(Number((m * 10 ** exponent).toFixed(decimals)));
  return steps;
}
