# syntax=docker/dockerfile:1
# The helmflow image: the controller and the worker (`helmflow controller|worker|run`), compiled JavaScript on a
# supported Node LTS; no TypeScript loader and no sources at run time. The helm binary is not in it: the install
# and delete Jobs run in their own image (HELMFLOW_JOB_IMAGE, default docker.io/alpine/helm:4.3.0).
#
# No Docker runs on the development machine, so test/e2e/image-layout.test.ts verifies this file without it: it
# reads both stages below (their COPY, RUN, ENV, ENTRYPOINT and CMD), lays the same files out in directories
# outside the repository, runs the same `npm ci` (offline, from the npm cache) and `npm run build` there, and then
# the ENTRYPOINT and CMD, and requires that process to install a chart with real helm on the embedded stack,
# answer /readyz and stop cleanly on SIGTERM. Only what the test cannot reproduce is unproven: the base image (that
# its digest is what the registry serves), its apt packages (the test requires them installed on the machine it runs
# on) and the user.
#
#   docker build -t helmflow:0.1.0 .
#   docker run --rm helmflow:0.1.0 --help

# glibc (bookworm), not Alpine: the Temporal worker's native core is built for glibc. Node 22 is an LTS line
# (Node 20's support ended on 2026-04-30); .ci/run runs the tests on Node 22 too.
# Pinned by digest (the multi-platform index), so a rebuild gets the same base whatever the tag points at later.
# No registry is reachable where helmflow is developed: this digest is the one Docker's official-images team
# published for node:22-bookworm-slim (Node 22.23.2, built 2026-09-19) in github.com/docker-library/repo-info,
# repos/node/remote/22-bookworm-slim.md at commit 3179cb4d576b9929bf86873c87f279ac67661c6e. To verify it, or to
# move to a newer build: `docker buildx imagetools inspect node:22-bookworm-slim` prints the tag's current index
# digest (`Digest:`); `docker buildx imagetools inspect node:22-bookworm-slim@sha256:<digest>` shows what a digest is.
ARG NODE_IMAGE=node:22-bookworm-slim@sha256:48e4b67d85f87bd551df43704e24d252f56cc5f8e9718841aace50f19948f0f9

# The build: all dependencies, then tsc and the workflow bundle (`npm run build`) into dist/.
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
# No install script is needed (the Temporal core, esbuild and swc ship their binaries in packages), so none runs.
# The npm cache is a build cache, not a layer of the image.
RUN --mount=type=cache,target=/root/.npm npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY workflows ./workflows
COPY activities ./activities
RUN npm run build

FROM ${NODE_IMAGE}
# The slim image has no CA certificates; the Temporal worker's native client trusts only the operating system's
# when no CA is given, so without them it cannot verify Temporal Cloud or any publicly signed server.
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates && rm -rf /var/lib/apt/lists/*
# glibc gives the threads that allocate (the Temporal core's, V8's, libuv's) malloc arenas of their own, up to 8 per
# core, and each keeps what it once held: with 2, helmflow rests with tens of MiB less (bench/README.md, "malloc
# arenas"). glibc reads it only at process start, so the image sets it; the benches read it from here.
ENV NODE_ENV=production \
    HELMFLOW_HTTP_HOST=0.0.0.0 \
    HELMFLOW_MANIFESTS_DIR="" \
    MALLOC_ARENA_MAX=2
WORKDIR /app
COPY package.json package-lock.json ./
# Production dependencies only: no TypeScript, no tsx.
RUN --mount=type=cache,target=/root/.npm npm ci --omit=dev --ignore-scripts --no-audit --no-fund
COPY --from=build /app/dist ./dist
COPY tools/pins.json ./tools/pins.json
# The unprivileged `node` user (uid 1000) of the base image; it owns nothing under /app.
USER 1000:1000
EXPOSE 9090
# package.json's `bin`: the `helmflow` executable.
ENTRYPOINT ["node", "dist/src/cli/main.js"]
CMD ["run"]
