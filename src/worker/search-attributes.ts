import { KEYWORD_INDEXED_VALUE_TYPE, searchAttributes, searchAttributeType } from '../config/search-attributes.js';
import { GrpcStatus, grpcCode } from '../lib/grpc-status.js';

/** The part of Temporal's OperatorService this needs (a Client Connection's `operatorService`). */
export interface SearchAttributeOperator {
  listSearchAttributes(request: { namespace: string }): Promise<{ customAttributes?: Record<string, number> | null }>;
  addSearchAttributes(request: { namespace: string; searchAttributes: Record<string, number> }): Promise<unknown>;
}

export interface TemporalTarget {
  namespace: string;
  address: string;
}

/** `ready`: every attribute is there as a Keyword. `refused`: they are not and helmflow cannot fix it itself. */
export type SearchAttributeCheck =
  { kind: 'ready'; added: string[] } | { kind: 'refused'; missing: string[]; reason: string };

const wanted: readonly string[] = Object.values(searchAttributes);

// gRPC status codes of a server that will not let this caller register attributes (Temporal Cloud answers
// PermissionDenied on its data plane; an authorizer may answer either of the first two).
const REFUSALS: readonly number[] = [GrpcStatus.permissionDenied, GrpcStatus.unauthenticated, GrpcStatus.unimplemented];

/** Which of helmflow's attributes are absent, and which exist with a type other than Keyword. */
export function compareAttributes(existing: Record<string, number>): { missing: string[]; mistyped: string[] } {
  return {
    missing: wanted.filter((name) => existing[name] === undefined),
    mistyped: wanted.filter((name) => existing[name] !== undefined && existing[name] !== KEYWORD_INDEXED_VALUE_TYPE),
  };
}

/** Temporal Cloud's addresses; there the attributes are added with tcld or the Cloud UI. */
export function isTemporalCloud(address: string): boolean {
  const host = address.replace(/:\d+$/, '');
  return host.endsWith('.tmprl.cloud') || host.endsWith('.api.temporal.io');
}

/** The one command an operator runs to register `names` in the target namespace. */
export function registrationCommand(target: TemporalTarget, names: readonly string[]): string {
  if (isTemporalCloud(target.address)) {
    const each = names.map((name) => `--search-attribute ${name}=${searchAttributeType}`).join(' ');
    return `tcld namespace search-attributes add --namespace ${target.namespace} ${each}`;
  }
  // The CLI pairs each --name with the --type at the same position: one --type for three names registers only
  // the first (seen with the pinned Temporal CLI v1.5.1).
  const each = names.map((name) => `--name ${name} --type ${searchAttributeType}`).join(' ');
  const where = `--address ${target.address} --namespace ${target.namespace}`;
  return `temporal operator search-attribute create ${where} ${each}`;
}

function refusedBecause(target: TemporalTarget, names: string[], why: string): SearchAttributeCheck {
  return {
    kind: 'refused',
    missing: names,
    reason:
      `search attributes ${names.join(', ')} are missing in Temporal namespace ${target.namespace} and helmflow ` +
      `may not register them (${why}); an operator runs: ${registrationCommand(target, names)}`,
  };
}

function isRefusal(err: unknown): boolean {
  return REFUSALS.includes(grpcCode(err) ?? -1);
}

/**
 * Makes sure helmflow's search attributes exist in the namespace, adding those missing (idempotent: a second
 * worker doing the same at once gets AlreadyExists, which is fine). A server that refuses registration, or an
 * attribute of the wrong type, gives `refused` with the command to run; any other error (Temporal unreachable)
 * is thrown for the caller to retry.
 */
export async function ensureSearchAttributes(
  operator: SearchAttributeOperator,
  target: TemporalTarget,
): Promise<SearchAttributeCheck> {
  let existing: Record<string, number>;
  try {
    existing = (await operator.listSearchAttributes({ namespace: target.namespace })).customAttributes ?? {};
  } catch (err) {
    if (isRefusal(err)) return refusedBecause(target, [...wanted], `listing them was refused: ${messageOf(err)}`);
    throw err;
  }
  const { missing, mistyped } = compareAttributes(existing);
  if (mistyped.length > 0) {
    return {
      kind: 'refused',
      missing: mistyped,
      reason:
        `search attributes ${mistyped.join(', ')} exist in Temporal namespace ${target.namespace} with a type ` +
        `other than ${searchAttributeType}; remove them (temporal operator search-attribute delete) and run: ` +
        registrationCommand(target, mistyped),
    };
  }
  if (missing.length === 0) return { kind: 'ready', added: [] };
  try {
    await operator.addSearchAttributes({
      namespace: target.namespace,
      searchAttributes: Object.fromEntries(missing.map((name) => [name, KEYWORD_INDEXED_VALUE_TYPE])),
    });
  } catch (err) {
    if (isRefusal(err)) return refusedBecause(target, missing, `the server refused: ${messageOf(err)}`);
    if (grpcCode(err) !== GrpcStatus.alreadyExists) throw err;
  }
  const after = await operator.listSearchAttributes({ namespace: target.namespace });
  const still = compareAttributes(after.customAttributes ?? {}).missing;
  if (still.length > 0) throw new Error(`search attributes ${still.join(', ')} registered but not listed yet`);
  return { kind: 'ready', added: missing };
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
