# syntax=docker/dockerfile:1
# The Folio server as a container image. The build stage has the whole workspace and its dev tools
# (buf, prisma, tsc, turbo); the image gets only the server's build and production dependencies
# (`pnpm deploy --prod`), owned by root and run as the unprivileged `node` user.
#
#   docker build -t folio .
#   docker run -p 8080:8080 -e DATABASE_URL=postgres://... -e AUTH_JWKS_URL=https://... \
#     -e AUTH_ISSUER=... -e AUTH_AUDIENCE=... -e PAGE_TOKEN_SECRET=... folio
#   docker run -e DATABASE_URL=postgres://... folio node dist/main.js migrate   # the migrations, as a job
#
# docs/operations.md lists the configuration; the server refuses development mode here
# (NODE_ENV=production), so a JWKS is required.

FROM node:24-bookworm-slim AS build
WORKDIR /src
# pnpm at the version package.json pins ("packageManager"), through the corepack of Node 24.
RUN corepack enable
COPY . .
RUN pnpm install --frozen-lockfile
# The server's build runs after the web app's (apps/server/turbo.json) and copies it into its dist/.
RUN pnpm exec turbo run build --filter=@folio/server...
# The server with its workspace packages and production dependencies only, in /out. (--legacy:
# the workspace links its packages rather than injecting copies, which pnpm 10's deploy expects.)
# Those are what dist/ loads at run time (apps/server/package.json's `dependencies`; the bundle
# holds the rest): 173 MB, @prisma/client's runtime (71 MB) and PGlite (27 MB) the largest, and no
# TypeScript, Prisma CLI or Studio (.pnpmfile.cjs) where there were 697 MB (docs/operations.md,
# "The image").
RUN pnpm --filter @folio/server deploy --legacy --prod /out

FROM node:24-bookworm-slim
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    METRICS_HOST=0.0.0.0 \
    METRICS_PORT=9464 \
    DATA_DIR=/tmp/folio
WORKDIR /app
COPY --from=build /out /app
USER node
EXPOSE 8080 9464
# Liveness only: an orchestrator's readiness probe or a load balancer's check uses /readyz.
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# node as PID 1 receives SIGTERM itself and drains (SHUTDOWN_GRACE_MS, SHUTDOWN_TIMEOUT_MS).
CMD ["node", "dist/main.js"]
