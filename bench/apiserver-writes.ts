// The apiserver's own count of the requests it served (apiserver_request_total), taken before and after a window.
// bench/people-first.ts counts the writes of idle charts by resource, because some writers are not per chart (the
// Lease that helmflow's leader renews, kube-controller-manager's own); bench/side-by-side.ts counts every request
// by verb and resource, to say where each system's apiserver CPU went. Pure: table-tested in
// test/unit/apiserver-writes.test.ts.

const writeVerbs = new Set(['POST', 'PUT', 'PATCH', 'DELETE', 'DELETECOLLECTION', 'APPLY']);

interface RequestSeries {
  verb: string;
  /** The resource with its subresource, as `jobs/status`. */
  resource: string;
  value: number;
}

function requestSeries(metrics: string): RequestSeries[] {
  const series: RequestSeries[] = [];
  for (const line of metrics.split('\n')) {
    if (!line.startsWith('apiserver_request_total{')) continue;
    const labels = line.slice(line.indexOf('{') + 1, line.lastIndexOf('}'));
    const label = (name: string) => new RegExp(`(?:^|,)${name}="([^"]*)"`).exec(labels)?.[1] ?? '';
    const resource = label('subresource') === '' ? label('resource') : `${label('resource')}/${label('subresource')}`;
    series.push({ verb: label('verb'), resource, value: Number(line.slice(line.lastIndexOf('}') + 1).trim()) });
  }
  return series;
}

function sumBy(series: RequestSeries[], key: (s: RequestSeries) => string | undefined): Map<string, number> {
  const sums = new Map<string, number>();
  for (const s of series) {
    const k = key(s);
    if (k !== undefined) sums.set(k, (sums.get(k) ?? 0) + s.value);
  }
  return sums;
}

/** Write requests the apiserver has served so far, by resource (with its subresource, as `jobs/status`). */
export function writesByResource(metrics: string): Map<string, number> {
  return sumBy(requestSeries(metrics), (s) => (writeVerbs.has(s.verb) ? s.resource : undefined));
}

/** Every request the apiserver has served so far, by verb and resource (`LIST secrets`, `PUT jobs/status`). */
export function requestsByVerb(metrics: string): Map<string, number> {
  return sumBy(requestSeries(metrics), (s) =>
    s.resource === '' ? `${s.verb} (no resource)` : `${s.verb} ${s.resource}`,
  );
}

/** What `after` counted more than `before`, by key; keys with nothing new are left out. */
export function requestsBetween(before: Map<string, number>, after: Map<string, number>): Map<string, number> {
  const between = new Map<string, number>();
  for (const [key, count] of after) {
    const more = count - (before.get(key) ?? 0);
    if (more > 0) between.set(key, more);
  }
  return between;
}
