import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ChartEventReason } from '../../src/api/event-reasons.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Every .ts file under the production directories, recursively. */
function sources(dir: string): string[] {
  return readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const file = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return sources(file);
    return entry.name.endsWith('.ts') ? [file] : [];
  });
}

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
  const files = ['src', 'activities', 'workflows'].flatMap(sources).filter((f) => f !== 'src/api/event-reasons.ts');

  it('has files to check', () => {
    expect(files.length).toBeGreaterThan(100);
    expect(ownReasons).toHaveLength(15);
  });

  it('have one home: no other production file spells one out', () => {
    const spelled = files.flatMap((file) => {
      const text = readFileSync(path.join(root, file), 'utf8');
      return ownReasons.filter((reason) => text.includes(`'${reason}'`)).map((reason) => `${file}: ${reason}`);
    });
    expect(spelled).toEqual([]);
  });
});
