/**
 * Small, dependency-free SVG charts for the published reports (docs/performance.md,
 * docs/reliability.md). Benchmarks import this file by relative path; nothing here runs in a
 * product. The output is deterministic for the same data, so regenerated charts diff cleanly.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export interface Series {
  readonly name: string;
  readonly points: readonly (readonly [number, number])[];
}

export interface LineChartOptions {
  readonly title: string;
  readonly xLabel: string;
  readonly yLabel: string;
  readonly series: readonly Series[];
  readonly width?: number;
  readonly height?: number;
}

export interface Bar {
  readonly label: string;
  readonly value: number;
  /** Bars of one group share a colour; the legend lists the groups. */
  readonly group?: string;
}

export interface BarChartOptions {
  readonly title: string;
  readonly yLabel: string;
  readonly bars: readonly Bar[];
  readonly width?: number;
  readonly height?: number;
}

const DOCS = fileURLToPath(new URL("../docs/", import.meta.url));
const COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#17becf"];
const MARGIN = { top: 36, right: 16, bottom: 48, left: 64 } as const;
const FONT = 'font-family="sans-serif" font-size="12"';

function escapeXml(text: string): string {
  return text.replace(
    /[&<>"]/g,
    (c) => `&${{ "&": "amp", "<": "lt", ">": "gt", '"': "quot" }[c]};`,
  );
}

/** Compact tick text: 1 200 000 → "1.2M", 0.25 → "0.25". */
function formatTick(v: number): string {
  const abs = Math.abs(v);
  if (abs >= 1e6) return `${+(v / 1e6).toFixed(2)}M`;
  if (abs >= 1e4) return `${+(v / 1e3).toFixed(1)}k`;
  return `${+v.toFixed(abs < 1 ? 3 : abs < 10 ? 2 : 1)}`;
}

/** About five round ticks covering [min, max] (1, 2 or 5 × a power of ten apart). */
function niceTicks(min: number, max: number): number[] {
  if (max === min) max = min + 1;
  const raw = (max - min) / 5;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw) ?? raw;
  const ticks: number[] = [];
  for (let t = Math.floor(min / step) * step; t <= max + step * 1e-9; t += step) {
    ticks.push(+t.toPrecision(12));
  }
  if (ticks[ticks.length - 1]! < max) ticks.push(ticks[ticks.length - 1]! + step);
  return ticks;
}

interface Frame {
  readonly width: number;
  readonly height: number;
  readonly plotW: number;
  readonly plotH: number;
}

function frame(width: number, height: number): Frame {
  return {
    width,
    height,
    plotW: width - MARGIN.left - MARGIN.right,
    plotH: height - MARGIN.top - MARGIN.bottom,
  };
}

function open(f: Frame, title: string): string[] {
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${f.width}" height="${f.height}" viewBox="0 0 ${f.width} ${f.height}">`,
    `<title>${escapeXml(title)}</title>`,
    `<rect width="${f.width}" height="${f.height}" fill="#fff"/>`,
    `<text x="${f.width / 2}" y="20" text-anchor="middle" ${FONT} font-weight="bold">${escapeXml(title)}</text>`,
  ];
}

/** The y axis with grid lines; returns the SVG and the value → pixel mapping. */
function yAxis(f: Frame, ticks: readonly number[], label: string) {
  const lo = ticks[0]!;
  const hi = ticks[ticks.length - 1]!;
  const y = (v: number) => MARGIN.top + f.plotH - ((v - lo) / (hi - lo)) * f.plotH;
  const parts = ticks.map(
    (t) =>
      `<line x1="${MARGIN.left}" x2="${MARGIN.left + f.plotW}" y1="${y(t).toFixed(1)}" y2="${y(t).toFixed(1)}" stroke="#e5e5e5"/>` +
      `<text x="${MARGIN.left - 6}" y="${(y(t) + 4).toFixed(1)}" text-anchor="end" ${FONT}>${formatTick(t)}</text>`,
  );
  parts.push(
    `<text transform="translate(14 ${MARGIN.top + f.plotH / 2}) rotate(-90)" text-anchor="middle" ${FONT}>${escapeXml(label)}</text>`,
    `<line x1="${MARGIN.left}" x2="${MARGIN.left}" y1="${MARGIN.top}" y2="${MARGIN.top + f.plotH}" stroke="#333"/>`,
    `<line x1="${MARGIN.left}" x2="${MARGIN.left + f.plotW}" y1="${MARGIN.top + f.plotH}" y2="${MARGIN.top + f.plotH}" stroke="#333"/>`,
  );
  return { svg: parts, y };
}

function legend(names: readonly string[]): string[] {
  return names.map((name, i) => {
    const x = MARGIN.left + 8;
    const y = MARGIN.top + 8 + i * 16;
    return (
      `<rect x="${x}" y="${y}" width="10" height="10" fill="${COLOURS[i % COLOURS.length]}"/>` +
      `<text x="${x + 14}" y="${y + 9}" ${FONT}>${escapeXml(name)}</text>`
    );
  });
}

/** A line chart of one or more series sharing both axes (points are sorted by x). */
export function lineChart(o: LineChartOptions): string {
  const f = frame(o.width ?? 640, o.height ?? 320);
  const all = o.series.flatMap((s) => s.points);
  if (all.length === 0) throw new Error(`lineChart "${o.title}": no points`);
  const xs = all.map((p) => p[0]);
  const ys = all.map((p) => p[1]);
  const xTicks = niceTicks(Math.min(...xs), Math.max(...xs));
  const yTicks = niceTicks(Math.min(0, ...ys), Math.max(...ys));
  const xLo = xTicks[0]!;
  const xHi = xTicks[xTicks.length - 1]!;
  const x = (v: number) => MARGIN.left + ((v - xLo) / (xHi - xLo)) * f.plotW;
  const axis = yAxis(f, yTicks, o.yLabel);
  const base = MARGIN.top + f.plotH;
  const parts = [...open(f, o.title), ...axis.svg];
  for (const t of xTicks) {
    parts.push(
      `<text x="${x(t).toFixed(1)}" y="${base + 16}" text-anchor="middle" ${FONT}>${formatTick(t)}</text>`,
    );
  }
  parts.push(
    `<text x="${MARGIN.left + f.plotW / 2}" y="${f.height - 10}" text-anchor="middle" ${FONT}>${escapeXml(o.xLabel)}</text>`,
  );
  o.series.forEach((s, i) => {
    const colour = COLOURS[i % COLOURS.length];
    const pts = [...s.points].sort((a, b) => a[0] - b[0]);
    const d = pts.map((p) => `${x(p[0]).toFixed(1)},${axis.y(p[1]).toFixed(1)}`).join(" ");
    parts.push(`<polyline fill="none" stroke="${colour}" stroke-width="2" points="${d}"/>`);
    if (pts.length <= 24) {
      for (const p of pts) {
        parts.push(
          `<circle cx="${x(p[0]).toFixed(1)}" cy="${axis.y(p[1]).toFixed(1)}" r="3" fill="${colour}"/>`,
        );
      }
    }
  });
  if (o.series.length > 1) parts.push(...legend(o.series.map((s) => s.name)));
  parts.push("</svg>");
  return `${parts.join("\n")}\n`;
}

/** A bar chart with a value label on each bar; bars of one `group` share a colour. */
export function barChart(o: BarChartOptions): string {
  if (o.bars.length === 0) throw new Error(`barChart "${o.title}": no bars`);
  const f = frame(o.width ?? Math.max(360, 80 + o.bars.length * 72), o.height ?? 320);
  const groups = [...new Set(o.bars.map((b) => b.group ?? ""))];
  const yTicks = niceTicks(0, Math.max(...o.bars.map((b) => b.value)));
  const axis = yAxis(f, yTicks, o.yLabel);
  const slot = f.plotW / o.bars.length;
  const base = MARGIN.top + f.plotH;
  const parts = [...open(f, o.title), ...axis.svg];
  o.bars.forEach((b, i) => {
    const colour = COLOURS[groups.indexOf(b.group ?? "") % COLOURS.length];
    const left = MARGIN.left + i * slot + slot * 0.15;
    const top = axis.y(b.value);
    parts.push(
      `<rect x="${left.toFixed(1)}" y="${top.toFixed(1)}" width="${(slot * 0.7).toFixed(1)}" height="${(base - top).toFixed(1)}" fill="${colour}"/>`,
      `<text x="${(left + slot * 0.35).toFixed(1)}" y="${(top - 4).toFixed(1)}" text-anchor="middle" ${FONT}>${formatTick(b.value)}</text>`,
      `<text x="${(left + slot * 0.35).toFixed(1)}" y="${base + 16}" text-anchor="middle" ${FONT}>${escapeXml(b.label)}</text>`,
    );
  });
  if (groups.length > 1) parts.push(...legend(groups));
  parts.push("</svg>");
  return `${parts.join("\n")}\n`;
}

/**
 * Writes `svg` to `docs/<relPath>` and returns the Markdown image line to print, relative to
 * docs/ (where performance.md and reliability.md live). The alt text is the chart's title.
 */
export function writeChart(relPath: string, svg: string): string {
  const file = join(DOCS, relPath);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, svg);
  const title = /<text [^>]*font-weight="bold">([^<]*)<\/text>/.exec(svg)?.[1] ?? relPath;
  return `![${title}](${relPath})`;
}
