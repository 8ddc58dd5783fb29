import type { Registry } from "@bufbuild/protobuf";

/** Options of the protobuf JSON mapping the transcoder reads requests and writes responses with. */
export interface HttpTranscoderJsonOptions {
  /** Message types for `google.protobuf.Any` fields, and for error details to decode. */
  readonly registry?: Registry;
  /** Write proto field names (`page_size`) instead of JSON names (`pageSize`) in responses. */
  readonly useProtoFieldName?: boolean;
  /** Write enum values as numbers instead of names in responses. */
  readonly enumAsInteger?: boolean;
}
