import { Reason, invalidWaitMessage, type ApiGroup, type HelmChart, type Refusal } from '../api/index.js';
import { WAIT_STRATEGIES, waitAnnotationKey, waitStrategyOf } from './labels.js';

/**
 * The refusal of a HelmChart whose `<group>/wait` annotation names a wait strategy helm does not have. The CRD's
 * schema cannot see annotations, so this is the earliest layer that can name it: the install is refused (Failed,
 * reason InvalidWait, and its Event) before any object is created, instead of helm failing in the Job.
 */
export function waitRefusal(chart: HelmChart, group: ApiGroup): Refusal | undefined {
  if (waitStrategyOf(chart.metadata.annotations, group) !== undefined) return undefined;
  const key = waitAnnotationKey(group);
  const value = chart.metadata.annotations?.[key] ?? '';
  return { reason: Reason.InvalidWait, message: invalidWaitMessage(key, value, WAIT_STRATEGIES) };
}
