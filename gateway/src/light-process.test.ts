import { execFileSync } from 'node:child_process';
import path from 'node:path';

/** The packages of the modules a fresh Node process has loaded after requiring `entry` (the built one). */
function packagesLoadedBy(entry: string): string[] {
  const script = `require(${JSON.stringify(entry)}); console.log(JSON.stringify(Object.keys(require.cache)))`;
  const files: string[] = JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' }));
  return [
    ...new Set(
      files
        .map((file) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file)?.[1])
        .filter((name): name is string => !!name),
    ),
  ];
}

// The gateway reads API keys and links accounts in Postgres, so it loads MikroORM (@em/core/data); it
// has no business with images, objects or jobs.
describe('the gateway loads no imaging, object storage or queues', () => {
  it('its library entry (every part its main assembles) loads none of sharp, the AWS SDK or BullMQ', () => {
    const loaded = packagesLoadedBy(path.join(__dirname, '..', 'dist', 'index.js'));
    expect(loaded).toContain('@apollo/gateway');
    expect(loaded.filter((name) => /^(sharp|@aws-sdk\/.*|bullmq)$/.test(name))).toEqual([]);
  });
});
