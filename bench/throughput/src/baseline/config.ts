/** What a baseline service reads from its environment: the variables Folio reads for the same things. */
export interface BaselineConfig {
  readonly host: string;
  readonly port: number;
  readonly databaseUrl: string;
  /** Connections of the `pg` pool (Folio: `DATABASE_POOL_SIZE`, default 10). */
  readonly poolSize: number;
  /** The JWKS file Folio is given (`AUTH_JWKS_FILE`). */
  readonly jwksFile: string;
  readonly issuer: string;
  readonly audience: string;
  /** Key of the page-token HMAC; random per process when unset, as in Folio. */
  readonly pageTokenSecret: string | undefined;
}

type Env = Readonly<Record<string, string | undefined>>;

export function loadBaselineConfig(env: Env = process.env): BaselineConfig {
  const required = (name: string): string => {
    const value = env[name];
    if (value === undefined || value === "") throw new Error(`${name} must be set`);
    return value;
  };
  return {
    host: env.HOST ?? "127.0.0.1",
    port: Number(env.PORT ?? "8080"),
    databaseUrl: required("DATABASE_URL"),
    poolSize: Number(env.DATABASE_POOL_SIZE ?? "10"),
    jwksFile: required("AUTH_JWKS_FILE"),
    issuer: required("AUTH_ISSUER"),
    audience: required("AUTH_AUDIENCE"),
    pageTokenSecret: env.PAGE_TOKEN_SECRET || undefined,
  };
}
