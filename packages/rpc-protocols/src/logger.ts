/** Where the package logs a failure it cannot answer (a pino logger is one). */
export interface ErrorLogger {
  error(details: object, message: string): void;
}
