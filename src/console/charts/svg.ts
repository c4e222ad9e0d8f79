/**
 * Server-rendered SVG charts for the console: no chart library, no script, no inline style (colours
 * come from classes in the console's stylesheet, which the CSP allows), readable without JavaScript.
 * Each chart has a <title> and <desc> for screen readers, a <title> per bar with its exact count, an
 * optional link per bar (the tasks behind it), and a table with the same numbers beside it.
 */
import { html, type Html } from '../html.js';

/** One bar: a label for the axis and the table, its segments stacked bottom up. */
export interface Bar {
  label: string;
  /** Longer text for the bar's tooltip and the table, e.g. the whole time range. */
  title: string;
  segments: { series: string; value: number }[];
  /** Where a click on the bar goes (the tasks it counts). */
  href?: string;
}

export interface BarChart {
  /** Machine name: `data-chart` on the figure, for tests and styling. */
  id: string;
  title: string;
  description: string;
  bars: Bar[];
  /** Series in stacking order; each gets the class `series-<name>`. */
  series: string[];
  /** An optional line over the bars, 0..1 on its own right-hand scale (e.g. the failure rate). */
  line?: { name: string; values: (number | null)[] };
  /** Show every n-th label on the axis (all of them go into the table). */
  labelEvery?: number;
}

const WIDTH = 720;
const HEIGHT = 180;
const PAD = { top: 10, right: 40, bottom: 28, left: 40 };

/** A round axis maximum at or above `max`: 1, 2, 5 × 10^n. */
export function niceMax(max: number): number {
  if (max <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(max));
  return ([1, 2, 5, 10].map((m) => m * power).find((m) => m >= max) ?? 10 * power) as number;
}

function total(bar: Bar): number {
  return bar.segments.reduce((sum, s) => sum + s.value, 0);
}

export function renderBarChart(chart: BarChart): Html {
  const plotW = WIDTH - PAD.left - PAD.right;
  const plotH = HEIGHT - PAD.top - PAD.bottom;
  const max = niceMax(Math.max(0, ...chart.bars.map(total)));
  const slot = plotW / Math.max(1, chart.bars.length);
  const barW = Math.max(1, slot * 0.8);
  const every = chart.labelEvery ?? 1;
  const y = (value: number): number => PAD.top + plotH - (value / max) * plotH;
  const fixed = (n: number): string => n.toFixed(1);

  const bars = chart.bars.map((bar, i) => {
    const x = PAD.left + i * slot + (slot - barW) / 2;
    let base = 0;
    const rects = chart.series.map((series) => {
      const value = bar.segments.find((s) => s.series === series)?.value ?? 0;
      if (value === 0) return '';
      const rect = html`<rect
        class="series-${series}"
        x="${fixed(x)}"
        y="${fixed(y(base + value))}"
        width="${fixed(barW)}"
        height="${fixed(y(base) - y(base + value))}"
      />`;
      base += value;
      return rect;
    });
    const tip = `${bar.title}: ${bar.segments.map((s) => `${s.value} ${s.series}`).join(', ')}`;
    const group = html`<g class="bar" data-label="${bar.label}" data-total="${total(bar)}">
      <title>${tip}</title>
      <rect
        class="hit"
        x="${fixed(PAD.left + i * slot)}"
        y="${PAD.top}"
        width="${fixed(slot)}"
        height="${plotH}"
      />
      ${rects}
    </g>`;
    const label =
      i % every === 0
        ? html`<text class="axis" x="${fixed(x + barW / 2)}" y="${HEIGHT - 10}" text-anchor="middle"
            >${bar.label}</text
          >`
        : '';
    return html`${bar.href ? html`<a href="${bar.href}">${group}</a>` : group}${label}`;
  });

  const line = chart.line
    ? (() => {
        const points = chart.line.values
          .map((v, i) =>
            v === null
              ? null
              : `${fixed(PAD.left + i * slot + slot / 2)},${fixed(PAD.top + plotH - v * plotH)}`,
          )
          .filter((p): p is string => p !== null);
        return html`<polyline class="line line-${chart.line.name}" points="${points.join(' ')}" />
          <text class="axis" x="${WIDTH - PAD.right + 4}" y="${PAD.top + 8}">100%</text>
          <text class="axis" x="${WIDTH - PAD.right + 4}" y="${PAD.top + plotH}">0%</text>`;
      })()
    : '';

  const titleId = `chart-${chart.id}-title`;
  const descId = `chart-${chart.id}-desc`;
  return html`<figure class="chart" data-chart="${chart.id}">
    <svg
      viewBox="0 0 ${WIDTH} ${HEIGHT}"
      role="img"
      aria-labelledby="${titleId} ${descId}"
      xmlns="http://www.w3.org/2000/svg"
    >
      <title id="${titleId}">${chart.title}</title>
      <desc id="${descId}">${chart.description}</desc>
      <line
        class="axis"
        x1="${PAD.left}"
        y1="${PAD.top + plotH}"
        x2="${WIDTH - PAD.right}"
        y2="${PAD.top + plotH}"
      />
      <text class="axis" x="${PAD.left - 4}" y="${PAD.top + 8}" text-anchor="end">${max}</text>
      <text class="axis" x="${PAD.left - 4}" y="${PAD.top + plotH}" text-anchor="end">0</text>
      ${bars} ${line}
    </svg>
    <figcaption>
      ${chart.title}
      ${
        chart.series.length > 1 || chart.line
          ? html`<span class="legend"
              >${chart.series.map((series) => html`<span class="key key-${series}">${series}</span>`)}
              ${chart.line ? html`<span class="key key-line">${chart.line.name}</span>` : ''}</span
            >`
          : ''
      }
    </figcaption>
    <details>
      <summary>Table</summary>
      <table data-chart-table="${chart.id}">
        <thead>
          <tr>
            <th>Range</th>
            ${chart.series.map((s) => html`<th>${s}</th>`)}
            ${chart.line ? html`<th>${chart.line.name}</th>` : ''}
          </tr>
        </thead>
        <tbody>
          ${chart.bars.map(
            (bar, i) =>
              html`<tr>
                <td>${bar.href ? html`<a href="${bar.href}">${bar.title}</a>` : bar.title}</td>
                ${chart.series.map((s) => html`<td>${bar.segments.find((g) => g.series === s)?.value ?? 0}</td>`)}
                ${chart.line ? html`<td>${percent(chart.line.values[i] ?? null)}</td>` : ''}
              </tr>`,
          )}
        </tbody>
      </table>
    </details>
  </figure>`;
}

function percent(value: number | null): string {
  return value === null ? '–' : `${(value * 100).toFixed(1)}%`;
}

/** The stylesheet rules the charts use (appended to the console's CSS). */
export const CHART_CSS = `
figure.chart { background: #fff; border: 1px solid #d5d9de; margin: 0 0 1rem; padding: .6rem; }
figure.chart svg { width: 100%; height: auto; display: block; }
figure.chart figcaption { font-size: .85rem; color: #6b6f76; }
.chart .axis { stroke: #9aa0a6; fill: #6b6f76; font-size: 10px; stroke-width: .5; }
.chart text.axis { stroke: none; }
.chart rect.hit { fill: transparent; }
.chart g.bar:hover rect.hit { fill: #eef0f3; }
.chart .series-SCHEDULED { fill: #3867d6; } .chart .series-SUCCEEDED { fill: #1b7a3a; }
.chart .series-FAILED { fill: #b3261e; } .chart .series-CANCELLED { fill: #9aa0a6; }
.chart .series-OCCURRENCES { fill: #8e44ad; } .chart .key-OCCURRENCES::before { background: #8e44ad; }
.chart .line { fill: none; stroke: #e8a317; stroke-width: 2; }
.chart .legend { margin-left: 1rem; } .chart .key { margin-right: .8rem; }
.chart .key::before { content: ''; display: inline-block; width: .7em; height: .7em; margin-right: .3em; }
.chart .key-SCHEDULED::before { background: #3867d6; } .chart .key-SUCCEEDED::before { background: #1b7a3a; }
.chart .key-FAILED::before { background: #b3261e; } .chart .key-CANCELLED::before { background: #9aa0a6; }
.chart .key-line::before { background: #e8a317; height: .2em; vertical-align: middle; }
`;
