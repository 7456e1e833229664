import { requestsBetween, requestsByVerb, writesByResource } from '../../bench/apiserver-writes.js';

const scrape = (lines: string[]) =>
  ['# HELP apiserver_request_total [STABLE] Counter of apiserver requests', ...lines, 'other_metric 9'].join('\n');

describe("the people-first bench's count of Kubernetes writes", () => {
  it('sums the write verbs by resource and subresource, and leaves reads out', () => {
    const metrics = scrape([
      'apiserver_request_total{code="201",component="apiserver",group="batch",resource="jobs",scope="resource",subresource="",verb="POST",version="v1"} 3',
      'apiserver_request_total{code="409",component="apiserver",group="batch",resource="jobs",scope="resource",subresource="",verb="POST",version="v1"} 2',
      'apiserver_request_total{code="200",component="apiserver",group="batch",resource="jobs",scope="resource",subresource="status",verb="PUT",version="v1"} 4',
      'apiserver_request_total{code="200",component="apiserver",group="",resource="secrets",scope="namespace",subresource="",verb="LIST",version="v1"} 1000',
      'apiserver_request_total{code="200",component="apiserver",group="",resource="secrets",scope="resource",subresource="",verb="WATCH",version="v1"} 7',
      'apiserver_request_total{code="200",component="apiserver",group="coordination.k8s.io",resource="leases",scope="resource",subresource="",verb="PUT",version="v1"} 12',
      'apiserver_request_total{code="200",component="apiserver",group="helm.k3sm.io",resource="helmcharts",scope="resource",subresource="status",verb="APPLY",version="v1"} 5',
      'apiserver_request_total{code="200",component="apiserver",group="",resource="events",scope="resource",subresource="",verb="PATCH",version="v1"} 6',
      'apiserver_request_total{code="200",component="apiserver",group="",resource="pods",scope="resource",subresource="",verb="DELETE",version="v1"} 1',
    ]);
    expect(Object.fromEntries(writesByResource(metrics))).toEqual({
      jobs: 5,
      'jobs/status': 4,
      leases: 12,
      'helmcharts/status': 5,
      events: 6,
      pods: 1,
    });
  });

  it('counts every request by verb and resource, requests without a resource apart', () => {
    const metrics = scrape([
      'apiserver_request_total{code="201",component="apiserver",group="batch",resource="jobs",scope="resource",subresource="",verb="POST",version="v1"} 3',
      'apiserver_request_total{code="409",component="apiserver",group="batch",resource="jobs",scope="resource",subresource="",verb="POST",version="v1"} 2',
      'apiserver_request_total{code="200",component="apiserver",group="batch",resource="jobs",scope="resource",subresource="status",verb="PUT",version="v1"} 4',
      'apiserver_request_total{code="200",component="apiserver",group="",resource="secrets",scope="namespace",subresource="",verb="LIST",version="v1"} 1000',
      'apiserver_request_total{code="200",component="apiserver",group="",resource="",scope="",subresource="",verb="GET",version=""} 8',
    ]);
    expect(Object.fromEntries(requestsByVerb(metrics))).toEqual({
      'POST jobs': 5,
      'PUT jobs/status': 4,
      'LIST secrets': 1000,
      'GET (no resource)': 8,
    });
  });

  it('counts what was written between two scrapes, leaving out what did not move', () => {
    const before = new Map([
      ['leases', 12],
      ['helmcharts/status', 5],
    ]);
    const after = new Map([
      ['leases', 20],
      ['helmcharts/status', 5],
      ['events', 1],
    ]);
    expect(Object.fromEntries(requestsBetween(before, after))).toEqual({ leases: 8, events: 1 });
  });
});
