import type { DescService } from "@bufbuild/protobuf";
import * as proto from "@folio/proto";

type ProtoExports = typeof proto;

/** Any of Folio's services, as @folio/proto exports them: a service added to the proto joins it. */
export type FolioService = {
  [K in keyof ProtoExports]: ProtoExports[K] extends DescService ? ProtoExports[K] : never;
}[keyof ProtoExports];

/** Folio's services, every one that @folio/proto exports: what a client offers by default. */
export const folioServices: readonly FolioService[] = Object.values(proto).filter(isService);

function isService(value: unknown): value is FolioService {
  return typeof value === "object" && value !== null && (value as { kind?: unknown }).kind === "service";
}
