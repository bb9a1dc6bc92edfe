import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { receiveVerifiedPayload } from './verified-payload';

const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const chunks = (s: string, size: number) =>
  Readable.from(
    Array.from({ length: Math.ceil(s.length / size) }, (_, i) => Buffer.from(s.slice(i * size, (i + 1) * size))),
  );

describe('a request body checked against its signed sha256', () => {
  let spoolDir: string;
  const limits = () => ({ spoolDir, memoryBytes: 16, maxBytes: 1000 });
  beforeEach(() => (spoolDir = mkdtempSync(path.join(os.tmpdir(), 'spool-test-'))));
  afterEach(() => rmSync(spoolDir, { recursive: true, force: true }));

  it('passes a small matching body on from memory', async () => {
    const payload = await receiveVerifiedPayload(chunks('hello', 2), sha('hello'), limits());
    expect(payload).toMatchObject({ ok: true, length: 5 });
    if (payload.ok) expect(await text(payload.stream())).toBe('hello');
    expect(readdirSync(spoolDir)).toEqual([]);
  });

  it('spools a larger body to a private file, removed once disposed', async () => {
    const body = 'x'.repeat(300);
    const payload = await receiveVerifiedPayload(chunks(body, 7), sha(body).toUpperCase(), limits());
    expect(payload).toMatchObject({ ok: true, length: 300 });
    if (!payload.ok) return;
    expect(readdirSync(spoolDir)).toHaveLength(1);
    expect(await text(payload.stream())).toBe(body);
    await payload.dispose();
    expect(readdirSync(spoolDir)).toEqual([]);
  });

  it('refuses a body that differs from the signed hash, and keeps nothing of it', async () => {
    for (const body of ['hellO', 'y'.repeat(300)]) {
      expect(await receiveVerifiedPayload(chunks(body, 7), sha('hello'), limits())).toMatchObject({
        ok: false,
        status: 400,
        code: 'XAmzContentSHA256Mismatch',
      });
    }
    expect(readdirSync(spoolDir)).toEqual([]);
  });

  it('stops reading past the size limit', async () => {
    const body = 'z'.repeat(2000);
    expect(await receiveVerifiedPayload(chunks(body, 100), sha(body), limits())).toMatchObject({
      ok: false,
      code: 'EntityTooLarge',
    });
    expect(readdirSync(spoolDir)).toEqual([]);
  });
});
