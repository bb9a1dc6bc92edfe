import sharp from 'sharp';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { percentile } from './selfie-stages';
import { ms } from './table';

/** One selfie search through REST: how many photos matched, and its request_id. */
export type PostSelfie = (selfie: Buffer) => Promise<{ images: number; requestId: string }>;

export interface TimedPost {
  ms: number;
  requestId: string;
}

/** `total` searches by `clients` participants at once, each posting its next selfie as soon as the last one answered. */
export async function concurrentSearches(
  post: PostSelfie,
  selfies: Buffer[],
  clients: number,
  total: number,
): Promise<TimedPost[]> {
  let next = 0;
  const out: TimedPost[] = [];
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (next < total) {
        const selfie = selfies[next++ % selfies.length];
        const t = process.hrtime.bigint();
        const { requestId } = await post(selfie);
        out.push({ ms: ms(t), requestId });
      }
    }),
  );
  return out;
}

export const latencies = (values: number[]) =>
  `p50 ${percentile(values, 0.5).toFixed(0)} ms, p99 ${percentile(values, 0.99).toFixed(0)} ms, max ${Math.max(...values).toFixed(0)} ms`;

/** The fixture race and group photos, in encodings `from` to `to` - 1 (each slightly different: import dedupes by content). */
export async function ingestPhotos(
  fixtures: string,
  from: number,
  to: number,
): Promise<Array<{ name: string; file: Buffer }>> {
  const files = [path.join(fixtures, 'bibs'), path.join(fixtures, 'faces', 'group')].filter(existsSync).flatMap((dir) =>
    readdirSync(dir)
      .filter((f) => /\.jpe?g$/i.test(f))
      .map((f) => path.join(dir, f)),
  );
  const out: Array<{ name: string; file: Buffer }> = [];
  for (let copy = from; copy < to; copy++) {
    for (const file of files) {
      const bytes =
        copy === 0
          ? readFileSync(file)
          : await sharp(readFileSync(file))
              .jpeg({ quality: 90 - copy })
              .toBuffer();
      out.push({ name: `${copy}-${path.basename(file)}`, file: bytes });
    }
  }
  return out;
}

/**
 * Photos arriving while participants search: imports `photos` through REST (as an organiser's
 * upload), queues their processing, then runs `during` until every photo is processed. Each
 * processed photo bumps the event's face revision, so searches meet fresh faces.
 */
export async function whileIngesting<T>(
  restUrl: string,
  base: string,
  key: string,
  photos: Array<{ name: string; file: Buffer }>,
  during: (busy: () => boolean) => Promise<T>,
): Promise<{ result: T; processed: number; seconds: number }> {
  const call = async (method: string, route: string, body?: FormData | string) => {
    const res = await fetch(`${restUrl}${base}${route}`, {
      method,
      headers: { 'x-api-key': key, ...(typeof body === 'string' ? { 'content-type': 'application/json' } : {}) },
      body,
    });
    const json = (await res.json()) as { data: Record<string, number> | null; message: string };
    if (res.status !== 200) throw new Error(`${method} ${route} answered ${res.status}: ${json.message}`);
    return json.data!;
  };
  for (let i = 0; i < photos.length; i += 8) {
    const form = new FormData();
    for (const p of photos.slice(i, i + 8))
      form.append('files', new Blob([new Uint8Array(p.file)], { type: 'image/jpeg' }), p.name);
    await call('POST', '/pipeline/photos/import', form);
  }
  const before = await call('GET', '/pipeline/photos/status');
  const started = process.hrtime.bigint();
  await call('POST', '/pipeline/photos/process', '{}');
  let open = true;
  let processed = 0;
  const watch = (async () => {
    while (open) {
      const status = await call('GET', '/pipeline/photos/status');
      processed = status.processed + status.failed - before.processed - before.failed;
      open = status.queued + status.processing + status.imported > 0;
      if (open) await new Promise((r) => setTimeout(r, 500));
    }
  })();
  const result = await during(() => open);
  await watch;
  return { result, processed, seconds: ms(started) / 1000 };
}
