import {
  Reason,
  invalidChoiceMessage,
  invalidWaitMessage,
  type ApiGroup,
  type HelmChart,
  type Refusal,
} from '../api/index.js';
import {
  CRDS_CHOICES,
  DEFAULT_WAIT,
  PREFLIGHT_CHOICES,
  WAIT_STRATEGIES,
  crdsAnnotationKey,
  preflightAnnotationKey,
  waitAnnotationKey,
} from './labels.js';

/**
 * A HelmChart annotation that chooses among a few values (labels.ts says what each does): its values, those that
 * build the same Jobs as no annotation, the name the digest counts it under, and how a value it lacks is refused.
 */
interface ChoiceAnnotation {
  key: (group: ApiGroup) => string;
  choices: readonly string[];
  sameJobs: readonly string[];
  digestName: string;
  reason: Reason;
  message: (key: string, value: string, choices: readonly string[]) => string;
}

const CHOICE_ANNOTATIONS: readonly ChoiceAnnotation[] = [
  {
    key: preflightAnnotationKey,
    choices: PREFLIGHT_CHOICES,
    sameJobs: ['run'],
    digestName: 'preflight',
    reason: Reason.InvalidPreflight,
    message: invalidChoiceMessage,
  },
  {
    key: crdsAnnotationKey,
    choices: CRDS_CHOICES,
    // The worker reads it when a Job prints the chart's CRDs; it changes nothing in any Job.
    sameJobs: CRDS_CHOICES,
    digestName: 'crds',
    reason: Reason.InvalidCrds,
    message: invalidChoiceMessage,
  },
  {
    key: waitAnnotationKey,
    choices: WAIT_STRATEGIES,
    sameJobs: [DEFAULT_WAIT],
    digestName: 'wait',
    reason: Reason.InvalidWait,
    message: invalidWaitMessage,
  },
];

/**
 * The refusal of a HelmChart whose `<group>/preflight`, `<group>/crds` or `<group>/wait` annotation has a value
 * helmflow does not know. The CRD's schema cannot see annotations, so this is the earliest layer that can name it:
 * the install is refused (Failed, the annotation's reason, and its Event) before any object is created, where
 * falling back to the default would install in a way the user did not ask for, and say nothing.
 */
export function annotationRefusal(chart: HelmChart, group: ApiGroup): Refusal | undefined {
  for (const annotation of CHOICE_ANNOTATIONS) {
    const key = annotation.key(group);
    const value = chart.metadata.annotations?.[key];
    if (value !== undefined && !annotation.choices.includes(value))
      return { reason: annotation.reason, message: annotation.message(key, value, annotation.choices) };
  }
  return undefined;
}

/**
 * The choice annotations as the desired-state digest counts them (digest.ts): each value that changes a Job, and each
 * refused value, so that mending it is a change. A value that builds the same Jobs as none does not count, so the
 * digest of a chart without these annotations is what it was before they existed (no reinstall on upgrading).
 */
export function choiceDigestState(chart: HelmChart, group: ApiGroup): Record<string, string> {
  const state: Record<string, string> = {};
  for (const annotation of CHOICE_ANNOTATIONS) {
    const value = chart.metadata.annotations?.[annotation.key(group)];
    if (value !== undefined && !annotation.sameJobs.includes(value)) state[annotation.digestName] = value;
  }
  return state;
}
