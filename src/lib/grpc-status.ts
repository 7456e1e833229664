import { isGrpcServiceError } from '@temporalio/client';

/** The gRPC status codes helmflow tells apart in Temporal's answers (grpc-js's `status`, not a dependency here). */
export const GrpcStatus = {
  notFound: 5,
  alreadyExists: 6,
  permissionDenied: 7,
  unimplemented: 12,
  unauthenticated: 16,
} as const;

/** The gRPC status code of a failed Temporal call, or undefined for any other error. */
export function grpcCode(err: unknown): number | undefined {
  if (!isGrpcServiceError(err)) return undefined;
  const code: number = err.code;
  return code;
}
