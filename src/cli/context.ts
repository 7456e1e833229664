/**
 * What the operator commands share: one chart reference parsed from `<namespace>/<name>`, the options that find
 * Kubernetes and Temporal, and clients made from them on first use.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { BatchV1Api, CoreV1Api, CustomObjectsApi } from '../kube/k8s.js';
import type { Client } from '@temporalio/client';
import { Option, type Command } from 'commander';
import { API_VERSION, HELM_CHART_PLURAL, type ApiGroup, type HelmChart } from '../api/index.js';
import { connectionSettingKeys, settingOptions, type SettingValues } from '../app/setting-specs.js';
import { connectionSettingsOf, type ConnectionSettings } from '../app/settings.js';
import { temporalClient } from '../app/temporal.js';
import { isNotFound } from '../kube/client.js';
import { resolveKubeConfig } from '../kube/kubeconfig.js';
import { chartWorkflowId, type ChartRef } from '../../workflows/contract.js';
import { CliError, ExitCode } from './errors.js';
import { temporalUiLink } from './format.js';

/** The flags every operator command takes: the processes' own connection settings, and the Temporal UI's address. */
export function withConnectionOptions(command: Command): Command {
  for (const option of settingOptions(connectionSettingKeys)) command.addOption(option);
  return command.addOption(
    new Option('--temporal-ui <url>', 'the Temporal UI, for links')
      .env('HELMFLOW_TEMPORAL_UI')
      .default('http://127.0.0.1:8233'),
  );
}

/** What commander hands an operator command: the connection settings, parsed, and the UI's address. */
export type ConnectionOptions = Pick<SettingValues, (typeof connectionSettingKeys)[number]> & { temporalUi: string };

export class CliContext {
  readonly settings: ConnectionSettings;
  private kubeConfig: KubeConfig | undefined;
  private client: Client | undefined;

  constructor(readonly options: ConnectionOptions) {
    this.settings = connectionSettingsOf(options);
  }

  get group(): ApiGroup {
    return this.settings.group;
  }

  get kube(): KubeConfig {
    this.kubeConfig ??= resolveKubeConfig({ explicitPath: this.settings.kubeconfig }).kubeConfig;
    return this.kubeConfig;
  }

  get custom(): CustomObjectsApi {
    return this.kube.makeApiClient(CustomObjectsApi);
  }

  get core(): CoreV1Api {
    return this.kube.makeApiClient(CoreV1Api);
  }

  get batch(): BatchV1Api {
    return this.kube.makeApiClient(BatchV1Api);
  }

  get temporal(): Client {
    this.client ??= temporalClient(this.settings);
    return this.client;
  }

  uiLink(ref: ChartRef): string {
    return temporalUiLink(this.options.temporalUi, this.settings.temporalNamespace, chartWorkflowId(ref));
  }

  /** `<namespace>/<name>` as a chart of this context's group, or a usage error saying how to write it. */
  ref(value: string): ChartRef {
    const [namespace, name, extra] = value.split('/');
    if (namespace === undefined || name === undefined || extra !== undefined || namespace === '' || name === '') {
      throw new CliError(`name the chart as <namespace>/<name>, not ${value}`, ExitCode.usage);
    }
    return { group: this.group, namespace, name };
  }

  async readChart(ref: ChartRef): Promise<HelmChart> {
    try {
      return (await this.custom.getNamespacedCustomObject({
        group: ref.group,
        version: API_VERSION,
        namespace: ref.namespace,
        plural: HELM_CHART_PLURAL,
        name: ref.name,
      })) as HelmChart;
    } catch (err) {
      if (isNotFound(err)) {
        throw new CliError(
          `HelmChart ${ref.namespace}/${ref.name} (${ref.group}) not found — list charts with: helmflow get -A`,
          ExitCode.notFound,
        );
      }
      throw err;
    }
  }

  async close(): Promise<void> {
    await this.client?.connection.close();
  }
}
