/** The bearer token to send: a static one, or a function that gives the current one. */
export interface TokenSource {
  /** A static bearer token. */
  readonly token?: string | undefined;
  /**
   * Gives the token to send (instead of `token`); called before each call, and once more with
   * `refresh: true` when the server answers `unauthenticated` (the token expired): it should then
   * return a fresh one.
   */
  readonly getToken?: ((context: { readonly refresh: boolean }) => string | Promise<string>) | undefined;
}

/** The token to send: the static one, or the provider's. */
export async function currentToken(source: TokenSource, refresh: boolean): Promise<string | undefined> {
  if (source.getToken !== undefined) return await source.getToken({ refresh });
  return source.token;
}
