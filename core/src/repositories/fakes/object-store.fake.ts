import { readFile, writeFile } from 'node:fs/promises';
import { ObjectStore } from '../../storage/object-store';

/** The object store in memory: the methods services use, with the same URL shapes a test can assert on. */
export class InMemoryObjectStore {
  readonly objects = new Map<string, { body: Buffer; contentType: string }>();
  readonly deleted: string[] = [];

  /** The fake where an `ObjectStore` is expected. */
  get asStore(): ObjectStore {
    return this as unknown as ObjectStore;
  }

  async put(key: string, body: Buffer, contentType: string): Promise<void> {
    this.objects.set(key, { body, contentType });
  }

  async putFile(key: string, file: string, contentType: string): Promise<void> {
    this.objects.set(key, { body: await readFile(file), contentType });
  }

  async download(key: string, file: string): Promise<void> {
    await writeFile(file, await this.getBuffer(key));
  }

  async getBuffer(key: string): Promise<Buffer> {
    const object = this.objects.get(key);
    if (!object) throw Object.assign(new Error(`NoSuchKey: ${key}`), { name: 'NoSuchKey' });
    return object.body;
  }

  async delete(key: string): Promise<void> {
    this.objects.delete(key);
    this.deleted.push(key);
  }

  async list(prefix: string): Promise<Array<{ key: string; size: number }>> {
    return [...this.objects]
      .filter(([key]) => key.startsWith(prefix))
      .map(([key, o]) => ({ key, size: o.body.length }));
  }

  async exists(key: string): Promise<boolean> {
    return this.objects.has(key);
  }

  /** Multipart uploads started and not completed or aborted: their key and parts by number. */
  readonly multipart = new Map<string, { key: string; contentType: string; parts: Map<number, Buffer> }>();

  async presignedPut(key: string, length: number, contentType: string, ttlSeconds: number): Promise<string> {
    return `https://s3.test/${key}?length=${length}&type=${encodeURIComponent(contentType)}&expires=${ttlSeconds}`;
  }

  async startMultipart(key: string, contentType: string): Promise<string> {
    const uploadId = `mp${this.multipart.size + 1}`;
    this.multipart.set(uploadId, { key, contentType, parts: new Map() });
    return uploadId;
  }

  async presignedPart(key: string, uploadId: string, partNumber: number, length: number): Promise<string> {
    return `https://s3.test/${key}?uploadId=${uploadId}&partNumber=${partNumber}&length=${length}`;
  }

  /** What a browser's PUT to a part URL does. */
  putPart(uploadId: string, partNumber: number, body: Buffer): void {
    this.multipart.get(uploadId)!.parts.set(partNumber, body);
  }

  async listParts(key: string, uploadId: string) {
    const upload = this.multipart.get(uploadId);
    if (!upload || upload.key !== key) return null;
    return [...upload.parts]
      .sort(([a], [b]) => a - b)
      .map(([partNumber, body]) => ({ partNumber, etag: `"etag${partNumber}"`, size: body.length }));
  }

  async completeMultipart(key: string, uploadId: string, parts: Array<{ partNumber: number }>): Promise<boolean> {
    const upload = this.multipart.get(uploadId);
    if (!upload || upload.key !== key) return false;
    const body = Buffer.concat(parts.map((p) => upload.parts.get(p.partNumber)!));
    this.objects.set(key, { body, contentType: upload.contentType });
    this.multipart.delete(uploadId);
    return true;
  }

  async abortMultipart(key: string, uploadId: string): Promise<void> {
    if (this.multipart.get(uploadId)?.key === key) this.multipart.delete(uploadId);
  }

  async size(key: string): Promise<number | null> {
    return this.objects.get(key)?.body.length ?? null;
  }

  publicUrl(key: string): string {
    return `https://media.test/${key}`;
  }

  async presignedDownload(key: string, fileName: string): Promise<string> {
    return `https://s3.test/${key}?download=${encodeURIComponent(fileName)}&signature=test`;
  }
}
