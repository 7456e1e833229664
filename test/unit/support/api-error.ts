/** An error as the Kubernetes client throws it for an HTTP status (409, 404): what isConflict and isNotFound read. */
export function apiError(code: number): Error {
  return Object.assign(new Error(String(code)), { code });
}
