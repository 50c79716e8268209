/**
 * What a database error means, decided here once for the whole SQL store:
 * whether the server answered it (the statement was refused and nothing of
 * it was committed) or the connection failed (it may have been committed).
 * What a caller does with an error (try a group's writes again alone, retry,
 * answer UNAVAILABLE) follows from this one rule.
 */

/**
 * An error the server sent (an ErrorResponse: a severity and an SQLSTATE, on
 * pg and PGlite alike), not a lost connection's (Node's, such as EPIPE, have
 * a code but no severity); class 08 is the connection's.
 */
export function isServerError(e: unknown): boolean {
  const { code, severity } = (e ?? {}) as { code?: unknown; severity?: unknown };
  return typeof severity === "string" && typeof code === "string" && /^[0-9A-Z]{5}$/.test(code) && !code.startsWith("08");
}

/**
 * A statement the client gave up on (the `statementTimeoutMs` option: the
 * server did not answer in time): its connection may still be busy with it,
 * so it must not serve another statement.
 */
export function isGivenUp(e: unknown): boolean {
  return e instanceof Error && e.message === "Query read timeout";
}
