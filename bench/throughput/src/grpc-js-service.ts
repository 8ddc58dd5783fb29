// The baseline on @grpc/grpc-js + pg: Folio's ListProjects and CreateFolder over gRPC (h2c), from
// Folio's own service descriptors (grpc-peer/service-definition.ts), with the semantics of the REST
// baselines (grpc-peer/handlers.ts on baseline/). Configured by environment variables, as Folio:
// HOST, PORT, DATABASE_URL, DATABASE_POOL_SIZE, AUTH_JWKS_FILE, AUTH_ISSUER, AUTH_AUDIENCE,
// PAGE_TOKEN_SECRET.
//
//   node bench/throughput/src/grpc-js-service.ts

import { FolderService, ProjectService } from "@folio/proto";
import { Server, ServerCredentials } from "@grpc/grpc-js";
import { loadBaselineConfig } from "./baseline/config.ts";
import { MAX_BODY_BYTES } from "./baseline/service.ts";
import { createGrpcPeer } from "./grpc-peer/handlers.ts";
import { grpcServiceDefinition } from "./grpc-peer/service-definition.ts";

const config = loadBaselineConfig();
const peer = createGrpcPeer(config);

// Folio's limit on a request message (MAX_REQUEST_BODY_BYTES); everything else grpc-js's defaults,
// as a team would start.
const server = new Server({ "grpc.max_receive_message_length": MAX_BODY_BYTES });
server.addService(grpcServiceDefinition(ProjectService), { ListProjects: peer.listProjects });
server.addService(grpcServiceDefinition(FolderService), { CreateFolder: peer.createFolder });

const port = await new Promise<number>((resolve, reject) =>
  server.bindAsync(`${config.host}:${config.port}`, ServerCredentials.createInsecure(), (error, bound) =>
    error === null ? resolve(bound) : reject(error),
  ),
);
console.log(`listening http://${config.host}:${port} (gRPC, h2c)`);

// On SIGTERM or SIGINT: the server, then the pool, and exit 0, so that a --cpu-prof profile is written.
const stop = () => {
  server.forceShutdown();
  peer.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.once("SIGTERM", stop);
process.once("SIGINT", stop);
