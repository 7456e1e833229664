import { apiErrorOf } from '../kube/api-errors.js';

/**
 * The CLI's exit codes, documented in the README: a script can tell a failed assertion from a chart that is not
 * there and from a server it cannot reach.
 */
export const ExitCode = {
  ok: 0,
  /** `chart check` found an assertion false, or the command's own work failed. */
  failed: 1,
  /** The command line is wrong (commander's own usage errors exit with this too). */
  usage: 2,
  /** The HelmChart, or its workflow, does not exist. */
  notFound: 3,
  /** Kubernetes or Temporal could not be reached. */
  unreachable: 4,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** An error the CLI explains itself: its message is the one line printed, with the exit code given. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCode,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

export interface Explained {
  message: string;
  exitCode: ExitCode;
}

const unreachableCodes = /ECONNREFUSED|ENOTFOUND|EHOSTUNREACH|ETIMEDOUT|ECONNRESET|UNAVAILABLE|14 UNAVAILABLE/u;

/**
 * One line that says what went wrong and what to do, and the exit code, for anything a command threw: never a
 * stack trace. `chart` names the chart the command was about, when there is one. Pure: table-tested.
 */
export function explain(err: unknown, chart?: string): Explained {
  if (err instanceof CliError) return { message: err.message, exitCode: err.exitCode };
  const error = err instanceof Error ? err : new Error(String(err));
  const about = chart === undefined ? '' : ` for ${chart}`;
  if (error.name === 'WorkflowNotFoundError') {
    return {
      message:
        `no workflow${about} yet: the controller starts one when it sees the HelmChart — ` +
        'check the HelmChart exists (helmflow get) and the controller runs',
      exitCode: ExitCode.notFound,
    };
  }
  const code = (error as { code?: unknown }).code;
  const text = `${error.message} ${typeof code === 'string' || typeof code === 'number' ? String(code) : ''}`;
  if (
    error.name === 'ServiceError' ||
    error.name === 'TransportError' ||
    /Failed to connect|connect .*Temporal/iu.test(text)
  ) {
    return {
      message: `cannot reach Temporal: ${firstLine(error.message)} — check --temporal-address (or TEMPORAL_ADDRESS)`,
      exitCode: ExitCode.unreachable,
    };
  }
  const api = apiErrorOf(err);
  if (api.status === 404) {
    return { message: `not found${about}: ${firstLine(api.message)}`, exitCode: ExitCode.notFound };
  }
  if (api.status === 401 || api.status === 403) {
    return {
      message: `Kubernetes refused the request${about}: ${firstLine(api.message)} — check --kubeconfig and your RBAC`,
      exitCode: ExitCode.failed,
    };
  }
  if (unreachableCodes.test(text)) {
    return {
      message: `cannot reach the server: ${firstLine(error.message)} — check --kubeconfig, --temporal-address and that they run`,
      exitCode: ExitCode.unreachable,
    };
  }
  return { message: firstLine(error.message), exitCode: ExitCode.failed };
}

function firstLine(text: string): string {
  return (text.split('\n')[0] ?? '').trim();
}
