import { ChartEventReason } from '../../src/api/event-reasons.js';
import { sourceText, tsFiles } from './support/sources.js';

describe('the Events recorded on a HelmChart', () => {
  it('keep their reasons: users and alerts match on them', () => {
    expect(ChartEventReason).toEqual({
      InstallAttemptFailed: 'HelmChartInstallAttemptFailed',
      InstallFailed: 'HelmChartInstallFailed',
      UninstallFailed: 'HelmChartUninstallFailed',
      UninstallSkipped: 'HelmChartUninstallSkipped',
      Retry: 'HelmChartRetry',
      Paused: 'HelmChartPaused',
      Suspended: 'HelmChartSuspended',
      Resumed: 'HelmChartResumed',
      WaitingForDependencies: 'HelmChartWaitingForDependencies',
      DependencyCycle: 'HelmChartDependencyCycle',
      InvalidDependsOn: 'HelmChartInvalidDependsOn',
      DependenciesReady: 'HelmChartDependenciesReady',
      CRDsStale: 'HelmChartCRDsStale',
      CRDsApplied: 'HelmChartCRDsApplied',
      ReleaseUnlocked: 'HelmReleaseUnlocked',
      RepositoryUnreachable: 'RepositoryUnreachable',
      ChartNotFound: 'ChartNotFound',
      VersionNotFound: 'VersionNotFound',
      RenderFailed: 'RenderFailed',
    });
  });

  // The pre-flight reasons are condition reasons too, written once in reasons.ts; the others are written only here.
  const ownReasons = Object.values(ChartEventReason).filter((reason) => reason.startsWith('Helm'));
  const files = ['src', 'activities', 'workflows'].flatMap(tsFiles).filter((f) => f !== 'src/api/event-reasons.ts');

  it('has files to check', () => {
    expect(files.length).toBeGreaterThan(100);
    expect(ownReasons).toHaveLength(15);
  });

  it('have one home: no other production file spells one out', () => {
    const spelled = files.flatMap((file) => {
      const text = sourceText(file);
      return ownReasons.filter((reason) => text.includes(`'${reason}'`)).map((reason) => `${file}: ${reason}`);
    });
    expect(spelled).toEqual([]);
  });
});
