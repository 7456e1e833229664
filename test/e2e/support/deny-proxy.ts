import {
  connect,
  constants,
  createServer,
  type ClientHttp2Session,
  type IncomingHttpHeaders,
  type OutgoingHttpHeaders,
  type Http2Session,
} from 'node:http2';
import type { AddressInfo } from 'node:net';

/** The gRPC method a Temporal that forbids registration (Temporal Cloud's data plane) refuses. */
export const ADD_SEARCH_ATTRIBUTES = '/temporal.api.operatorservice.v1.OperatorService/AddSearchAttributes';

export interface DenyProxy {
  /** host:port to give helmflow as the Temporal address. */
  address: string;
  /** How many calls were denied. */
  denied(): number;
  close(): Promise<void>;
}

const GRPC_PERMISSION_DENIED = '7';

// Pseudo-headers and connection-level headers are the session's own: never copied across.
function endToEnd(headers: IncomingHttpHeaders, keep: readonly string[]): OutgoingHttpHeaders {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !name.startsWith(':') || keep.includes(name)));
}

/**
 * A plaintext gRPC (HTTP/2) proxy in front of a real Temporal frontend that forwards every call unchanged,
 * except `deny` methods, answered PermissionDenied at once. A fake only steering helmflow into its "may not
 * register" branch; everything else helmflow does goes to the real server.
 */
export async function startDenyProxy(
  upstream: string,
  deny: readonly string[] = [ADD_SEARCH_ATTRIBUTES],
): Promise<DenyProxy> {
  let denied = 0;
  // One upstream session per client session, so the server sees each client as its own connection.
  const upstreamOf = new Map<Http2Session, ClientHttp2Session>();
  const server = createServer();
  server.on('session', (inbound) => {
    const outbound = connect(`http://${upstream}`);
    upstreamOf.set(inbound, outbound);
    outbound.on('error', () => {
      inbound.destroy();
    });
    inbound.on('close', () => {
      upstreamOf.delete(inbound);
      outbound.close();
    });
    inbound.on('error', () => {
      outbound.destroy();
    });
  });
  server.on('stream', (stream, headers) => {
    const path = String(headers[constants.HTTP2_HEADER_PATH] ?? '');
    if (deny.includes(path)) {
      denied += 1;
      stream.resume();
      stream.respond(
        {
          ':status': 200,
          'content-type': 'application/grpc',
          'grpc-status': GRPC_PERMISSION_DENIED,
          'grpc-message': encodeURIComponent('Request unauthorized.'),
        },
        { endStream: true },
      );
      return;
    }
    const outbound = stream.session === undefined ? undefined : upstreamOf.get(stream.session);
    if (outbound === undefined) {
      stream.close(constants.NGHTTP2_REFUSED_STREAM);
      return;
    }
    const request = outbound.request(endToEnd(headers, [':method', ':path', ':scheme', ':authority']));
    let trailers: OutgoingHttpHeaders = {};
    request.on('response', (response) => {
      // A trailers-only answer (an error) carries grpc-status in its headers and ends there.
      const trailersOnly = response['grpc-status'] !== undefined;
      stream.respond(endToEnd(response, [':status']), { endStream: trailersOnly, waitForTrailers: !trailersOnly });
    });
    request.on('trailers', (received: IncomingHttpHeaders) => {
      trailers = endToEnd(received, []);
    });
    stream.on('wantTrailers', () => {
      stream.sendTrailers(trailers);
    });
    stream.pipe(request);
    request.on('data', (chunk: Buffer) => stream.write(chunk));
    request.on('end', () => {
      if (!stream.closed && !stream.destroyed && !stream.writableEnded) stream.end();
    });
    request.on('error', () => {
      stream.close(constants.NGHTTP2_INTERNAL_ERROR);
    });
    stream.on('error', () => {
      request.close(constants.NGHTTP2_CANCEL);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    denied: () => denied,
    close: async () => {
      for (const [inbound, outbound] of upstreamOf) {
        outbound.destroy();
        inbound.destroy();
      }
      await new Promise<void>((resolve) =>
        server.close(() => {
          resolve();
        }),
      );
    },
  };
}
