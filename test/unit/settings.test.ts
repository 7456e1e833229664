import { describe, expect, it } from '@jest/globals';
import { resolveSettings } from '../../src/app/settings.js';

describe('resolveSettings', () => {
  it('takes a flag over its environment variable, and the environment over the default', () => {
    expect(resolveSettings({}, {}).activitySlots).toBe(500);
    expect(resolveSettings({}, { HELMFLOW_ACTIVITY_SLOTS: '2000' }).activitySlots).toBe(2000);
    expect(resolveSettings({ activitySlots: '64' }, { HELMFLOW_ACTIVITY_SLOTS: '2000' }).activitySlots).toBe(64);
    expect(resolveSettings({}, { HELMFLOW_TASK_QUEUE: 'q' }).taskQueue).toBe('q');
  });

  it.each(['0', '-3', '1.5', 'many', ''])('refuses --activity-slots %p with a message that names it', (given) => {
    expect(() => resolveSettings({ activitySlots: given }, {})).toThrow(/--activity-slots must be a whole number/);
  });

  it('refuses an --http-port that is not a port number', () => {
    expect(() => resolveSettings({ httpPort: 'eighty' }, {})).toThrow(/--http-port must be a port number, not eighty/);
  });

  it('refuses an API group other than the two it serves', () => {
    expect(() => resolveSettings({ group: 'helm.example.com' }, {})).toThrow(/--group must be/);
  });
});
