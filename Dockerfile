# syntax=docker/dockerfile:1
#
# Switchyard container image: three stages on the official Node 20 Debian slim image.
#   build     npm ci (with dev dependencies, from the lockfile), tsc → dist/src, the dashboard's Vite build → dist/dashboard
#   prod-deps npm ci --omit=dev: the runtime node_modules only
#   runtime   dist/ + node_modules + the files read at run time, as a non-root user, under tini
#
# The gateway finds its files from the project root (the folder holding package.json and
# schemas/), so the runtime stage keeps the repository layout under /app: package.json, dist/,
# config/ (defaults and the catalog), schemas/ and src/store/migrations/*.sql, and the
# dashboard's static files in dist/dashboard (served at /dashboard).
#
# Build:  docker build -t switchyard:0.1.0 .
# Run:    docker run -p 8080:8080 -p 9464:9464 -e DATABASE_URL=... -e REDIS_URL=... switchyard:0.1.0
# (Without DATABASE_URL it uses embedded PGlite in /app/data: mount a volume there.)

ARG NODE_IMAGE=node:20.20.2-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY dashboard ./dashboard
RUN npm run build

FROM ${NODE_IMAGE} AS prod-deps
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

FROM ${NODE_IMAGE} AS runtime
# tini as PID 1 forwards SIGTERM to Node (which then drains) and reaps zombies; Node as PID 1
# would not get the kernel's default signal handling.
RUN apt-get update \
    && apt-get install -y --no-install-recommends tini \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /app
ENV NODE_ENV=production \
    SWITCHYARD_DATA_DIR=/app/data
# Everything is owned by root and read-only to the app user; only the embedded-database
# directory is writable (unused when DATABASE_URL is set, as in Kubernetes).
COPY package.json package-lock.json ./
COPY --from=prod-deps /app/node_modules ./node_modules
COPY --from=build /app/dist/src ./dist/src
COPY --from=build /app/dist/dashboard ./dist/dashboard
COPY config ./config
COPY schemas ./schemas
COPY src/store/migrations ./src/store/migrations
RUN mkdir -p /app/data && chown 1000:1000 /app/data
# The image's `node` user, by number so that Kubernetes' runAsNonRoot can verify it.
USER 1000:1000
EXPOSE 8080 9464
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=15s --timeout=3s --start-period=30s --retries=3 \
    CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
ENTRYPOINT ["/usr/bin/tini", "--"]
# Node directly (not npm, which does not forward signals). Admin CLI: `node dist/src/cli.js <command>`.
# The flag is `npm start`'s (see README, Deployment): V8 otherwise lets the old generation grow to up
# to four times its live size between full collections, and every request's objects that outlive a
# young collection land there, so the peak memory was mostly garbage.
CMD ["node", "--heap-growing-percent=100", "dist/src/main.js"]
