import { describe, expect, it } from '@jest/globals';
import { Option } from 'commander';
import { settingSpecs } from '../../src/app/setting-specs.js';
import { settingsOf } from '../../src/app/settings.js';
import { parseSettings } from '../e2e/support/settings.js';

describe('process settings, read by commander', () => {
  it('takes a flag over its environment variable, and the environment over the default', () => {
    expect(parseSettings([]).activitySlots).toBe(1500);
    expect(parseSettings([], { HELMFLOW_ACTIVITY_SLOTS: '2000' }).activitySlots).toBe(2000);
    expect(parseSettings(['--activity-slots', '64'], { HELMFLOW_ACTIVITY_SLOTS: '2000' }).activitySlots).toBe(64);
    expect(parseSettings([], { HELMFLOW_TASK_QUEUE: 'q' }).taskQueue).toBe('q');
  });

  it('keys each setting by the name commander gives its flag, so its parsed value lands where Settings reads it', () => {
    for (const [key, spec] of Object.entries(settingSpecs))
      expect([key, new Option(spec.flag).attributeName()]).toEqual([key, key]);
  });

  it('has the same settings at their defaults whether parsed from nothing or taken from the table', () => {
    expect(parseSettings([])).toEqual(settingsOf());
  });

  it.each(['0', '-3', '1.5', 'many', ''])(
    'refuses --activity-slots %p, naming the flag and what it expects',
    (given) => {
      expect(() => parseSettings([`--activity-slots=${given}`])).toThrow(
        `option '--activity-slots <n>' argument '${given}' is invalid. Expected a whole number of at least 1.`,
      );
    },
  );

  it('refuses a bad value from the environment, naming the variable', () => {
    expect(() => parseSettings([], { HELMFLOW_MAX_RUNNING_JOBS: 'lots' })).toThrow(
      "option '--max-running-jobs <n>' value 'lots' from env 'HELMFLOW_MAX_RUNNING_JOBS' is invalid. Expected a whole number of at least 1.",
    );
  });

  it('takes Flux’s Lease timings by default, and refuses timings a leader could not keep', () => {
    expect(parseSettings([])).toMatchObject({
      leaseDurationSeconds: 35,
      leaseRenewDeadlineSeconds: 30,
      leaseRetryPeriodSeconds: 5,
    });
    const env = { HELMFLOW_LEASE_DURATION_SECONDS: '15', HELMFLOW_LEASE_RENEW_DEADLINE_SECONDS: '10' };
    expect(parseSettings(['--lease-retry-period-seconds', '2'], env)).toMatchObject({
      leaseDurationSeconds: 15,
      leaseRenewDeadlineSeconds: 10,
      leaseRetryPeriodSeconds: 2,
    });
    // A deadline at the duration would let a standby take over while the leader still acts.
    expect(() => parseSettings(['--lease-renew-deadline-seconds', '35'])).toThrow(
      /--lease-renew-deadline-seconds \(35\), which must be below --lease-duration-seconds \(35\)/,
    );
    expect(() => parseSettings(['--lease-retry-period-seconds', '30'])).toThrow(/must be below/);
    expect(() => parseSettings(['--lease-duration-seconds', 'long'])).toThrow(
      "option '--lease-duration-seconds <n>' argument 'long' is invalid. Expected a whole number of at least 2.",
    );
  });

  it.each(['eighty', '-1', '65536', '80.5'])('refuses an --http-port of %p', (given) => {
    expect(() => parseSettings(['--http-port', given])).toThrow('Expected a port number.');
  });

  it('refuses an API group other than the two it serves', () => {
    expect(() => parseSettings(['--group', 'helm.example.com'])).toThrow(
      "option '--group <group>' argument 'helm.example.com' is invalid. Expected helm.k3sm.io or helm.cattle.io.",
    );
  });

  it('reads --tuning as a JSON object, and refuses anything else with what JSON said', () => {
    expect(parseSettings(['--tuning', '{"backoffBaseSeconds":5}']).tuning).toEqual({ backoffBaseSeconds: 5 });
    expect(parseSettings([], { HELMFLOW_TUNING: '' }).tuning).toBeUndefined();
    expect(() => parseSettings(['--tuning', '{backoff'])).toThrow(/argument '\{backoff' is invalid\. Expected JSON: /);
    expect(() => parseSettings(['--tuning', '[5]'])).toThrow('Expected a JSON object');
  });

  it('reads an empty variable as unset, as the settings did before commander read them', () => {
    expect(
      parseSettings([], { HELMFLOW_KUBECONFIG: '', HELMFLOW_API_SERVER_PORT: '', TEMPORAL_TLS: '' }),
    ).toMatchObject({
      kubeconfig: undefined,
      apiServerPort: undefined,
      temporalTls: { enabled: undefined },
    });
  });

  it('disables leader election only when asked to, by the bare flag or by true', () => {
    expect(parseSettings([]).disableLeaderElection).toBe(false);
    expect(parseSettings(['--disable-leader-election']).disableLeaderElection).toBe(true);
    expect(parseSettings([], { HELMFLOW_DISABLE_LEADER_ELECTION: 'true' }).disableLeaderElection).toBe(true);
    expect(parseSettings([], { HELMFLOW_DISABLE_LEADER_ELECTION: 'false' }).disableLeaderElection).toBe(false);
  });
});
