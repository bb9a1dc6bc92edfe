import { execFileSync } from 'node:child_process';
import path from 'node:path';

/**
 * The heavy packages a fresh Node process has loaded after requiring `entry` of the built core and running `then`
 * on its exports (`core`).
 */
function heavyPackagesLoadedBy(entry: string, then = ''): string[] {
  const script = `const core = require(${JSON.stringify(path.join(__dirname, '..', 'dist', entry))}); ${then};
console.log(JSON.stringify(Object.keys(require.cache))); process.exit(0);`;
  const files: string[] = JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' }));
  const packages = files.map((file) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file)?.[1]);
  return [
    ...new Set(
      packages
        .map((name) => /^(sharp|@aws-sdk|@mikro-orm|bullmq)\b/.exec(name ?? '')?.[1])
        .filter((name): name is string => !!name),
    ),
  ].sort();
}

describe('the entries of @em/core', () => {
  it('the main entry is light: no sharp, AWS SDK, MikroORM or BullMQ', () => {
    expect(heavyPackagesLoadedBy('index.js')).toEqual([]);
  });

  it('each other entry brings only the heavy dependency it is named for, the SDK and BullMQ on first use', () => {
    expect(heavyPackagesLoadedBy('data.js')).toEqual(['@mikro-orm']);
    expect(heavyPackagesLoadedBy('storage/index.js')).toEqual([]);
    expect(heavyPackagesLoadedBy('jobs/index.js')).toEqual([]);
    // the selfie embedder is a BullMQ client of the ml-worker, made by the search subgraph only
    expect(heavyPackagesLoadedBy('media.js')).toEqual(['sharp']);
  });

  it('a service that makes a store and its queues but uses neither at start runs none of the AWS SDK or BullMQ', () => {
    const cfg = `{ S3_ENDPOINT: 'http://127.0.0.1:1', MEDIA_URL: 'https://m.test' }`;
    const store = `const store = new core.ObjectStore(${cfg})`;
    const jobs = `const jobs = new core.JobQueues('redis://127.0.0.1:1')`;
    expect(heavyPackagesLoadedBy('storage/index.js', `${store}; store.publicUrl('public/1/large/a.jpg')`)).toEqual([]);
    expect(heavyPackagesLoadedBy('jobs/index.js', jobs)).toEqual([]);
    // First use loads them: a presigned link needs the SDK, a queue BullMQ.
    expect(heavyPackagesLoadedBy('storage/index.js', `${store}; store.presignedDownload('a/b.jpg', 'b.jpg')`)).toEqual([
      '@aws-sdk',
    ]);
    expect(heavyPackagesLoadedBy('jobs/index.js', `${jobs}; jobs.queue('eventDeletion')`)).toEqual(['bullmq']);
  });
});
