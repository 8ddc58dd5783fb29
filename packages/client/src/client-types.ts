import type {
  DescMessage,
  DescMethod,
  DescMethodUnary,
  DescService,
  Message,
  MessageInitShape,
  MessageShape,
} from "@bufbuild/protobuf";

/** How a client talks to Folio: every protocol the server's one port serves. */
export type Protocol = "connect" | "grpc-web" | "grpc" | "rest";

/** Options of one call. */
export interface CallOptions {
  /** The call's deadline, from now, in ms: it covers every attempt and every wait between them. */
  readonly timeoutMs?: number;
  /** Aborts the call, retries included. */
  readonly signal?: AbortSignal;
}

/** A unary method on the client: a request (every field may be left out) in, the response message out. */
export type UnaryCall<I extends DescMessage, O extends DescMessage> = (
  request?: MessageInitShape<I>,
  options?: CallOptions,
) => Promise<MessageShape<O>>;

/** Every item of every page of a paged method, each page fetched when the loop reaches it. */
export type PagedCall<I extends DescMessage, Item> = (
  request?: MessageInitShape<I>,
  options?: CallOptions,
) => AsyncGenerator<Item, void, undefined>;

/** Calls a unary method by its descriptor, e.g. `FolderService.method.createFolder`. */
export interface MethodCall {
  /** A generated method: typed as its messages are. */
  <I extends DescMessage, O extends DescMessage>(
    method: DescMethodUnary<I, O>,
    request?: MessageInitShape<I>,
    options?: CallOptions,
  ): Promise<MessageShape<O>>;
  /** A method known only at run time (e.g. read from a registry): plain messages. */
  (method: DescMethod, request?: Record<string, unknown>, options?: CallOptions): Promise<Message>;
}

// A union of services becomes one object holding the methods of each.
type UnionToIntersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void
  ? I
  : never;

type IsUnion<T, U = T> = T extends unknown ? ([U] extends [T] ? false : true) : never;

/** The keys of a message's repeated fields (arrays); `$unknown` and other `$` keys are not fields. */
type ListKeys<M> = {
  [K in keyof M]-?: K extends `$${string}` ? never : NonNullable<M[K]> extends readonly unknown[] ? K : never;
}[keyof M];

/** The item of a response with exactly one repeated field, else never. */
type ItemOf<M> = [ListKeys<M>] extends [never]
  ? never
  : IsUnion<ListKeys<M>> extends true
    ? never
    : NonNullable<M[ListKeys<M>]> extends readonly (infer T)[]
      ? T
      : never;

/**
 * The item a method pages over (AIP-158: the request has `page_token` and `page_size`, the
 * response `next_page_token` and one repeated field), or never when it does not page.
 */
export type PageItem<I extends DescMessage, O extends DescMessage> =
  MessageShape<I> extends { pageToken: string; pageSize: number }
    ? MessageShape<O> extends { nextPageToken: string }
      ? ItemOf<MessageShape<O>>
      : never
    : never;

type UnaryOf<S extends DescService> = {
  [K in keyof S["method"] as S["method"][K] extends DescMethodUnary
    ? K
    : never]: S["method"][K] extends DescMethodUnary<infer I, infer O> ? UnaryCall<I, O> : never;
};

type PagedOf<S extends DescService> = {
  [K in keyof S["method"] as S["method"][K] extends DescMethodUnary<infer I, infer O>
    ? [PageItem<I, O>] extends [never]
      ? never
      : K
    : never]: S["method"][K] extends DescMethodUnary<infer I, infer O> ? PagedCall<I, PageItem<I, O>> : never;
};

/** Every unary method of the services `S`, by its lowerCamelCase name (as connect-es names them). */
export type UnaryMethods<S extends DescService> = UnionToIntersection<
  S extends DescService ? UnaryOf<S> : never
>;

/** An item iterator for every paged method of the services `S`, by the method's name. */
export type PagedMethods<S extends DescService> = UnionToIntersection<
  S extends DescService ? PagedOf<S> : never
>;

/** A client of the services `S`: each unary method, `paged` iterators, and `call` by descriptor. */
export type ServiceClient<S extends DescService> = UnaryMethods<S> & {
  readonly protocol: Protocol;
  /** For each paged method (AIP-158), every item of every page: `for await (const x of client.paged.listX(...))`. */
  readonly paged: PagedMethods<S>;
  /** Calls a unary method by its descriptor. */
  readonly call: MethodCall;
};
