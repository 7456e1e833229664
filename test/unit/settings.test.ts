import { describe, expect, it } from '@jest/globals';
import { resolveSettings } from '../../src/app/settings.js';

describe('resolveSettings', () => {
  it('takes a flag over its environment variable, and the environment over the default', () => {
    expect(resolveSettings({}, {}).activitySlots).toBe(1500);
    expect(resolveSettings({}, { HELMFLOW_ACTIVITY_SLOTS: '2000' }).activitySlots).toBe(2000);
    expect(resolveSettings({ activitySlots: '64' }, { HELMFLOW_ACTIVITY_SLOTS: '2000' }).activitySlots).toBe(64);
    expect(resolveSettings({}, { HELMFLOW_TASK_QUEUE: 'q' }).taskQueue).toBe('q');
  });

  it.each(['0', '-3', '1.5', 'many', ''])('refuses --activity-slots %p with a message that names it', (given) => {
    expect(() => resolveSettings({ activitySlots: given }, {})).toThrow(/--activity-slots must be a whole number/);
  });

  it('takes Flux’s Lease timings by default, and refuses timings a leader could not keep', () => {
    expect(resolveSettings({}, {})).toMatchObject({
      leaseDurationSeconds: 35,
      leaseRenewDeadlineSeconds: 30,
      leaseRetryPeriodSeconds: 5,
    });
    const env = { HELMFLOW_LEASE_DURATION_SECONDS: '15', HELMFLOW_LEASE_RENEW_DEADLINE_SECONDS: '10' };
    expect(resolveSettings({ leaseRetryPeriodSeconds: '2' }, env)).toMatchObject({
      leaseDurationSeconds: 15,
      leaseRenewDeadlineSeconds: 10,
      leaseRetryPeriodSeconds: 2,
    });
    // A deadline at the duration would let a standby take over while the leader still acts.
    expect(() => resolveSettings({ leaseRenewDeadlineSeconds: '35' }, {})).toThrow(
      /--lease-renew-deadline-seconds \(35\), which must be below --lease-duration-seconds \(35\)/,
    );
    expect(() => resolveSettings({ leaseRetryPeriodSeconds: '30' }, {})).toThrow(/must be below/);
    expect(() => resolveSettings({ leaseDurationSeconds: 'long' }, {})).toThrow(/--lease-duration-seconds must be/);
  });

  it('refuses an --http-port that is not a port number', () => {
    expect(() => resolveSettings({ httpPort: 'eighty' }, {})).toThrow(/--http-port must be a port number, not eighty/);
  });

  it('refuses an API group other than the two it serves', () => {
    expect(() => resolveSettings({ group: 'helm.example.com' }, {})).toThrow(/--group must be/);
  });
});
