import http from "node:http";

/**
 * The status of `GET url`, on a connection of its own that closes after the response: a pooled
 * keep-alive connection would stay open in the server and make it wait at shutdown.
 */
export function probe(url: string, timeoutMs = 2000): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { agent: false, timeout: timeoutMs }, (response) => {
      response.resume();
      response.on("end", () => resolve(response.statusCode ?? 0));
      response.on("error", reject);
    });
    request.on("timeout", () => request.destroy(new Error(`GET ${url}: no answer within ${timeoutMs} ms`)));
    request.on("error", reject);
  });
}
