// What bench/people-first.ts says of idle charts' Kubernetes writes: the apiserver's own count of the write
// requests it served (apiserver_request_total, by verb and resource), taken before and after a window in which
// nothing changed. Counted by resource, because some writers are not per chart (the Lease that helmflow's leader
// renews, kube-controller-manager's own). Pure: table-tested in test/unit/apiserver-writes.test.ts.

const writeVerbs = new Set(['POST', 'PUT', 'PATCH', 'DELETE', 'DELETECOLLECTION', 'APPLY']);

/** Write requests the apiserver has served so far, by resource (with its subresource, as `jobs/status`). */
export function writesByResource(metrics: string): Map<string, number> {
  const writes = new Map<string, number>();
  for (const line of metrics.split('\n')) {
    if (!line.startsWith('apiserver_request_total{')) continue;
    const labels = line.slice(line.indexOf('{') + 1, line.lastIndexOf('}'));
    const label = (name: string) => new RegExp(`(?:^|,)${name}="([^"]*)"`).exec(labels)?.[1] ?? '';
    if (!writeVerbs.has(label('verb'))) continue;
    const resource = label('subresource') === '' ? label('resource') : `${label('resource')}/${label('subresource')}`;
    const value = Number(line.slice(line.lastIndexOf('}') + 1).trim());
    writes.set(resource, (writes.get(resource) ?? 0) + value);
  }
  return writes;
}

/** What `after` counted more than `before`, by resource; resources with no new writes are left out. */
export function writesBetween(before: Map<string, number>, after: Map<string, number>): Map<string, number> {
  const between = new Map<string, number>();
  for (const [resource, count] of after) {
    const more = count - (before.get(resource) ?? 0);
    if (more > 0) between.set(resource, more);
  }
  return between;
}
