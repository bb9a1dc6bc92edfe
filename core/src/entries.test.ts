import { execFileSync } from 'node:child_process';
import path from 'node:path';

/** The heavy packages a fresh Node process has loaded after requiring `entry` of the built core. */
function heavyPackagesLoadedBy(entry: string): string[] {
  const script = `require(${JSON.stringify(path.join(__dirname, '..', 'dist', entry))}); console.log(JSON.stringify(Object.keys(require.cache)))`;
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

  it('each other entry brings only the heavy dependency it is named for', () => {
    expect(heavyPackagesLoadedBy('data.js')).toEqual(['@mikro-orm']);
    expect(heavyPackagesLoadedBy('storage/index.js')).toEqual(['@aws-sdk']);
    expect(heavyPackagesLoadedBy('jobs/index.js')).toEqual(['bullmq']);
    // the selfie embedder is a BullMQ client of the ml-worker
    expect(heavyPackagesLoadedBy('media.js')).toEqual(['bullmq', 'sharp']);
  });
});
