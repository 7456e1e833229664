import { ApiErrorReason } from '../api/reasons.js';

/** What a failed Kubernetes call said: the HTTP status (absent for a network error) and the apiserver's Status. */
export interface ApiError {
  status: number | undefined;
  /** metav1.Status reason (Forbidden, Invalid, AlreadyExists, …) when the apiserver sent one. */
  reason: string | undefined;
  message: string;
  /** metav1.Status details.causes[].reason, e.g. NamespaceTerminating. */
  causes: string[];
}

/** Retrying may help (the apiserver or the network is having a moment), or it never will, for this reason. */
export type ErrorClass = { kind: 'transient' } | { kind: 'permanent'; reason: ApiErrorReason };

const transientStatuses = new Set([401, 408, 409, 425, 429]);

/**
 * Classifies one Kubernetes API error, once, for every activity. Pure. Network errors, timeouts, throttling,
 * conflicts and 5xx are transient; a 4xx the same request will meet again is permanent, with the most specific
 * reason its Status allows (a quota, a terminating namespace and a webhook denial are all 403 or 400).
 */
export function classifyApiError(error: ApiError): ErrorClass {
  const { status } = error;
  if (status === undefined || status >= 500 || transientStatuses.has(status)) return { kind: 'transient' };
  if (status < 400) return { kind: 'transient' };
  return { kind: 'permanent', reason: permanentReason(error) };
}

function permanentReason({ status, reason, message, causes }: ApiError): ApiErrorReason {
  if (causes.includes('NamespaceTerminating') || /because it is being terminated/u.test(message)) {
    return ApiErrorReason.NamespaceTerminating;
  }
  if (/exceeded quota|forbidden: failed quota/u.test(message)) return ApiErrorReason.QuotaExceeded;
  if (/admission webhook .* denied the request|denied request:|ValidatingAdmissionPolicy/u.test(message)) {
    return ApiErrorReason.AdmissionDenied;
  }
  if (status === 413 || reason === 'RequestEntityTooLarge' || /Too long: must have at most/u.test(message)) {
    return ApiErrorReason.TooLarge;
  }
  if (status === 404) {
    return /namespaces? "[^"]*" not found/u.test(message) ? ApiErrorReason.NamespaceNotFound : ApiErrorReason.NotFound;
  }
  if (status === 403) return ApiErrorReason.Forbidden;
  if (status === 400 || status === 422) return ApiErrorReason.Invalid;
  return ApiErrorReason.Rejected;
}

/** The ApiError of anything a client-node call threw: its code and the Status in its (JSON text) body. */
export function apiErrorOf(err: unknown): ApiError {
  const fields = typeof err === 'object' && err !== null ? (err as Record<string, unknown>) : {};
  const code = typeof fields.code === 'number' ? fields.code : undefined;
  const body = statusBody(fields.body);
  const fallback = err instanceof Error ? err.message : String(err);
  return {
    status: code ?? (typeof body.code === 'number' ? body.code : undefined),
    reason: typeof body.reason === 'string' ? body.reason : undefined,
    message: typeof body.message === 'string' && body.message !== '' ? body.message : firstLine(fallback),
    causes: (body.details?.causes ?? []).flatMap((c) => (typeof c.reason === 'string' ? [c.reason] : [])),
  };
}

interface StatusBody {
  code?: unknown;
  reason?: unknown;
  message?: unknown;
  details?: { causes?: { reason?: unknown }[] };
}

function statusBody(body: unknown): StatusBody {
  if (typeof body === 'object' && body !== null) return body;
  if (typeof body !== 'string') return {};
  try {
    const parsed: unknown = JSON.parse(body);
    return typeof parsed === 'object' && parsed !== null ? parsed : {};
  } catch {
    return {};
  }
}

function firstLine(text: string): string {
  return text.split('\n', 1)[0] ?? text;
}
