# syntax=docker/dockerfile:1
# The helmflow image: the controller and the worker (`helmflow controller|worker|run`), Node 20 running the
# TypeScript sources with tsx, as `npm run helmflow` does. The helm binary is not in it: the install and
# delete Jobs run in their own image (HELMFLOW_JOB_IMAGE, default docker.io/alpine/helm:4.3.0).
#
# Not built in CI here: the development machine has no Docker. The same sources, dependencies and command run
# in every e2e test (test/e2e/deploy.test.ts starts `node --import tsx src/cli/main.ts controller`).
#
#   docker build -t helmflow:0.1.0 .
#   docker run --rm helmflow:0.1.0 --help

# glibc (bookworm), not Alpine: the Temporal worker's native core is built for glibc.
ARG NODE_IMAGE=node:20.19-bookworm-slim

# Stage 1: every dependency, for tsx (a devDependency). The type check is CI's (`npm run check`), not the image's.
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
# Install scripts stay off, as on the development machine (npm 11 holds them back): nothing needs one.
RUN npm ci --ignore-scripts --no-audit --no-fund

# Stage 2: production dependencies only, plus tsx (a devDependency) and esbuild, its only dependency.
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund
COPY --from=build /app/node_modules/tsx ./node_modules/tsx
COPY --from=build /app/node_modules/esbuild ./node_modules/esbuild
COPY --from=build /app/node_modules/@esbuild ./node_modules/@esbuild

# Stage 3: the runtime, as the unprivileged `node` user (uid 1000) of the base image.
FROM ${NODE_IMAGE}
ENV NODE_ENV=production \
    HELMFLOW_HTTP_HOST=0.0.0.0 \
    HELMFLOW_MANIFESTS_DIR=""
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json tsconfig.json ./
COPY src ./src
COPY workflows ./workflows
COPY activities ./activities
COPY tools/pins.json ./tools/pins.json
USER 1000:1000
EXPOSE 9090
ENTRYPOINT ["node", "--import", "tsx", "src/cli/main.ts"]
CMD ["run"]
