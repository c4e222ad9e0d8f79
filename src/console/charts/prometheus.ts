/**
 * Fire lag and attempts per task type from the Prometheus that scrapes the workers (PROMETHEUS_URL):
 * the worker's own histograms and counters over the last hour, through Prometheus' HTTP query API.
 * Unreachable or unset: no panel, and the page says why.
 */
export interface TypeLag {
  taskType: string;
  p50Seconds: number | null;
  p99Seconds: number | null;
  /** Attempts over the last hour by outcome (success, retryable, permanent, timeout, held). */
  attempts: Record<string, number>;
}

export type LagPanel = { ok: true; types: TypeLag[] } | { ok: false; reason: string };

const WINDOW = '1h';
const TIMEOUT_MS = 2_000;

type Vector = { metric: Record<string, string>; value: [number, string] }[];

async function query(baseUrl: string, promql: string): Promise<Vector> {
  const url = `${baseUrl}/api/v1/query?query=${encodeURIComponent(promql)}`;
  const response = await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS) });
  if (!response.ok) throw new Error(`Prometheus answered HTTP ${response.status}`);
  const body = (await response.json()) as { status?: string; data?: { result?: Vector } };
  if (body.status !== 'success') throw new Error('Prometheus did not answer the query');
  return body.data?.result ?? [];
}

const finite = (text: string | undefined): number | null => {
  const value = Number(text);
  return text !== undefined && Number.isFinite(value) ? value : null;
};

/** Lag and attempts of every type Prometheus knows (of `taskType` only when given). */
export async function loadLagPanel(baseUrl: string | undefined, taskType?: string): Promise<LagPanel> {
  if (!baseUrl) return { ok: false, reason: 'PROMETHEUS_URL is not set' };
  // The type is a label value from a route parameter: matched exactly, quotes escaped for PromQL.
  const only = taskType === undefined ? '' : `task_type="${taskType.replace(/["\\]/g, '\\$&')}"`;
  const quantile = (q: number) =>
    `histogram_quantile(${q}, sum by (le, task_type) (rate(delayed_tasks_fire_lag_seconds_bucket{${only}}[${WINDOW}])))`;
  try {
    const [p50, p99, attempts] = await Promise.all([
      query(baseUrl, quantile(0.5)),
      query(baseUrl, quantile(0.99)),
      query(
        baseUrl,
        `sum by (task_type, outcome) (increase(delayed_tasks_callback_attempts_total{${only}}[${WINDOW}]))`,
      ),
    ]);
    const types = new Map<string, TypeLag>();
    const entry = (name: string) => {
      let found = types.get(name);
      if (!found)
        types.set(name, (found = { taskType: name, p50Seconds: null, p99Seconds: null, attempts: {} }));
      return found;
    };
    for (const row of p50) entry(row.metric.task_type ?? '').p50Seconds = finite(row.value[1]);
    for (const row of p99) entry(row.metric.task_type ?? '').p99Seconds = finite(row.value[1]);
    for (const row of attempts) {
      const count = finite(row.value[1]);
      if (count !== null)
        entry(row.metric.task_type ?? '').attempts[row.metric.outcome ?? 'unknown'] = Math.round(count);
    }
    return { ok: true, types: [...types.values()].sort((a, b) => a.taskType.localeCompare(b.taskType)) };
  } catch (err) {
    return { ok: false, reason: `Prometheus at ${baseUrl} did not answer (${(err as Error).message})` };
  }
}
