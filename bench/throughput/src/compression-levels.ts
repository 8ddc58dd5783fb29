// The CPU and the bytes of each compression level on a page of 1000 projects as REST writes it:
// what the transcoder's default levels were picked from. Run: node bench/throughput/src/compression-levels.ts
import { randomUUID } from "node:crypto";
import { loadavg } from "node:os";
import zlib from "node:zlib";

const org = randomUUID();
const cities = ["Berlin", "Lyon", "Amsterdam", "Hamburg", "Utrecht"];
const projects = Array.from({ length: 1000 }, (_, i) => ({
  id: randomUUID(),
  orgId: org,
  name: `Project ${String(i).padStart(4, "0")}`,
  street: "Main Street",
  houseNumber: String(i * 2),
  postalCode: String(10000 + i),
  city: cities[i % cities.length],
  country: i % 5 === 1 ? "FR" : "DE",
  createdAt: new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString(),
}));
const body = Buffer.from(JSON.stringify({ projects }));
const rounds = Number(process.env.ROUNDS ?? 40);
console.log(
  `identity: ${body.byteLength} bytes; load average ${loadavg()
    .map((x) => x.toFixed(2))
    .join(" ")}`,
);
console.log("| coding | level | CPU ms per page | bytes |");
console.log("| ------ | ----- | --------------- | ----- |");

function measure(coding: string, level: number, compress: () => Buffer): void {
  for (let i = 0; i < 5; i++) compress();
  const start = process.cpuUsage();
  let out: Buffer = Buffer.alloc(0);
  for (let i = 0; i < rounds; i++) out = compress();
  const used = process.cpuUsage(start);
  console.log(
    `| ${coding} | ${level} | ${((used.user + used.system) / 1000 / rounds).toFixed(2)} | ${out.byteLength} |`,
  );
}

for (const level of [1, 4, 6, 9]) measure("gzip", level, () => zlib.gzipSync(body, { level }));
for (const quality of [1, 4, 5, 6, 11]) {
  const params = {
    [zlib.constants.BROTLI_PARAM_QUALITY]: quality,
    [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.byteLength,
  };
  measure("br", quality, () => zlib.brotliCompressSync(body, { params }));
}
const zstd = zlib as unknown as {
  zstdCompressSync?: (b: Buffer, o: object) => Buffer;
  constants: Record<string, number>;
};
if (zstd.zstdCompressSync !== undefined) {
  for (const level of [1, 3, 6]) {
    const params = { [zstd.constants.ZSTD_c_compressionLevel as number]: level };
    measure("zstd", level, () =>
      (zstd.zstdCompressSync as NonNullable<typeof zstd.zstdCompressSync>)(body, { params }),
    );
  }
}
