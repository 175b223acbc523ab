/**
 * The product view's sparkline: the product's total stock at the end of each of the last 30 days (UTC), from
 * `GET /api/v1/widget/{id}/history/` (docs/api/stock-history.md), as a small SVG drawn here (no chart library
 * in the widget). The SVG is an image with a text alternative: the first and the latest balance.
 */
import type { Schema } from '../../kit/api-types.js';

export type StockHistory = Schema<'StockHistory'>;

const SVG = 'http://www.w3.org/2000/svg';
const WIDTH = 120;
const HEIGHT = 28;
const PAD = 2;

function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string>): SVGElementTagNameMap[K] {
  const el = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attrs)) el.setAttribute(name, value);
  return el;
}

/** The points of the line in the SVG's own coordinates: oldest left, zero (or the lowest balance) at the bottom. */
export function sparklinePoints(quantities: number[]): string {
  const low = Math.min(0, ...quantities);
  const high = Math.max(...quantities, low + 1);
  const step = quantities.length > 1 ? (WIDTH - 2 * PAD) / (quantities.length - 1) : 0;
  return quantities.map((q, i) => `${(PAD + i * step).toFixed(1)},${(HEIGHT - PAD - ((q - low) / (high - low)) * (HEIGHT - 2 * PAD)).toFixed(1)}`).join(' ');
}

/** The sparkline of `history`, or null when it has no point. */
export function sparkline(history: StockHistory): SVGSVGElement | null {
  const points = history.points;
  if (points.length === 0) return null;
  const first = points[0];
  const last = points[points.length - 1];
  const label = `Stock over the last ${points.length} days: ${first.stock_display} at the start, ${last.stock_display} now.`;
  const el = svg('svg', {
    class: 'sparkline',
    viewBox: `0 0 ${WIDTH} ${HEIGHT}`,
    width: String(WIDTH),
    height: String(HEIGHT),
    role: 'img',
    'aria-label': label,
  });
  const title = svg('title', {});
  title.textContent = label;
  el.append(
    title,
    svg('polyline', {
      points: sparklinePoints(points.map((p) => p.quantity)),
      fill: 'none',
      stroke: 'currentColor',
      'stroke-width': '1.5',
      'stroke-linejoin': 'round',
    }),
  );
  return el;
}
