/**
 * A MicroTime as the apiserver parses it: RFC 3339 with exactly six fractional digits. A Lease's renew and acquire
 * times and an events.k8s.io Event's eventTime are MicroTimes; a Date serialised as is has three and is refused.
 */
export function microTime(date: Date): string {
  return date.toISOString().replace(/\.(\d{3})Z$/u, '.$1000Z');
}
