# syntax=docker/dockerfile:1
# The helmflow image: the controller and the worker (`helmflow controller|worker|run`), Node 20 running the
# TypeScript sources with tsx, as `npm run helmflow` does. The helm binary is not in it: the install and
# delete Jobs run in their own image (HELMFLOW_JOB_IMAGE, default docker.io/alpine/helm:4.3.0).
#
# No Docker runs on the development machine, so test/e2e/image-layout.test.ts verifies this file without it: it
# reads the stage below (its COPY, RUN, ENV, ENTRYPOINT and CMD), lays the same files out in a directory outside
# the repository, runs the same `npm ci` there (offline, from the npm cache) and then the ENTRYPOINT and CMD, and
# requires that process to install a chart with real helm on the embedded stack, answer /readyz and stop cleanly
# on SIGTERM. Only what the test cannot reproduce is unproven: the base image and the user.
#
#   docker build -t helmflow:0.1.0 .
#   docker run --rm helmflow:0.1.0 --help

# glibc (bookworm), not Alpine: the Temporal worker's native core is built for glibc.
ARG NODE_IMAGE=node:20.19-bookworm-slim

FROM ${NODE_IMAGE}
ENV NODE_ENV=production \
    HELMFLOW_HTTP_HOST=0.0.0.0 \
    HELMFLOW_MANIFESTS_DIR=""
WORKDIR /app
COPY package.json package-lock.json ./
# Production dependencies only; tsx is one of them. No install script is needed (the Temporal core and esbuild
# ship their binaries in packages), so none runs. The npm cache is a build cache, not a layer of the image.
RUN --mount=type=cache,target=/root/.npm npm ci --omit=dev --ignore-scripts --no-audit --no-fund
COPY tsconfig.json ./
COPY src ./src
COPY workflows ./workflows
COPY activities ./activities
COPY tools/pins.json ./tools/pins.json
# The unprivileged `node` user (uid 1000) of the base image; it owns nothing under /app.
USER 1000:1000
EXPOSE 9090
ENTRYPOINT ["node", "--import", "tsx", "src/cli/main.ts"]
CMD ["run"]
