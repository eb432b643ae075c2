import { useEffect, useRef, useState } from 'preact/hooks';
import type uPlot from 'uplot';
import type { PostDetail } from '../../api.js';
import { formatCount } from './shared.js';

const POST_COLOUR = '#0b5cad';
const BASELINE_COLOUR = '#8a5a00';

/**
 * The rows of the growth chart, by age: the post's engagements and impressions at each snapshot,
 * and the brand's baseline (median of its other posts on the platform) at each age either has.
 */
export function growthRows(post: PostDetail) {
  const ages = [...new Set([...post.growth.map((g) => g.age_h), ...post.baseline.map((b) => b.age_h)])].sort(
    (a, b) => a - b,
  );
  return ages.map((age) => {
    const g = post.growth.find((s) => s.age_h === age);
    const b = post.baseline.find((s) => s.age_h === age);
    return { age, snapshot: g ?? null, baseline: b ? b.engagements : null };
  });
}

/**
 * The post's engagement curve against the brand's baseline curve, drawn by uPlot on a canvas.
 * uPlot (and its stylesheet, a file of its own under the CSP) loads only when a post page
 * opens, so the first load of the app stays small. A canvas is invisible to screen readers: the
 * chart is hidden from them and the same values are in the table that follows it.
 */
export function GrowthChart({ post }: { post: PostDetail }) {
  const box = useRef<HTMLDivElement>(null);
  const [failed, setFailed] = useState<string | null>(null);
  useEffect(() => {
    let chart: uPlot | null = null;
    let observer: ResizeObserver | null = null;
    let gone = false;
    const rows = growthRows(post);
    (async () => {
      const [{ default: UPlot }] = await Promise.all([import('uplot'), import('uplot/dist/uPlot.min.css')]);
      const el = box.current;
      if (gone || !el) return;
      const width = () => Math.max(260, el.clientWidth);
      chart = new UPlot(
        {
          width: width(),
          height: 260,
          scales: { x: { time: false } },
          // The legend names the two curves only: its live values read "--" until a pointer hovers,
          // and the same values are in the table below the chart.
          legend: { live: false },
          series: [
            { label: 'Hours after publishing' },
            { label: 'This post', stroke: POST_COLOUR, width: 2.5, points: { size: 6 } },
            { label: 'Brand baseline', stroke: BASELINE_COLOUR, width: 2, dash: [6, 4], spanGaps: true },
          ],
          axes: [
            { label: 'Hours after publishing' },
            { label: 'Engagements', size: 60, values: (_u, vals) => vals.map((v) => formatCount(v)) },
          ],
        },
        [
          rows.map((r) => r.age),
          rows.map((r) => r.snapshot?.engagements ?? null),
          rows.map((r) => r.baseline),
        ],
        el,
      );
      observer = new ResizeObserver(() => chart?.setSize({ width: width(), height: 260 }));
      observer.observe(el);
    })().catch((err: unknown) => setFailed(err instanceof Error ? err.message : String(err)));
    return () => {
      gone = true;
      observer?.disconnect();
      chart?.destroy();
    };
  }, [post]);
  return (
    <figure class="growth-chart">
      <div ref={box} class="chart-box" aria-hidden="true" data-testid="growth-chart" />
      <figcaption>
        <span class="key key-post">This post</span> <span class="key key-baseline">Brand baseline</span>{' '}
        Engagements by hours after publishing. The values are in the table below.
        {failed && ` The chart could not be drawn: ${failed}`}
      </figcaption>
    </figure>
  );
}
