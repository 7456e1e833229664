import { MockActivityEnvironment } from '@temporalio/testing';
import proto from '@temporalio/proto';
import { pino } from 'pino';
import { Writable } from 'node:stream';
import { RETRIED_MESSAGE, retriedStepOf, sayingRetries } from '../../activities/retried.js';
import { countAttemptsStarted, retriedSteps, type HistoryEvent } from '../../bench/history.js';
import { describeReceived, describeRetried } from '../../bench/retried-steps.js';

const workflowExecution = { workflowId: 'chart/helm.k3sm.io/kube-system/hello', runId: 'r' };

describe('retriedStepOf', () => {
  const at = (attempt: number, heartbeatDetails: unknown) => ({
    attempt,
    heartbeatDetails,
    currentAttemptScheduledTimestampMs: 10_000,
    workflowExecution,
  });

  it.each([
    ['a first attempt', at(1, undefined), undefined],
    ['a first attempt, details or not', at(1, { step: 'job' }), undefined],
    [
      'a second attempt after one that sent no heartbeat',
      at(2, undefined),
      { step: 'prepareInstall', attempt: 2, lastHeartbeat: undefined, startedAfterMs: 2_500 },
    ],
    [
      'a third attempt after one that reached the identity step',
      at(3, { step: 'identity' }),
      { step: 'prepareInstall', attempt: 3, lastHeartbeat: { step: 'identity' }, startedAfterMs: 2_500 },
    ],
  ])('%s', (_, info, expected) => {
    const retried = retriedStepOf('prepareInstall', info, 12_500);
    expect(retried).toEqual(
      expected === undefined ? undefined : { ...expected, workflowId: workflowExecution.workflowId },
    );
  });
});

describe('sayingRetries', () => {
  function capturingLog() {
    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
        done();
      },
    });
    return { log: pino({ level: 'info' }, sink), lines };
  }

  it('says what the attempt before said in its last heartbeat, then runs the step', async () => {
    const { log, lines } = capturingLog();
    const env = new MockActivityEnvironment({ attempt: 2, heartbeatDetails: { step: 'identity' } });
    expect(await env.run(() => sayingRetries(log, 'prepareInstall', () => Promise.resolve('ran')))).toBe('ran');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      msg: RETRIED_MESSAGE,
      step: 'prepareInstall',
      attempt: 2,
      lastHeartbeat: { step: 'identity' },
    });
  });

  it('says nothing of a first attempt', async () => {
    const { log, lines } = capturingLog();
    const env = new MockActivityEnvironment({ attempt: 1 });
    expect(await env.run(() => sayingRetries(log, 'awaitJob', () => Promise.resolve(1)))).toBe(1);
    expect(lines).toEqual([]);
  });
});

describe("the side-by-side bench's summary of those lines", () => {
  it('groups them by step and by what the attempt before said, most first, with the longest start', () => {
    expect(
      describeRetried([
        { step: 'awaitJob', lastHeartbeat: { jobName: 'helm-install-a' }, startedAfterMs: 100 },
        { step: 'prepareInstall', startedAfterMs: 300 },
        { step: 'prepareInstall', startedAfterMs: 1_200 },
      ]),
    ).toEqual([
      'prepareInstall, last heartbeat none: 2 (started at most 1.2 s after scheduled)',
      'awaitJob, last heartbeat {"jobName":"helm-install-a"}: 1 (started at most 0.1 s after scheduled)',
    ]);
  });
});

describe("the side-by-side bench's attempts started against received", () => {
  it("counts each step's attempts from its last start, a step never started as none", () => {
    // As the client reads them: ids are Longs.
    const events: HistoryEvent[] = [
      { eventId: 5, activityTaskScheduledEventAttributes: { activityType: { name: 'prepareInstall' } } },
      { eventId: 6, activityTaskStartedEventAttributes: { scheduledEventId: 5, attempt: 2 } },
      { eventId: 9, activityTaskScheduledEventAttributes: { activityType: { name: 'awaitJob' } } },
      { eventId: 10, activityTaskStartedEventAttributes: { scheduledEventId: 9, attempt: 1 } },
      { eventId: 12, activityTaskScheduledEventAttributes: { activityType: { name: 'prepareInstall' } } },
      { eventId: 13, activityTaskStartedEventAttributes: { scheduledEventId: 12, attempt: 1 } },
      { eventId: 15, activityTaskScheduledEventAttributes: { activityType: { name: 'awaitJobSlot' } } },
    ].map((event) => proto.temporal.api.history.v1.HistoryEvent.fromObject(event));
    const started = countAttemptsStarted(events, new Map([['awaitJob', 2]]));
    expect(started).toEqual(
      new Map([
        ['awaitJob', 3],
        ['prepareInstall', 3],
      ]),
    );
    expect(describeReceived(new Map([['awaitJob', 3]]), started)).toEqual([
      "awaitJob: the histories started 3 attempts, the worker's core received 3",
      "prepareInstall: the histories started 3 attempts, the worker's core received 0",
    ]);
  });

  it('names each step that ran again, why the attempt before ended, and the heartbeat timeout that cost', () => {
    const heartbeat = proto.temporal.api.enums.v1.TimeoutType.TIMEOUT_TYPE_HEARTBEAT;
    const events: HistoryEvent[] = [
      {
        eventId: 5,
        activityTaskScheduledEventAttributes: {
          activityType: { name: 'awaitJobSlot' },
          heartbeatTimeout: { seconds: 20 },
        },
      },
      {
        eventId: 6,
        activityTaskStartedEventAttributes: {
          scheduledEventId: 5,
          attempt: 2,
          lastFailure: { timeoutFailureInfo: { timeoutType: heartbeat } },
        },
      },
      { eventId: 9, activityTaskScheduledEventAttributes: { activityType: { name: 'prepareInstall' } } },
      {
        eventId: 10,
        activityTaskStartedEventAttributes: { scheduledEventId: 9, attempt: 3, lastFailure: { message: 'refused' } },
      },
      { eventId: 12, activityTaskScheduledEventAttributes: { activityType: { name: 'awaitJob' } } },
      { eventId: 13, activityTaskStartedEventAttributes: { scheduledEventId: 12, attempt: 1 } },
    ].map((event) => proto.temporal.api.history.v1.HistoryEvent.fromObject(event));
    expect(retriedSteps(events)).toEqual([
      'awaitJobSlot attempt 2 (before: HEARTBEAT timeout of 20 s)',
      'prepareInstall attempt 3 (before: refused)',
    ]);
  });
});
