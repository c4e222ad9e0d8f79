/**
 * Prometheus scrape config, alert rules and the Grafana dashboard: their structure, that they agree
 * with docker-compose.yml, and that every metric they query is one the service exports.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ApiMetrics } from '../../src/api/metrics.js';
import { SDK_METRIC_NAMES, WorkerMetrics } from '../../src/worker/metrics.js';
import { metricNames, unknownMetricNames } from './promql.js';
import { isRecord, readRepoJson, readRepoYaml, repoFileExists, repoPath } from './support.js';

/** Every metric the API and worker processes export, read from their real registries. */
export const EXPORTED_METRIC_NAMES: ReadonlySet<string> = new Set([
  ...new ApiMetrics({
    readCounts: async () => ({ byStatus: {}, oldestOverdueSeconds: 0 }),
    readScheduleTally: async () => ({ byTaskType: new Map(), truncated: false }),
  }).registry
    .getMetricsAsArray()
    .map((metric) => metric.name),
  ...new WorkerMetrics().registry.getMetricsAsArray().map((metric) => metric.name),
  ...SDK_METRIC_NAMES,
]);

/** Series Prometheus itself records for every target. */
const SCRAPE_METRIC_NAMES = ['up'];

const QUERYABLE_METRIC_NAMES: ReadonlySet<string> = new Set([
  ...EXPORTED_METRIC_NAMES,
  ...SCRAPE_METRIC_NAMES,
]);

function asRecord(value: unknown, what: string): Record<string, unknown> {
  if (!isRecord(value)) throw new Error(`${what} is not a mapping`);
  return value;
}

function asArray(value: unknown, what: string): unknown[] {
  if (!Array.isArray(value)) throw new Error(`${what} is not a list`);
  return value as unknown[];
}

const compose = asRecord(readRepoYaml('docker-compose.yml'), 'docker-compose.yml');
const composeServices = asRecord(compose.services, 'services');

function composeService(name: string): Record<string, unknown> {
  return asRecord(composeServices[name], `service ${name}`);
}

/** Container path where a compose service bind-mounts a repository directory. */
function mountTarget(serviceName: string, source: string): string | undefined {
  const volumes = asArray(composeService(serviceName).volumes ?? [], `${serviceName} volumes`);
  for (const volume of volumes) {
    if (typeof volume !== 'string') continue;
    const [from, to] = volume.split(':');
    if (from === source) return to;
  }
  return undefined;
}

describe('metric name extraction', () => {
  it.each([
    {
      expr: 'histogram_quantile(0.99, sum by (task_type, le) (rate(delayed_tasks_fire_lag_seconds_bucket{task_type=~"$task_type"}[$__rate_interval])))',
      expected: ['delayed_tasks_fire_lag_seconds_bucket'],
    },
    { expr: '(sum(temporal_num_pollers) or vector(0)) == 0', expected: ['temporal_num_pollers'] },
    { expr: 'up{job=~"api|worker"} == 0', expected: ['up'] },
    { expr: 'a / on (instance) group_left (version) b offset 5m', expected: ['a', 'b'] },
    { expr: 'sum without (le) (x{label="}{", other=\'a"b\'})', expected: ['x'] },
    { expr: 'max(y) > 1e3 and z unless bool_metric', expected: ['y', 'z', 'bool_metric'] },
    { expr: 'max_over_time(rate(x[5m])[1h:5m]) + x', expected: ['x'] },
    { expr: 'count(up{job="worker"} == 1)', expected: ['up'] },
    {
      expr: 'max by (status) (delayed_tasks_current) > sum without(job) (x)',
      expected: ['delayed_tasks_current', 'x'],
    },
  ])('$expr reads $expected', ({ expr, expected }) => {
    expect(metricNames(expr)).toEqual(expected);
  });

  it.each([
    { name: 'delayed_tasks_typo_total', unknown: true },
    { name: 'process_resident_memory_bytes', unknown: false },
    { name: 'http_request_duration_seconds_bucket', unknown: false },
    { name: 'http_request_duration_seconds_count', unknown: false },
    { name: 'up', unknown: false },
  ])('$name unknown: $unknown', ({ name, unknown }) => {
    expect(unknownMetricNames([name], QUERYABLE_METRIC_NAMES)).toEqual(unknown ? [name] : []);
  });
});

interface AlertRule {
  alert: string;
  expr: string;
  for: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

const SEVERITIES = ['warning', 'critical'];

function ruleProblems(rule: unknown): string[] {
  if (!isRecord(rule)) return ['not a mapping'];
  const problems: string[] = [];
  if (typeof rule.alert !== 'string' || !/^[A-Z][A-Za-z0-9]+$/.test(rule.alert)) {
    problems.push('alert is not a CamelCase name');
  }
  if (typeof rule.expr !== 'string' || rule.expr.trim() === '') problems.push('no expr');
  if (typeof rule.for !== 'string' || !/^(\d+(ms|s|m|h|d|w|y))+$/.test(rule.for)) {
    problems.push('for is not a duration');
  }
  const labels = isRecord(rule.labels) ? rule.labels : {};
  if (!SEVERITIES.includes(String(labels.severity)))
    problems.push(`severity not one of ${SEVERITIES.join(', ')}`);
  const annotations = isRecord(rule.annotations) ? rule.annotations : {};
  for (const key of ['summary', 'description']) {
    const text = annotations[key];
    if (typeof text !== 'string' || text.trim() === '') problems.push(`no ${key} annotation`);
  }
  return problems;
}

function loadAlertRules(): AlertRule[] {
  const document = asRecord(readRepoYaml('deploy/prometheus/alerts.yml'), 'alerts.yml');
  return asArray(document.groups, 'groups').flatMap((group) => {
    const { name, rules } = asRecord(group, 'group');
    if (typeof name !== 'string' || name === '') throw new Error('a rule group has no name');
    return asArray(rules, `rules of ${name}`) as AlertRule[];
  });
}

const alertRules = loadAlertRules();

describe('alert rules', () => {
  it('finds the problems of a malformed rule', () => {
    const bad = {
      alert: 'backlog high',
      expr: ' ',
      for: 'five minutes',
      labels: {},
      annotations: { summary: 'x' },
    };
    expect(ruleProblems(bad)).toEqual([
      'alert is not a CamelCase name',
      'no expr',
      'for is not a duration',
      'severity not one of warning, critical',
      'no description annotation',
    ]);
  });

  it('has rules, each named once', () => {
    const names = alertRules.map((rule) => rule.alert);
    expect(names.length).toBeGreaterThan(0);
    expect(new Set(names).size).toBe(names.length);
  });

  it.each(alertRules)('$alert is well formed', (rule) => {
    expect(ruleProblems(rule)).toEqual([]);
  });

  it.each([
    { concern: 'fire lag', metric: 'delayed_tasks_fire_lag_seconds_bucket' },
    { concern: 'delivery backlog', metric: 'delayed_tasks_current' },
    { concern: 'overdue tasks', metric: 'delayed_tasks_oldest_overdue_seconds' },
    { concern: 'failure rate and dead letters', metric: 'delayed_tasks_finished_total' },
    { concern: 'workers not polling', metric: 'temporal_num_pollers' },
    { concern: 'targets down', metric: 'up' },
    { concern: 'schedule runs missed', metric: 'delayed_tasks_schedule_runs_skipped' },
  ])('watches $concern', ({ metric }) => {
    expect(alertRules.flatMap((rule) => metricNames(rule.expr))).toContain(metric);
  });

  it('shows every alert firing in alerts.test.yml', () => {
    const tests = asRecord(readRepoYaml('deploy/prometheus/alerts.test.yml'), 'alerts.test.yml');
    const firing = new Set(
      asArray(tests.tests, 'tests').flatMap((test) =>
        asArray(asRecord(test, 'test').alert_rule_test ?? [], 'alert_rule_test')
          .map((check) => asRecord(check, 'alert_rule_test entry'))
          .filter((check) => asArray(check.exp_alerts ?? [], 'exp_alerts').length > 0)
          .map((check) => check.alertname),
      ),
    );
    expect(alertRules.map((rule) => rule.alert).filter((name) => !firing.has(name))).toEqual([]);
  });

  // Skipped only on a developer's machine without promtool: CI (CI=true, as .ci/run sets it) installs
  // Debian's prometheus package and fails here if that did not give it promtool.
  const promtool = spawnSync('promtool', ['--version']);
  const required = process.env.CI === 'true';
  it.skipIf(promtool.status !== 0 && !required)(
    'pass promtool check and the unit tests of alerts.test.yml',
    () => {
      expect(
        promtool.status,
        'promtool is required under CI=true: apt-get install prometheus (Debian) puts it on PATH',
      ).toBe(0);
      for (const args of [
        ['check', 'config', 'prometheus.yml'],
        ['test', 'rules', 'alerts.test.yml'],
      ]) {
        const run = spawnSync('promtool', args, { cwd: repoPath('deploy/prometheus'), encoding: 'utf8' });
        expect(run.status, `promtool ${args.join(' ')}\n${run.stdout}${run.stderr}`).toBe(0);
      }
    },
  );
});

describe('Prometheus scrape config', () => {
  const config = asRecord(readRepoYaml('deploy/prometheus/prometheus.yml'), 'prometheus.yml');
  const jobs = new Map(
    asArray(config.scrape_configs, 'scrape_configs').map((job) => {
      const record = asRecord(job, 'scrape config');
      return [String(record.job_name), record];
    }),
  );

  it.each([
    { job: 'api', port: 3000 },
    { job: 'worker', port: 3001 },
  ])('finds every $job replica through DNS on port $port', ({ job, port }) => {
    const dns = asArray(jobs.get(job)?.dns_sd_configs, `${job} dns_sd_configs`);
    expect(dns).toEqual([expect.objectContaining({ names: [job], type: 'A', port })]);
    expect(composeServices[job]).toBeDefined();
  });

  it('scrapes the Temporal server where PROMETHEUS_ENDPOINT serves', () => {
    const endpoint = String(
      asRecord(composeService('temporal').environment, 'temporal environment').PROMETHEUS_ENDPOINT,
    );
    const port = endpoint.split(':').at(-1);
    expect(jobs.get('temporal')?.static_configs).toEqual([{ targets: [`temporal:${port}`] }]);
  });

  it('loads rule files that exist', () => {
    const ruleFiles = asArray(config.rule_files, 'rule_files');
    expect(ruleFiles).toContain('alerts.yml');
    for (const file of ruleFiles) expect(repoFileExists(`deploy/prometheus/${String(file)}`)).toBe(true);
  });

  it('is the file the prometheus service reads', () => {
    const target = mountTarget('prometheus', './deploy/prometheus');
    expect(composeService('prometheus').command).toContain(`--config.file=${target}/prometheus.yml`);
  });
});

interface Panel {
  id: number;
  type: string;
  title: string;
  gridPos: { x: number; y: number; w: number; h: number };
  datasource?: { type: string; uid: string };
  targets?: { expr?: string; datasource?: { uid: string } }[];
}

const dashboard = asRecord(readRepoJson('deploy/grafana/dashboards/delayed-tasks.json'), 'dashboard');
const panels = asArray(dashboard.panels, 'panels') as Panel[];
const queryPanels = panels.filter((panel) => panel.type !== 'row');

function dashboardExpressions(): { source: string; expr: string }[] {
  return queryPanels.flatMap((panel) =>
    (panel.targets ?? []).map((target) => ({ source: `panel "${panel.title}"`, expr: target.expr ?? '' })),
  );
}

function panelProblems(panel: Panel, datasourceUid: string): string[] {
  const problems: string[] = [];
  const targets = panel.targets ?? [];
  if (targets.length === 0) problems.push('no targets');
  if (targets.some((target) => (target.expr ?? '').trim() === '')) problems.push('a target without expr');
  const uids = [panel.datasource?.uid, ...targets.map((target) => target.datasource?.uid ?? datasourceUid)];
  if (uids.some((uid) => uid !== datasourceUid)) problems.push(`datasource is not ${datasourceUid}`);
  if (panel.gridPos.x + panel.gridPos.w > 24) problems.push('wider than the 24-column grid');
  return problems;
}

describe('Grafana', () => {
  const datasources = asArray(
    asRecord(readRepoYaml('deploy/grafana/provisioning/datasources/prometheus.yml'), 'datasources file')
      .datasources,
    'datasources',
  ).map((entry) => asRecord(entry, 'datasource'));
  const prometheus = datasources.find((entry) => entry.type === 'prometheus');
  const datasourceUid = String(prometheus?.uid);

  it('provisions the Prometheus of docker-compose.yml', () => {
    expect(prometheus).toMatchObject({ url: 'http://prometheus:9090', isDefault: true });
    expect(composeServices.prometheus).toBeDefined();
  });

  it('loads dashboards from where docker-compose.yml mounts them', () => {
    const providers = asArray(
      asRecord(readRepoYaml('deploy/grafana/provisioning/dashboards/delayed-tasks.yml'), 'providers file')
        .providers,
      'providers',
    );
    const target = mountTarget('grafana', './deploy/grafana/dashboards');
    expect(target).toBeDefined();
    expect(providers).toEqual([expect.objectContaining({ type: 'file', options: { path: target } })]);
    const home = asRecord(
      composeService('grafana').environment,
      'grafana environment',
    ).GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH;
    expect(home).toBe(`${target}/delayed-tasks.json`);
    expect(mountTarget('grafana', './deploy/grafana/provisioning')).toBe('/etc/grafana/provisioning');
  });

  it('finds the problems of a broken panel', () => {
    const broken: Panel = {
      id: 1,
      type: 'timeseries',
      title: 'broken',
      gridPos: { x: 12, y: 0, w: 16, h: 8 },
      datasource: { type: 'prometheus', uid: 'elsewhere' },
      targets: [{ expr: ' ' }],
    };
    expect(panelProblems(broken, datasourceUid)).toEqual([
      'a target without expr',
      `datasource is not ${datasourceUid}`,
      'wider than the 24-column grid',
    ]);
  });

  it('has a uid, a title and panels with unique ids', () => {
    expect(dashboard).toMatchObject({ uid: 'delayed-tasks', title: expect.any(String) });
    const ids = panels.map((panel) => panel.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(queryPanels.length).toBeGreaterThan(0);
  });

  it.each(queryPanels)('panel "$title" queries the provisioned Prometheus', (panel) => {
    expect(panelProblems(panel, datasourceUid)).toEqual([]);
  });

  it.each([
    { concern: 'tasks created', metric: 'delayed_tasks_created_total' },
    { concern: 'tasks fired and failed', metric: 'delayed_tasks_finished_total' },
    { concern: 'fire lag', metric: 'delayed_tasks_fire_lag_seconds_bucket' },
    { concern: 'callback latency', metric: 'delayed_tasks_callback_duration_seconds_bucket' },
    { concern: 'callback errors', metric: 'delayed_tasks_callback_attempts_total' },
    { concern: 'backlog', metric: 'delayed_tasks_current' },
    { concern: 'oldest overdue task', metric: 'delayed_tasks_oldest_overdue_seconds' },
    { concern: 'worker slots', metric: 'temporal_worker_task_slots_available' },
    { concern: 'schedule-to-start', metric: 'temporal_activity_schedule_to_start_latency_seconds_bucket' },
  ])('shows $concern', ({ metric }) => {
    expect(dashboardExpressions().flatMap(({ expr }) => metricNames(expr))).toContain(metric);
  });

  it('offers task types of an exported metric, from the provisioned Prometheus', () => {
    const variables = asArray(asRecord(dashboard.templating, 'templating').list, 'templating list').map(
      (variable) => asRecord(variable, 'variable'),
    );
    expect(variables.length).toBeGreaterThan(0);
    for (const variable of variables) {
      expect(asRecord(variable.datasource, 'variable datasource').uid).toBe(datasourceUid);
      const queries = [variable.definition, asRecord(variable.query, 'variable query').query].map(String);
      const metrics = queries.map((query) => /^label_values\((\w+),\s*\w+\)$/.exec(query)?.[1] ?? query);
      expect(unknownMetricNames(metrics, EXPORTED_METRIC_NAMES)).toEqual([]);
    }
  });
});

describe('metrics queried by alerts and dashboard', () => {
  const expressions = [
    ...alertRules.map((rule) => ({ source: `alert ${rule.alert}`, expr: rule.expr })),
    ...dashboardExpressions(),
  ];

  it.each(expressions)('$source reads only exported metrics', ({ expr }) => {
    const used = metricNames(expr);
    expect(used.length).toBeGreaterThan(0);
    expect(unknownMetricNames(used, QUERYABLE_METRIC_NAMES)).toEqual([]);
  });
});
