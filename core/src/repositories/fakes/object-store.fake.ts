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

  publicUrl(key: string): string {
    return `https://media.test/${key}`;
  }

  async presignedDownload(key: string, fileName: string): Promise<string> {
    return `https://s3.test/${key}?download=${encodeURIComponent(fileName)}&signature=test`;
  }
}
