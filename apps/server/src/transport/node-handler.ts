// Node's request and response types, declared once in @folio/rpc-protocols.
export type { NodeHandler, NodeRequest, NodeResponse } from "@folio/rpc-protocols";
