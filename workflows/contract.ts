/**
 * The contract between the controller, the chart workflow and its activities: names, signals, the query and the
 * shapes they carry. Everything here travels through Temporal, so it holds names, uids and digests — never
 * values or secret data.
 */
import { defineSearchAttributeKey, SearchAttributeType, type SearchAttributePair } from '@temporalio/common';
import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { ChartRef, DependencyHoldReason, FailurePolicy } from '../src/api/index.js';
import { searchAttributes } from '../src/config/search-attributes.js';

export const DEFAULT_TASK_QUEUE = 'helmflow-charts';

export type { ChartRef };

/** One workflow per HelmChart, its id derived from group, namespace and name. */
export function chartWorkflowId(ref: ChartRef): string {
  return `helmchart/${ref.group}/${ref.namespace}/${ref.name}`;
}

/** What the controller last saw of a chart: enough to decide whether to install again, nothing more. */
export interface DesiredState {
  uid: string;
  generation: number;
  /** HMAC-sha256 (the cluster's digest key) over the spec, the HelmChartConfig and referenced Secret data (src/build desiredDigest). */
  digest: string;
  /** The effective failurePolicy (the HelmChartConfig's wins when set). */
  failurePolicy: FailurePolicy;
  /**
   * The sending controller's leadership term (its Lease's leaseTransitions when it took the lead): the workflow
   * ignores a desired state sent under a lower term than one it already accepted. Absent without leader election.
   */
  term?: number;
  /** The chart is annotated suspended: no install runs until this is gone. Absent when not suspended. */
  suspended?: true;
  /**
   * What its depends-on annotation holds the chart's installs back for (src/controller/dependencies.ts): no install
   * starts while this is set. Absent when nothing does.
   */
  dependencies?: DependencyHold;
}

/** Why a chart's installs wait for, or are refused by, its dependencies; the message names the charts. */
export interface DependencyHold {
  reason: DependencyHoldReason;
  message: string;
}

export interface DeleteRequest {
  uid: string;
  /** The chart is annotated unmanaged: release the finalizer without a helm uninstall, as k3s does. */
  keepRelease?: boolean;
}

export interface RetryRequest {
  /** Who asked: 'temporal-signal', 'cli:<user>', 'annotation', … shown on the chart's event. */
  requestedBy: string;
  /**
   * Identifies one request (the retry annotation's value): the same token twice is one retry, so a controller
   * that restarts and sees the annotation again does not retry again.
   */
  token?: string;
}

export type Phase =
  'Pending' | 'Installing' | 'Installed' | 'Failed' | 'Backoff' | 'Paused' | 'Suspended' | 'Deleting' | 'Deleted';

/** The status query's answer. */
export interface ChartStatus {
  ref: ChartRef;
  uid: string | undefined;
  phase: Phase;
  desiredDigest: string | undefined;
  installedDigest: string | undefined;
  attempt: number;
  jobName: string | undefined;
  lastFailure: { reason: string; digest: string } | undefined;
}

export const desiredStateSignal = defineSignal<[DesiredState]>('desiredState');
export const deleteSignal = defineSignal<[DeleteRequest]>('delete');
export const retrySignal = defineSignal<[RetryRequest]>('retry');
export const statusQuery = defineQuery<ChartStatus>('status');
/** The controller saw the stored helm release move away from what the chart's status says: read it again. */
export const releaseChangedSignal = defineSignal('releaseChanged');

export const chartNamespaceKey = defineSearchAttributeKey(searchAttributes.chartNamespace, SearchAttributeType.KEYWORD);
export const chartNameKey = defineSearchAttributeKey(searchAttributes.chartName, SearchAttributeType.KEYWORD);
export const phaseKey = defineSearchAttributeKey(searchAttributes.phase, SearchAttributeType.KEYWORD);

/** The search attributes of a chart's workflow in `phase`. */
export function chartSearchAttributes(ref: ChartRef, phase: Phase): SearchAttributePair[] {
  return [
    { key: chartNamespaceKey, value: ref.namespace },
    { key: chartNameKey, value: ref.name },
    { key: phaseKey, value: phase },
  ];
}

/**
 * The phase a workflow started by a signal is in once that signal is handled: a desired state starts an
 * install at once, a delete an uninstall; a retry or a moved release alone has nothing to install. The controller
 * starts each workflow with it, so the first upsert the workflow would make costs nothing.
 */
export function phaseAtStart(signal: 'desired' | 'delete' | 'retry' | 'releaseChanged'): Phase {
  if (signal === 'desired') return 'Installing';
  if (signal === 'delete') return 'Deleting';
  return 'Pending';
}

/** Durations the workflow waits, overridable so tests run the same code in seconds. */
export interface Tuning {
  /** First wait after a failed install under failurePolicy reinstall; it doubles each failure. */
  backoffBaseSeconds: number;
  backoffMaxSeconds: number;
  /** How long the uninstall Job may run before the finalizer is released anyway. */
  uninstallTimeoutSeconds: number;
  /**
   * How long each other uninstall step (stop the install Job, create the delete Job, clean up) may keep retrying
   * before it is skipped and named in HelmChartUninstallFailed. Absent in runs started before it existed.
   */
  uninstallStepSeconds?: number;
}

export const defaultTuning: Tuning = {
  backoffBaseSeconds: 10,
  backoffMaxSeconds: 300,
  uninstallTimeoutSeconds: 600,
  uninstallStepSeconds: 120,
};
